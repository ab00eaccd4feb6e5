import { InvalidArgumentError } from "../errors/errors.js";
import type { DeliverableEvent } from "./deliverable-event.js";
import { checkDoneDelivery, deliverDone, type DoneDelivery } from "./done-outcome.js";

/** Options of `toServerSentEvents`. */
export interface ServerSentEventsOptions<E = DeliverableEvent> {
  /**
   * Sends `retry: N` first: how long a disconnected `EventSource` waits before reconnecting.
   * @default unset (the browser's default, about 3 s)
   */
  retryMs?: number;
  /**
   * Sends a `: keep-alive` comment after this long without an event, so proxies keep an idle
   * connection open (e.g. while a turn waits on a slow tool).
   * @default unset (no keep-alive)
   */
  keepAliveMs?: number;
  /**
   * The `id:` of an event's message (`undefined`: no `id:`). An id holding a line break is left
   * out rather than written (it would end the field early).
   * @default the event's `seq` when it is a number; for `createEventLog`'s `resume`, the log's
   * own ids (`log.eventId`), which tell its process apart from an earlier one
   */
  id?: (event: E) => string | number | undefined;
  /**
   * What a `done` event carries to the client. By default its `result` is the turn's outcome
   * only (`DoneOutcome`: status, text, structured, usage, error and the turn's ids), not the
   * message history and execution tree of the whole turn. `"full"` sends the event as it is; a
   * function adds the fields it returns to the outcome (see `DoneDelivery`).
   * @default "outcome"
   */
  done?: DoneDelivery;
}

/**
 * Where a source (`EventLog.resume`) offers the `id:` its events should get. Internal to the
 * delivery helpers.
 */
export const SSE_EVENT_ID: unique symbol = Symbol.for("agentry.delivery.sseEventId");

const KEEP_ALIVE = Symbol("keep-alive");
/** Characters gathered into one write at most, before encoding (a batch that crosses it still goes whole). */
const WRITE_CHARS = 64 * 1024;

/**
 * Microtask turns to wait for a next event the source may already have: enough for an async
 * generator to hand over a ready value (about 3), far shorter than any real wait (no timer, no
 * I/O). The wait ends as soon as the next event is there (a flag set by a reaction), instead of
 * racing it against a chain of promises built for every event.
 */
const READY_TURNS = 8;
/** Characters that would end an SSE field early (an `id` must not carry them). */
const LINE_BREAK = /[\r\n\0]/;

/**
 * Encodes events as Server-Sent Events (`text/event-stream`): one message per event, whose
 * `id:` is the event's `seq` (so a reconnecting `EventSource` sends the last one it saw as
 * `Last-Event-ID`; see `createEventLog` for serving it; for a `log.resume(...)` stream the id is
 * the log's `<epoch>:<seq>`, and `options.id` can choose another) and whose `data:` is the event
 * as JSON. A `done` event's `result` is cut down to the turn's outcome (`options.done`), so a
 * browser never gets the turn's whole history, tool arguments and results with it.
 * No `event:` field: the type is in the JSON, so `EventSource.onmessage` sees everything.
 *
 * An element may be an array (a batch from `createEventBatcher`): its events are written in one
 * chunk. Events the source already has ready are written together too (up to 64 KB per write),
 * so a burst of text deltas is not one write per delta; nothing waits for more. The source is
 * read only as fast as the stream is read (backpressure), and cancelling the stream returns the
 * source iterator (which ends a `runtime.stream()` subscription). If the source throws, one last
 * `data:` message `{"type":"error","message":...}` (no `id:`) says why, then the stream closes.
 *
 * @example
 * ```ts
 * return new Response(toServerSentEvents(runtime.stream({ agentId, content })), {
 *   headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
 * });
 * ```
 */
export function toServerSentEvents<E extends { type: string; seq?: number } = DeliverableEvent>(
  events: AsyncIterable<E | readonly E[]>,
  options: ServerSentEventsOptions<E> = {},
): ReadableStream<Uint8Array> {
  const { retryMs, keepAliveMs } = options;
  checkTimes(retryMs, keepAliveMs);
  checkDoneDelivery(options.done, "toServerSentEvents");
  const encoder = new TextEncoder();
  const frame = framer(events, options);
  let iterator: AsyncIterator<E | readonly E[]> | undefined;
  type Step = IteratorResult<E | readonly E[]>;
  let pending: Promise<Step> | undefined;
  /** How `pending` settled, once it has (set by a reaction, so checking it costs nothing). */
  let settled: { ok: true; step: Step } | { ok: false; error: unknown } | undefined;
  let finished = false;

  const request = (): Promise<Step> => {
    if (pending) return pending;
    const asked = iterator!.next();
    pending = asked;
    settled = undefined;
    void asked.then(
      (step) => {
        if (pending === asked) settled = { ok: true, step };
      },
      (error: unknown) => {
        if (pending === asked) settled = { ok: false, error };
      },
    );
    return asked;
  };
  const taken = () => {
    pending = undefined;
    settled = undefined;
  };

  const next = async (): Promise<Step | typeof KEEP_ALIVE> => {
    const asked = request();
    if (keepAliveMs === undefined) return asked;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = new Promise<typeof KEEP_ALIVE>(
      (resolve) => (timer = setTimeout(() => resolve(KEEP_ALIVE), keepAliveMs)),
    );
    try {
      return await Promise.race([asked, tick]);
    } finally {
      clearTimeout(timer);
    }
  };

  /** The next step if the source has it within a few microtask turns, else undefined (still pending). */
  const ready = async (): Promise<Step | undefined> => {
    void request();
    for (let turn = 0; turn < READY_TURNS && settled === undefined; turn++) await Promise.resolve();
    const outcome = settled;
    if (outcome === undefined) return undefined;
    if (!outcome.ok) throw outcome.error;
    return outcome.step;
  };

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        iterator = events[Symbol.asyncIterator]();
        if (retryMs !== undefined) controller.enqueue(encoder.encode(`retry: ${Math.round(retryMs)}\n\n`));
      },
      async pull(controller) {
        let text = "";
        const fail = (error: unknown) => {
          finished = true;
          text += `data: ${JSON.stringify({ type: "error", message: error instanceof Error ? error.message : String(error) })}\n\n`;
          controller.enqueue(encoder.encode(text));
          controller.close();
        };
        // Wait for the first event (or a keep-alive); then take every event the source already
        // has, up to WRITE_CHARS, into the same write: a fast source (a text-delta burst) costs
        // one encode and one chunk per burst instead of per event, a slow one waits for nothing.
        let first = true;
        for (;;) {
          let result: Step | typeof KEEP_ALIVE | undefined;
          try {
            result = first ? await next() : await ready();
          } catch (error) {
            taken();
            fail(error);
            return;
          }
          first = false;
          if (result === undefined) break;
          if (result === KEEP_ALIVE) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            return;
          }
          taken();
          if (result.done) {
            finished = true;
            if (text !== "") controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          const value = result.value;
          if (Array.isArray(value)) for (const event of value as readonly E[]) text += frame(event);
          else text += frame(value as E);
          // An empty batch leaves nothing to write yet: wait for the next event as for the first.
          if (text === "") first = true;
          else if (text.length >= WRITE_CHARS) break;
        }
        controller.enqueue(encoder.encode(text));
      },
      cancel() {
        if (finished) return;
        finished = true;
        // Not awaited: an async generator queues return() behind a next() still waiting for an
        // event, and a reader that went away must not wait for the next event to be let go.
        iterator?.return?.()?.catch(() => {});
      },
    },
    { highWaterMark: 1 },
  );
}

function checkTimes(retryMs: number | undefined, keepAliveMs: number | undefined): void {
  for (const [name, value] of [
    ["retryMs", retryMs],
    ["keepAliveMs", keepAliveMs],
  ] as const) {
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0)) {
      throw new InvalidArgumentError(
        `toServerSentEvents: ${name} must be a positive number of milliseconds (got ${String(value)})`,
      );
    }
  }
}

/**
 * One SSE message per event: `id:` (the event's `seq`, unless `options.id` or the source's offered
 * id function says otherwise; an id with a line break is left out), then one `data:` line of JSON.
 */
function framer<E extends { type: string; seq?: number }>(
  events: AsyncIterable<E | readonly E[]>,
  options: ServerSentEventsOptions<E>,
): (event: E) => string {
  const offered = (events as { [SSE_EVENT_ID]?: unknown })[SSE_EVENT_ID];
  const idOf =
    options.id ?? (typeof offered === "function" ? (offered as (event: E) => string | number | undefined) : undefined);
  const done = options.done ?? "outcome";
  return (event) => {
    const id = idOf ? idOf(event) : typeof event.seq === "number" ? event.seq : undefined;
    const data = JSON.stringify(event.type === "done" ? deliverDone(event, done) : event);
    return id === undefined || (typeof id === "string" && LINE_BREAK.test(id))
      ? `data: ${data}\n\n`
      : `id: ${id}\ndata: ${data}\n\n`;
  };
}
