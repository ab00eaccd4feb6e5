import { AsyncQueue } from "../internal/async-queue.js";
import type { LoopEvent } from "../contracts/loop-event.js";

/**
 * Where every level of a turn puts its events; the loop's one generator drains it. Producers never
 * wait, except for `message` events (`emitAndWait`): those hold their level until the consumer has
 * pulled them, so a host storing messages as it reads them has them stored before any tool runs.
 * One queue instead of generators nested per level keeps each event to a single generator resume.
 */
export class EventSink {
  private readonly queue = new AsyncQueue<LoopEvent>();
  /** Acknowledgements of queued events whose producers wait (few: messages, approval requests). */
  private readonly acks = new Map<LoopEvent, () => void>();
  /** The acknowledgement of the event last taken, when its producer waits for it. */
  ack: (() => void) | undefined;

  emit(event: LoopEvent): void {
    this.queue.push(event);
  }

  /** Resolves once the consumer has pulled `event` (or left). */
  emitAndWait(event: LoopEvent): Promise<void> {
    if (this.queue.closed) return Promise.resolve();
    return new Promise((ack) => {
      this.acks.set(event, ack);
      this.queue.push(event);
    });
  }

  /** The next queued event, if any; its acknowledgement (if awaited) is left in `ack`. */
  take(): LoopEvent | undefined {
    const event = this.queue.take();
    this.ack = undefined;
    if (event !== undefined && this.acks.size > 0) {
      this.ack = this.acks.get(event);
      if (this.ack) this.acks.delete(event);
    }
    return event;
  }

  /** Resolves when something is queued or `notify()` is called. */
  wait(): Promise<void> {
    return this.queue.wait();
  }

  /** `wait()` as a callback, called synchronously by the next emit or `notify()` (once). */
  onReady(wake: () => void): void {
    this.queue.onReady(wake);
  }

  notify(): void {
    this.queue.notify();
  }

  /** The consumer left: release every waiting producer and drop later events. */
  close(): void {
    this.queue.close();
    for (const ack of this.acks.values()) ack();
    this.acks.clear();
  }
}
