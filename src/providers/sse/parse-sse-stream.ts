import { abortError } from "../../internal/abort.js";
import { createSseDecoder, type SseEvent } from "./create-sse-decoder.js";

/**
 * Reads a `text/event-stream` body and yields its events as they complete.
 *
 * Bytes are decoded with a streaming UTF-8 decoder, so a character split across network chunks
 * arrives whole. When `signal` aborts, the body is cancelled and the generator throws an
 * `AbortError`; when the consumer stops early, the body is cancelled too (the connection is freed).
 */
export async function* parseSseStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  for await (const batch of parseSseBatches(body, signal)) {
    for (const event of batch) {
      yield event;
      if (signal?.aborted) throw abortError(signal);
    }
  }
}

/**
 * Like {@link parseSseStream}, but yields the events completed by each network chunk together
 * (never an empty batch): one async step per chunk instead of per event, for the adapters' hot path.
 */
export async function* parseSseBatches(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const sse = createSseDecoder();
  let done = false;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        throw error;
      }
      if (signal?.aborted) throw abortError(signal);
      if (chunk.done) {
        done = true;
        const tail = decoder.decode();
        const events = tail === "" ? sse.flush() : [...sse.push(tail), ...sse.flush()];
        if (events.length > 0) yield events;
        return;
      }
      const events = sse.push(decoder.decode(chunk.value, { stream: true }));
      if (events.length > 0) yield events;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
