import { ProviderError } from "../../errors/errors.js";
import { abortError, isAbortError } from "../../internal/abort.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { parseSseBatches } from "../sse/parse-sse-stream.js";
import { providerErrorFromPayload } from "./provider-error-from-payload.js";
import { providerErrorFromResponse } from "./provider-error-from-response.js";

/**
 * POSTs a JSON body and yields the server-sent events of the answer, in batches (the events each
 * network chunk completed). Every failure is a
 * `ProviderError`: an HTTP error status (with the body's message), a JSON body where a stream was
 * expected, or a network failure before or during the body (retryable). Abort throws `AbortError`.
 */
export async function* postEventStream(init: {
  provider: string;
  fetch: typeof fetch;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
}): AsyncGenerator<SseEvent[]> {
  const { provider, signal } = init;
  let response: Response;
  try {
    response = await init.fetch(init.url, {
      method: "POST",
      headers: init.headers,
      body: JSON.stringify(init.body),
      signal,
    });
  } catch (error) {
    throw failure(error, provider, signal);
  }
  if (!response.ok) throw await providerErrorFromResponse({ provider, response });
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.includes("application/json")) {
    // Some proxies answer a streaming request with one JSON document (usually an error).
    const text = await response.text().catch(() => "");
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (typeof payload === "object" && payload !== null && "error" in payload) {
      throw providerErrorFromPayload({ provider, payload });
    }
    throw new ProviderError(`Expected an event stream but got a JSON response: ${text.slice(0, 200)}`, { provider, retryable: false });
  }
  if (!response.body) throw new ProviderError("The response has no body", { provider, retryable: true });
  const events = parseSseBatches(response.body, signal);
  try {
    for (;;) {
      let result: IteratorResult<SseEvent[]>;
      try {
        result = await events.next();
      } catch (error) {
        throw failure(error, provider, signal);
      }
      if (result.done) return;
      yield result.value;
    }
  } finally {
    await events.return(undefined);
  }
}

function failure(error: unknown, provider: string, signal: AbortSignal): Error {
  if (signal.aborted) return abortError(signal);
  if (isAbortError(error) || ProviderError.isInstance(error)) return error as Error;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  const detail = cause instanceof Error && cause.message && cause.message !== message ? ` (${cause.message})` : "";
  return new ProviderError(`Network error: ${message}${detail}`, { provider, retryable: true, cause: error });
}
