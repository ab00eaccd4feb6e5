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
 * chunk. The source is read only as fast as the stream is read (backpressure), and cancelling
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
        // Loop until something is enqueued: a pull that enqueues nothing is not called again.
        for (;;) {
          let result: IteratorResult<E | readonly E[]> | typeof KEEP_ALIVE;
          try {
            result = await next();
          } catch (error) {
            finished = true;
            controller.enqueue(encoder.encode(frame({ type: "error", message: error instanceof Error ? error.message : String(error) })));
            controller.close();
            return;
          }
          if (result === KEEP_ALIVE) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            return;
          }
          pending = undefined;
          if (result.done) {
            finished = true;
            controller.close();
            return;
          }
          const value = result.value;
          if (!Array.isArray(value)) {
            controller.enqueue(encoder.encode(frame(value as E)));
            return;
          }
          if (value.length === 0) continue;
          let text = "";
          for (const event of value as readonly E[]) text += frame(event);
          controller.enqueue(encoder.encode(text));
          return;
        }
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
