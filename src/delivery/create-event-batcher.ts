import { InvalidArgumentError } from "../errors/errors.js";
import type { RuntimeEvent } from "../contracts/agent-runtime.js";

/**
 * Event types delivered at once by default (the ones a person waits on): task status, model call start, tool
 * preparation, approval requests, questions, plans, budget stops, errors and the turn's end.
 * Everything else (text and reasoning deltas, tool updates, usage, ...) is batched.
 */
export const IMMEDIATE_EVENT_TYPES: readonly string[] = Object.freeze([
  "task_status",
  "llm_call_start",
  "tool_calls_preparing",
  "approval_request",
  "question",
  "plan_ready",
  "budget_exceeded",
  "error",
  "done",
]);

const immediateTypes = new Set(IMMEDIATE_EVENT_TYPES);

/** The default `immediate` predicate of `createEventBatcher`: `IMMEDIATE_EVENT_TYPES`. */
export function isImmediateEvent(event: { type: string }): boolean {
  return immediateTypes.has(event.type);
}

/** Options of `createEventBatcher`. */
export interface EventBatcherOptions<E extends { type: string } = RuntimeEvent> {
  /**
   * Receives each batch, in push order. Called synchronously from `push` (immediate events),
   * `flush`, `close` or the timer; a batch is never empty. It must not call `push` on the
   * same batcher. An exception it throws reaches the caller of `push`/`flush`/`close`; from
   * the timer it goes to `onError`.
   */
  onFlush: (events: E[]) => void;
  /**
   * Longest time a batched event waits, in milliseconds. `0` delivers every event at once.
   * @default 100
   */
  flushMs?: number;
  /**
   * Which events skip the wait. An immediate event first flushes everything pushed before it,
   * in the same batch, so delivery order is always push order.
   * @default isImmediateEvent
   */
  immediate?: (event: E) => boolean;
  /**
   * Told when `onFlush` throws during a timer flush (there is no caller to throw to).
   * @default rethrows, like any exception in a timer callback
   */
  onError?: (error: unknown) => void;
}

/** A batcher made by `createEventBatcher`. */
export interface EventBatcher<E extends { type: string } = RuntimeEvent> {
  /** Adds an event. Ignored after `close()` (a late listener call is harmless). */
  push(event: E): void;
  /** Delivers everything pending now (nothing when nothing is pending). */
  flush(): void;
  /** Delivers everything pending and stops: later pushes are ignored, the timer is cleared. */
  close(): void;
  /** Events pushed but not delivered yet. */
  readonly pending: number;
}

/**
 * Groups high-frequency events (text deltas, tool updates) into batches delivered at most every
 * `flushMs`, while delivering the events a person waits on ({@link isImmediateEvent}) at once.
 * Order is kept across both kinds: a batch is always a contiguous run of pushes. Timers use
 * `setTimeout`; the batcher holds no timer while nothing is pending.
 *
 * @example
 * ```ts
 * const batcher = createEventBatcher({ onFlush: (events) => socket.send(JSON.stringify(events)) });
 * runtime.events.on("event", batcher.push);
 * // when the client goes away:
 * runtime.events.off("event", batcher.push);
 * batcher.close();
 * ```
 */
export function createEventBatcher<E extends { type: string } = RuntimeEvent>(
  options: EventBatcherOptions<E>,
): EventBatcher<E> {
  const flushMs = options.flushMs ?? 100;
  if (typeof options.onFlush !== "function")
    throw new InvalidArgumentError("createEventBatcher: onFlush must be a function");
  if (typeof flushMs !== "number" || !Number.isFinite(flushMs) || flushMs < 0) {
    throw new InvalidArgumentError(
      `createEventBatcher: flushMs must be a finite number of 0 or more (got ${String(flushMs)})`,
    );
  }
  const immediate = options.immediate ?? isImmediateEvent;
  let buffer: E[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (buffer.length === 0) return;
    // Hand the batch over before calling out, so a throwing onFlush leaves a consistent batcher.
    const batch = buffer;
    buffer = [];
    options.onFlush(batch);
  };

  const onTimer = () => {
    timer = undefined;
    try {
      flush();
    } catch (error) {
      if (options.onError) options.onError(error);
      else throw error;
    }
  };

  return {
    push(event: E) {
      if (closed) return;
      buffer.push(event);
      if (flushMs === 0 || immediate(event)) flush();
      else if (timer === undefined) timer = setTimeout(onTimer, flushMs);
    },
    flush,
    close() {
      if (closed) return;
      closed = true;
      flush();
    },
    get pending() {
      return buffer.length;
    },
  };
}
