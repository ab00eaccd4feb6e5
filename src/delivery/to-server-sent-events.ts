import { InvalidArgumentError } from "../errors/errors.js";
import type { DeliverableEvent } from "./deliverable-event.js";

/** Options of `toServerSentEvents`. */
export interface ServerSentEventsOptions {
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
}

const KEEP_ALIVE = Symbol("keep-alive");
const NOT_READY = Symbol("not-ready");
/** Characters gathered into one write at most (before encoding). */
const WRITE_BYTES = 64 * 1024;

/**
 * Settles after a few microtask turns: long enough for an async generator that has a value
 * ready to hand it over, far shorter than any real wait (no timer, no I/O).
 */
function soon(): Promise<typeof NOT_READY> {
  let turn = Promise.resolve();
  for (let i = 0; i < 6; i++) turn = turn.then();
  return turn.then(() => NOT_READY);
}

/** One SSE message: `id:` when the event has a numeric `seq`, then one `data:` line of JSON. */
function frame(event: { readonly type: string; readonly seq?: unknown; readonly [field: string]: unknown }): string {
  const data = JSON.stringify(event);
  return typeof event.seq === "number" ? `id: ${event.seq}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
}

/**
 * Encodes events as Server-Sent Events (`text/event-stream`): one message per event, whose
 * `id:` is the event's `seq` (so a reconnecting `EventSource` sends the last one it saw as
 * `Last-Event-ID`; see `createEventLog` for serving it) and whose `data:` is the event as JSON.
 * No `event:` field: the type is in the JSON, so `EventSource.onmessage` sees everything.
 *
 * An element may be an array (a batch from `createEventBatcher`): its events are written in one
 * chunk. Events the source already has ready are written together too (up to 64 KB per write),
 * so a burst of text deltas is not one write per delta; nothing waits for more. The source is read only as fast as the stream is read (backpressure), and cancelling
 * the stream returns the source iterator (which ends a `runtime.stream()` subscription). If the
 * source throws, one last `data:` message `{"type":"error","message":...}` (no `id:`) says why,
 * then the stream closes.
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
  options: ServerSentEventsOptions = {},
): ReadableStream<Uint8Array> {
  const { retryMs, keepAliveMs } = options;
  for (const [name, value] of [["retryMs", retryMs], ["keepAliveMs", keepAliveMs]] as const) {
    if (value !== undefined && (typeof value !== "number" || !Number.isFinite(value) || value <= 0)) {
      throw new InvalidArgumentError(`toServerSentEvents: ${name} must be a positive number of milliseconds (got ${String(value)})`);
    }
  }
  const encoder = new TextEncoder();
  let iterator: AsyncIterator<E | readonly E[]> | undefined;
  let pending: Promise<IteratorResult<E | readonly E[]>> | undefined;
  let finished = false;

  const next = async (): Promise<IteratorResult<E | readonly E[]> | typeof KEEP_ALIVE> => {
    pending ??= iterator!.next();
    if (keepAliveMs === undefined) return pending;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = new Promise<typeof KEEP_ALIVE>((resolve) => (timer = setTimeout(() => resolve(KEEP_ALIVE), keepAliveMs)));
    try {
      return await Promise.race([pending, tick]);
    } finally {
      clearTimeout(timer);
    }
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
          text += frame({ type: "error", message: error instanceof Error ? error.message : String(error) });
          controller.enqueue(encoder.encode(text));
          controller.close();
        };
        // Wait for the first event (or a keep-alive); then take every event the source already
        // has, up to WRITE_BYTES, into the same write: a fast source (a text-delta burst) costs
        // one encode and one chunk per burst instead of per event, a slow one waits for nothing.
        let first = true;
        for (;;) {
          let result: IteratorResult<E | readonly E[]> | typeof KEEP_ALIVE | typeof NOT_READY;
          try {
            if (first) result = await next();
            else {
              pending ??= iterator!.next();
              result = await Promise.race([pending, soon()]);
            }
          } catch (error) {
            fail(error);
            return;
          }
          first = false;
          if (result === NOT_READY) break;
          if (result === KEEP_ALIVE) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            return;
          }
          pending = undefined;
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
          else if (text.length >= WRITE_BYTES) break;
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
