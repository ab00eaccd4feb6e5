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
  /**
   * The queued events whose producers wait, in push order with their acknowledgements: few (a level
   * holds at most one). Events are taken in push order too, so the first of them is the only one a
   * take can meet: no lookup by event.
   */
  private readonly awaited: { event: LoopEvent; ack: () => void }[] = [];
  /** The acknowledgement of the event last taken, when its producer waits for it. */
  ack: (() => void) | undefined;

  emit(event: LoopEvent): void {
    this.queue.push(event);
  }

  /** Resolves once the consumer has pulled `event` (or left). */
  emitAndWait(event: LoopEvent): Promise<void> {
    if (this.queue.closed) return Promise.resolve();
    return new Promise((ack) => {
      this.awaited.push({ event, ack });
      this.queue.push(event);
    });
  }

  /** The next queued event, if any; its acknowledgement (if awaited) is left in `ack`. */
  take(): LoopEvent | undefined {
    const event = this.queue.take();
    const first = this.awaited[0];
    if (first !== undefined && first.event === event) {
      this.ack = first.ack;
      this.awaited.shift();
    } else this.ack = undefined;
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
    for (const { ack } of this.awaited.splice(0)) ack();
  }
}
