import { abortError } from "../../internal/abort.js";
import type { ModelEvent, ModelRequest, Provider } from "../../contracts/provider.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { createOutputLimit, type OutputLimit } from "../output-limit.js";
import { mapRequestToolNames, unmapToolCall } from "../tool-name-map.js";
import { postEventStream } from "./post-event-stream.js";
import { checkStreamLimits, type StreamLimitOptions } from "./stream-limit-options.js";
import { streamWithRetry, type RetryOptions } from "./stream-with-retry.js";

/** Turns one response's server-sent events into model events (a fresh one per attempt). */
export interface StreamReader {
  push(event: SseEvent): ModelEvent[];
  /** True once the wire format's end marker came (`[DONE]`, `message_stop`): nothing after it is read. */
  readonly complete: boolean;
  /** Events owed when the stream ends (or an error if it ended too early). */
  end(): ModelEvent[];
}

/** What a wire format adds to the shared HTTP + SSE provider. */
export interface SseProviderInit extends RetryOptions, StreamLimitOptions {
  id: string;
  url: string;
  headers: Record<string, string>;
  fetch?: typeof fetch;
  /** The request body in the wire format. */
  body(request: ModelRequest): unknown;
  /**
   * What the body leaves out of `request` because the vendor's API does not take it: each code
   * is reported once per provider, as a `warning` model event before the response.
   * @default none
   */
  warnings?(request: ModelRequest): { code: string; message: string }[];
  /** A reader for one response; it reports the text and tool-call argument characters it reads to `output`. */
  reader(output: OutputLimit): StreamReader;
}

/**
 * A provider that POSTs each request and reads the streamed answer as SSE, with retries before any
 * output (see `streamWithRetry`), prompt abort, an idle timeout, event and response size limits (see
 * `postEventStream`), and the `maxOutputTokens` check (see `createOutputLimit`). Shared by `openai()` and
 * `anthropic()`. Throws an `InvalidArgumentError`
 * for a bad limit, before any request.
 */
export function createSseProvider(init: SseProviderInit): Provider {
  const { id } = init;
  checkStreamLimits(id, init);
  const limits: StreamLimitOptions = {
    ...(init.maxEventBytes === undefined ? {} : { maxEventBytes: init.maxEventBytes }),
    ...(init.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: init.idleTimeoutMs }),
    ...(init.maxResponseBytes === undefined ? {} : { maxResponseBytes: init.maxResponseBytes }),
  };
  async function* attempt(original: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    // Vendors accept fewer characters in tool names than Agentry (dots): names go out mapped and come back unmapped.
    const { request, names } = mapRequestToolNames(original);
    const reader = init.reader(createOutputLimit({ provider: id, maxOutputTokens: original.maxOutputTokens }));
    const events = postEventStream({
      ...limits,
      provider: id,
      fetch: init.fetch ?? globalThis.fetch,
      url: init.url,
      headers: init.headers,
      body: init.body(request),
      signal,
    });
    read: for await (const batch of events) {
      for (const sse of batch) {
        for (const event of reader.push(sse)) {
          if (signal.aborted) throw abortError(signal);
          yield unmapToolCall(event, names);
        }
        // The end marker ends the response: a server that keeps the body open after it is not waited on.
        if (reader.complete) break read;
      }
    }
    for (const event of reader.end()) yield unmapToolCall(event, names);
  }
  const warned = new Set<string>();
  const stream = (request: ModelRequest, signal: AbortSignal) =>
    streamWithRetry({ ...init, provider: id, signal, attempt: (attemptSignal) => attempt(request, attemptSignal) });
  return {
    id,
    stream(request, { signal }) {
      const notes = (init.warnings?.(request) ?? []).filter((w) => !warned.has(w.code));
      if (notes.length === 0) return stream(request, signal);
      for (const note of notes) warned.add(note.code);
      return (async function* () {
        for (const note of notes) yield { type: "warning" as const, ...note };
        yield* stream(request, signal);
      })();
    },
  };
}
