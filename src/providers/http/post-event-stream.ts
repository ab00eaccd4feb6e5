import { ProviderError } from "../../errors/errors.js";
import { abortError, isAbortError } from "../../internal/abort.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { parseSseBatches } from "../sse/parse-sse-stream.js";
import { createIdleTimer } from "./create-idle-timer.js";
import { providerErrorFromPayload } from "./provider-error-from-payload.js";
import { providerErrorFromResponse } from "./provider-error-from-response.js";
import { readBodyCapped } from "./read-body-capped.js";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  type StreamLimitOptions,
} from "./stream-limit-options.js";

/**
 * POSTs a JSON body and yields the server-sent events of the answer, in batches (the events each
 * network chunk completed). Every failure is a
 * `ProviderError`: an HTTP error status (with the body's message), a JSON body where a stream was
 * expected, a network failure before or during the body (retryable), no byte for `idleTimeoutMs`
 * while waiting for the server (retryable; the request is cancelled), an event over
 * `maxEventBytes` or a body over `maxResponseBytes` (not retryable). Abort throws `AbortError`.
 */
export async function* postEventStream(
  init: StreamLimitOptions & {
    provider: string;
    fetch: typeof fetch;
    url: string;
    headers: Record<string, string>;
    body: unknown;
    signal: AbortSignal;
  },
): AsyncGenerator<SseEvent[]> {
  const { provider, signal } = init;
  if (signal.aborted) throw abortError(signal);
  const timeoutMs = init.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  // Our own controller: the caller's signal and the idle timer both cancel the request through it.
  const controller = new AbortController();
  const idle = createIdleTimer({
    timeoutMs,
    onTimeout: () =>
      controller.abort(
        new ProviderError(`No data from the server for ${timeoutMs} ms (idleTimeoutMs): the request was cancelled`, {
          provider,
          retryable: true,
          errorType: "idle_timeout",
        }),
      ),
  });
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const fail = (error: unknown): Error => {
    if (signal.aborted) return abortError(signal);
    if (idle.fired) return controller.signal.reason as ProviderError;
    return failure(error, provider);
  };
  try {
    idle.arm();
    let response: Response;
    try {
      // Called unbound: workerd (Cloudflare Workers) rejects a `fetch` whose `this` is another object.
      const send = init.fetch;
      response = await send(init.url, {
        method: "POST",
        headers: init.headers,
        body: JSON.stringify(init.body),
        signal: controller.signal,
      });
    } catch (error) {
      throw fail(error);
    }
    if (!response.ok) {
      const error = await providerErrorFromResponse({ provider, response });
      throw signal.aborted || idle.fired ? fail(error) : error;
    }
    const contentType = response.headers.get("content-type") ?? "";
    if (contentType.includes("application/json")) {
      // Some proxies answer a streaming request with one JSON document (usually an error).
      const text = await readBodyCapped(response);
      if (signal.aborted || idle.fired) throw fail(undefined);
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        payload = undefined;
      }
      if (typeof payload === "object" && payload !== null && "error" in payload) {
        throw providerErrorFromPayload({ provider, payload });
      }
      throw new ProviderError(`Expected an event stream but got a JSON response: ${text.slice(0, 200)}`, {
        provider,
        retryable: false,
      });
    }
    idle.disarm();
    if (!response.body) throw new ProviderError("The response has no body", { provider, retryable: true });
    const events = parseSseBatches(response.body, controller.signal, {
      provider,
      idle,
      maxResponseBytes: init.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      ...(init.maxEventBytes === undefined ? {} : { maxEventBytes: init.maxEventBytes }),
    });
    try {
      for (;;) {
        let result: IteratorResult<SseEvent[]>;
        try {
          result = await events.next();
        } catch (error) {
          throw fail(error);
        }
        if (result.done) return;
        yield result.value;
      }
    } finally {
      await events.return(undefined);
    }
  } finally {
    idle.disarm();
    signal.removeEventListener("abort", onAbort);
  }
}

function failure(error: unknown, provider: string): Error {
  if (isAbortError(error) || ProviderError.isInstance(error)) return error as Error;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? (error as Error & { cause?: unknown }).cause : undefined;
  const detail = cause instanceof Error && cause.message && cause.message !== message ? ` (${cause.message})` : "";
  return new ProviderError(`Network error: ${message}${detail}`, { provider, retryable: true, cause: error });
}
