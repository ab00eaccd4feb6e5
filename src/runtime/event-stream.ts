import { AsyncQueue } from "../internal/async-queue.js";

/**
 * Turns a producer that pushes values and resolves when done into an async iterable. Values are
 * buffered (the producer never waits for the consumer); the producer's rejection is thrown to the
 * consumer after the values before it. The producer starts at once, whether or not anyone reads.
 */
export function eventStream<T extends NonNullable<unknown>>(produce: (push: (value: T) => void) => Promise<unknown>): AsyncIterable<T> {
  const queue = new AsyncQueue<T>();
  produce((value) => queue.push(value)).then(
    () => queue.end(),
    (error: unknown) => queue.end(error),
  );
  return queue;
}
