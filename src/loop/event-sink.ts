import { AsyncQueue } from "../internal/async-queue.js";
import type { LoopEvent } from "../contracts/loop-event.js";

/** A queued event and, when its producer waits for it, the acknowledgement that releases the producer. */
export interface SinkItem {
  readonly event: LoopEvent;
  readonly ack?: () => void;
}

/**
 * Where every level of a turn puts its events; the loop's generator drains it. Producers never
 * wait, except for `message` events (`emitAndWait`): those hold their level until the consumer has
 * pulled them, so a host storing messages as it reads them has them stored before any tool runs.
 * One queue for every level keeps each event to a single `yield` of one generator.
 */
export class EventSink {
  readonly #queue = new AsyncQueue<SinkItem>();
  #ended = false;

  emit(event: LoopEvent): void {
    this.#queue.push({ event });
  }

  /** Resolves once the consumer has pulled `event` and asked for the next one (or left). */
  emitAndWait(event: LoopEvent): Promise<void> {
    if (this.#queue.closed) return Promise.resolve();
    return new Promise((ack) => this.#queue.push({ event, ack }));
  }

  /** The next queued event, if any (see `wait` and `finished`). */
  take(): SinkItem | undefined {
    return this.#queue.take();
  }

  /** Whether no event will come any more: ended (every level finished) or closed, and none left queued. */
  get finished(): boolean {
    return (this.#ended || this.#queue.closed) && this.#queue.size === 0;
  }

  /** Resolves when an event is queued, or the sink ends or closes. */
  wait(): Promise<void> {
    return this.#queue.wait();
  }

  /** Every level has finished: no event follows the queued ones. */
  end(): void {
    this.#ended = true;
    this.#queue.notify();
  }

  /** The consumer left: release every waiting producer and drop later events. */
  close(): void {
    for (const item of this.#queue.close()) item.ack?.();
  }
}
