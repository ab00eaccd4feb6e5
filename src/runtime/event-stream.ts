/**
 * Turns a producer that pushes values and resolves when done into an async iterable. Values are
 * buffered (the producer never waits for the consumer); the producer's rejection is thrown to the
 * consumer after the values before it. The producer starts at once, whether or not anyone reads.
 */
export function eventStream<T>(produce: (push: (value: T) => void) => Promise<unknown>): AsyncIterable<T> {
  const buffer: T[] = [];
  let done = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  produce((value) => {
    buffer.push(value);
    notify();
  }).then(
    () => {
      done = true;
      notify();
    },
    (error: unknown) => {
      failure = { error };
      done = true;
      notify();
    },
  );
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (buffer.length > 0) {
          yield buffer.shift()!;
          continue;
        }
        if (done) break;
        await new Promise<void>((resolve) => (wake = resolve));
      }
      if (failure) throw failure.error;
    },
  };
}
