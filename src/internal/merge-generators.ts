import PQueue from "p-queue";

/**
 * Runs generators concurrently (at most `concurrency` at a time) and yields their values as they
 * come. A value for which `mustAck` is true holds its producer until the consumer has pulled it
 * (so a message is consumed, e.g. stored, before its producer goes on). Returns each generator's
 * return value by position. If a generator throws, the others still finish, then the first error
 * is rethrown.
 */
export async function* mergeGenerators<T, R>(
  makers: readonly (() => AsyncGenerator<T, R>)[],
  concurrency: number,
  mustAck: (value: T) => boolean,
): AsyncGenerator<T, R[]> {
  const results = new Array<R>(makers.length);
  const queue: { value: T; ack: (() => void) | undefined }[] = [];
  let wake: (() => void) | undefined;
  let pending = makers.length;
  let failure: { error: unknown } | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const pool = new PQueue({ concurrency: Math.max(1, concurrency) });
  makers.forEach((make, index) => {
    void pool.add(async () => {
      try {
        const generator = make();
        let step = await generator.next();
        while (!step.done) {
          const value = step.value;
          if (mustAck(value)) {
            await new Promise<void>((ack) => {
              queue.push({ value, ack });
              notify();
            });
          } else {
            queue.push({ value, ack: undefined });
            notify();
          }
          step = await generator.next();
        }
        results[index] = step.value;
      } catch (error) {
        failure ??= { error };
      } finally {
        pending--;
        notify();
      }
    });
  });
  for (;;) {
    const item = queue.shift();
    if (item) {
      yield item.value;
      item.ack?.();
      continue;
    }
    if (pending === 0) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  if (failure) throw failure.error;
  return results;
}
