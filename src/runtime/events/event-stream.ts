import { AsyncQueue } from "../../internal/async-queue.js";

/** The default `maxStreamBacklog`: events `runtime.stream()` holds for a reader that has not read them. */
export const DEFAULT_MAX_STREAM_BACKLOG = 10_000;

/** Bounds of {@link eventStream}. */
export interface EventStreamLimit<T> {
  /** The most values held for the consumer at once. */
  maxBacklog: number;
  /** The last value the consumer gets when it falls `maxBacklog` behind; `value` is the first one it will not get. */
  overflow: (value: T) => T;
}

/**
 * Turns a producer that pushes values and resolves when done into an async iterable. The producer
 * never waits for the consumer and starts at once, whether or not anyone reads; the producer's
 * rejection is thrown to the consumer after the values before it.
 *
 * At most `maxBacklog` values wait for the consumer. A push that finds the backlog full ends the
 * iterable instead of growing it: the consumer reads what is queued, then `overflow(value)`, then
 * the end. Later pushes (and the producer's outcome) are dropped; the producer is never told.
 */
export function eventStream<T extends NonNullable<unknown>>(
  produce: (push: (value: T) => void) => Promise<unknown>,
  limit: EventStreamLimit<T>,
): AsyncIterable<T> {
  const queue = new AsyncQueue<T>();
  let overflowed = false;
  const push = (value: T) => {
    if (overflowed) return;
    if (queue.size >= limit.maxBacklog) {
      overflowed = true;
      queue.push(limit.overflow(value));
      queue.end();
      return;
    }
    queue.push(value);
  };
  produce(push).then(
    () => queue.end(),
    (error: unknown) => queue.end(error),
  );
  return queue;
}
