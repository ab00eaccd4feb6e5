/**
 * A push-to-pull queue: producers push without waiting, one consumer pulls, in push order. The
 * consumer either drains it by hand (`take()` until empty, then `await wait()`) or iterates it
 * (`for await`), which ends after `end()` once the queued values are read, and throws the error
 * given to `end(error)` after them.
 *
 * Values sit in a ring (no per-value wrapper and no O(n) `shift`); `undefined` is not a value
 * (`take()` returns it for "empty").
 */
export class AsyncQueue<T extends NonNullable<unknown>> {
  #items: (T | undefined)[] = [];
  #head = 0;
  /** One past the last queued value: `#items` may be longer (slots kept from earlier, emptied). */
  #tail = 0;
  #wake: (() => void) | undefined;
  #closed = false;
  #ended: { error?: unknown; failed: boolean } | undefined;

  /** Values queued and not yet taken. */
  get size(): number {
    return this.#tail - this.#head;
  }

  /** Whether `close()` was called (pushes are dropped). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queues `value` and wakes the consumer. Dropped after `close()` or `end()`. */
  push(value: T): void {
    if (this.#closed || this.#ended) return;
    this.#items[this.#tail++] = value;
    this.notify();
  }

  /** The next value, if any. */
  take(): T | undefined {
    const head = this.#head;
    const items = this.#items;
    if (head === this.#tail) return undefined;
    const value = items[head];
    items[head] = undefined;
    if (head + 1 === this.#tail) {
      // Drained: start over at the front (no truncation: setting an array's length is slow), so the
      // array never grows past the most ever queued at once.
      this.#head = 0;
      this.#tail = 0;
    } else {
      this.#head = head + 1;
      // A consumer that never quite catches up: drop the taken half now and then.
      if (head >= 1024 && head * 2 >= this.#tail) {
        this.#items = items.slice(head + 1, this.#tail);
        this.#tail -= head + 1;
        this.#head = 0;
      }
    }
    return value;
  }

  /** Resolves at the next `push`, `notify`, `end` or `close` (one consumer: a new call replaces the last). */
  wait(): Promise<void> {
    return new Promise((resolve) => (this.#wake = resolve));
  }

  /**
   * `wait()` without its promise: `wake` is called synchronously by the next `push`, `notify`, `end`
   * or `close` (after the value is queued), once. One consumer: replaces a pending `wait()` or `onReady`.
   */
  onReady(wake: () => void): void {
    this.#wake = wake;
  }

  /** Wakes a waiting consumer without a value (something else it watches changed). */
  notify(): void {
    const wake = this.#wake;
    if (wake) {
      this.#wake = undefined;
      wake();
    }
  }

  /** No more values: iteration ends after the queued ones (throwing `error`, when given). */
  end(...error: [] | [unknown]): void {
    if (this.#ended) return;
    this.#ended = error.length === 0 ? { failed: false } : { failed: true, error: error[0] };
    this.notify();
  }

  /** The consumer left: drops the queued values (returned, in order) and every later push. */
  close(): T[] {
    this.#closed = true;
    const dropped: T[] = [];
    for (let value = this.take(); value !== undefined; value = this.take()) dropped.push(value);
    this.notify();
    return dropped;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      const value = this.take();
      if (value !== undefined) {
        yield value;
        continue;
      }
      const ended = this.#ended;
      if (ended) {
        if (ended.failed) throw ended.error;
        return;
      }
      if (this.#closed) return;
      await this.wait();
    }
  }
}
