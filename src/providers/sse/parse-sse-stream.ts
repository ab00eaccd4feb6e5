import { ProviderError } from "../../errors/errors.js";
import { abortError } from "../../internal/abort.js";
import { createSseDecoder, type SseDecoderOptions, type SseEvent } from "./create-sse-decoder.js";

/** Options of {@link parseSseStream} and {@link parseSseBatches}. */
export interface ParseSseOptions extends SseDecoderOptions {
  /** Told when each read of the body starts and ends (the providers' idle timeout). @default none */
  idle?: { arm(): void; disarm(): void };
  /**
   * The most bytes of body read: past it, the body is cancelled and a non-retryable
   * `ProviderError` (`errorType: "response_too_large"`) is thrown.
   * @default Infinity (the HTTP providers pass their `maxResponseBytes`)
   */
  maxResponseBytes?: number;
}

/**
 * Reads a `text/event-stream` body and yields its events as they complete.
 *
 * Bytes are decoded with a streaming UTF-8 decoder, so a character split across network chunks
 * arrives whole. When `signal` aborts, the body is cancelled and the generator throws an
 * `AbortError`; when the consumer stops early, the body is cancelled too (the connection is freed).
 * An event larger than `maxEventBytes` fails with a `ProviderError` (see `createSseDecoder`).
 */
export async function* parseSseStream(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options?: ParseSseOptions,
): AsyncGenerator<SseEvent> {
  for await (const batch of parseSseBatches(body, signal, options)) {
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
export async function* parseSseBatches(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
  options: ParseSseOptions = {},
): AsyncGenerator<SseEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  const sse = createSseDecoder(options);
  const { idle } = options;
  const maxResponseBytes = options.maxResponseBytes ?? Number.POSITIVE_INFINITY;
  let received = 0;
  let done = false;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw abortError(signal);
      let chunk: ReadableStreamReadResult<Uint8Array>;
      idle?.arm();
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        throw error;
      } finally {
        idle?.disarm();
      }
      if (signal?.aborted) throw abortError(signal);
      if (chunk.done) {
        done = true;
        const tail = decoder.decode();
        const events = tail === "" ? sse.flush() : [...sse.push(tail), ...sse.flush()];
        if (events.length > 0) yield events;
        return;
      }
      received += chunk.value.byteLength;
      if (received > maxResponseBytes) throw responseTooLarge(maxResponseBytes, options.provider ?? "sse");
      const events = sse.push(decoder.decode(chunk.value, { stream: true }));
      if (events.length > 0) yield events;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The error for a body that grew over `maxResponseBytes`. */
function responseTooLarge(maxResponseBytes: number, provider: string): ProviderError {
  return new ProviderError(
    `The response exceeded maxResponseBytes (${maxResponseBytes} bytes) and was cancelled: the server kept streaming past any ` +
      `answer a model gives. Raise the provider's maxResponseBytes option if such large responses are expected.`,
    { provider, retryable: false, errorType: "response_too_large" },
  );
}
