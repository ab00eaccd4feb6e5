import type { LoopEvent } from "../contracts/loop-event.js";

/**
 * Where every level of a turn puts its events; the loop's one generator drains it. Producers never
 * wait, except for `message` events (`emitAndWait`): those hold their level until the consumer has
 * pulled them, so a host storing messages as it reads them has them stored before any tool runs.
 * One queue instead of generators nested per level keeps each event to a single generator resume.
 */
export class EventSink {
  // A ring of parallel slots (no wrapper object per event on the hot path).
  private readonly events: (LoopEvent | undefined)[] = [];
  private readonly acks: ((() => void) | undefined)[] = [];
  private head = 0;
  private tail = 0;
  private wake: (() => void) | undefined;
  private closed = false;
  /** The acknowledgement of the event last taken, when its producer waits for it. */
  ack: (() => void) | undefined;

  emit(event: LoopEvent): void {
    if (this.closed) return;
    this.events[this.tail] = event;
    this.acks[this.tail++] = undefined;
    this.notify();
  }

  /** Resolves once the consumer has pulled `event` (or left). */
  emitAndWait(event: LoopEvent): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((ack) => {
      this.events[this.tail] = event;
      this.acks[this.tail++] = ack;
      this.notify();
    });
  }

  /** The next queued event, if any; its acknowledgement (if awaited) is left in `ack`. */
  take(): LoopEvent | undefined {
    const head = this.head;
    if (head === this.tail) return undefined;
    const event = this.events[head];
    this.ack = this.acks[head];
    this.events[head] = undefined;
    this.acks[head] = undefined;
    if (head + 1 === this.tail) this.head = this.tail = 0;
    else this.head = head + 1;
    return event;
  }

  /** Resolves when something is queued or `notify()` is called. */
  wait(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  notify(): void {
    const wake = this.wake;
    if (wake) {
      this.wake = undefined;
      wake();
    }
  }

  /** The consumer left: release every waiting producer and drop later events. */
  close(): void {
    this.closed = true;
    while (this.take()) this.ack?.();
  }
}
