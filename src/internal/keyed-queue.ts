/**
 * Runs tasks one at a time per key, in call order; different keys run concurrently. A failed task
 * does not stop the ones queued after it. Keys with nothing queued hold no memory.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Queues `task` behind every earlier task of `key` and settles as it does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
