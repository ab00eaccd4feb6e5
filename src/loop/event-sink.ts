import type { LoopEvent } from "./loop-event.js";

interface Entry {
  event: LoopEvent;
  ack: (() => void) | undefined;
}

/**
 * Where every level of a turn puts its events; the loop's one generator drains it. Producers never
 * wait, except for `message` events (`emitAndWait`): those hold their level until the consumer has
 * pulled them, so a host storing messages as it reads them has them stored before any tool runs.
 * One queue instead of generators nested per level keeps each event to a single generator resume.
 */
export class EventSink {
  private queue: Entry[] = [];
  private head = 0;
  private wake: (() => void) | undefined;
  private closed = false;

  emit(event: LoopEvent): void {
    if (this.closed) return;
    this.queue.push({ event, ack: undefined });
    this.notify();
  }

  /** Resolves once the consumer has pulled `event` (or left). */
  emitAndWait(event: LoopEvent): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((ack) => {
      this.queue.push({ event, ack });
      this.notify();
    });
  }

  /** The next queued entry, if any. */
  take(): Entry | undefined {
    if (this.head >= this.queue.length) return undefined;
    const entry = this.queue[this.head++]!;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return entry;
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
    for (let entry = this.take(); entry; entry = this.take()) entry.ack?.();
  }
}
