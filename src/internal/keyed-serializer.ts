/**
 * Runs tasks one at a time per key, in call order; tasks of different keys run concurrently. A
 * task that throws or rejects settles its own promise only: the ones queued after it still run.
 * Keys with nothing queued hold no memory.
 *
 * The one promise chain of the codebase: a session's inbox, admission, a session's state
 * refreshes, a turn's exclusive tool locks and a JSONL file's writes all run through one.
 */
export class KeyedSerializer<K = string> {
  readonly #tails = new Map<K, Promise<void>>();

  /** Queues `task` behind every earlier task of `key`; settles as the task does. */
  run<T>(key: K, task: () => T | PromiseLike<T>): Promise<T> {
    const previous = this.#tails.get(key);
    // Nothing queued: start now (one microtask later, like a queued task would).
    const result = previous === undefined ? Promise.resolve().then(task) : previous.then(task);
    const tail = result.then(ignore, ignore);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Whether `key` has queued or running tasks. */
  has(key: K): boolean {
    return this.#tails.has(key);
  }

  /** Resolves when every task (including ones queued meanwhile) has settled. */
  async drain(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }
}

function ignore(): void {}
