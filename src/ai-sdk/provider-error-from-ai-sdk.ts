import { ProviderError } from "../errors/errors.js";
import { parseRetryAfter } from "../providers/http/parse-retry-after.js";
import { providerErrorFromPayload } from "../providers/http/provider-error-from-payload.js";

const API_CALL_ERROR = Symbol.for("vercel.ai.error.AI_APICallError");

/**
 * The fields of the AI SDK's `APICallError` read here (checked by name and marker, not by class: any copy of
 * `@ai-sdk/provider` works).
 */
interface ApiCallErrorLike {
  message: string;
  statusCode?: number;
  isRetryable?: boolean;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  data?: unknown;
}

function isApiCallError(error: unknown): error is ApiCallErrorLike {
  if (typeof error !== "object" || error === null) return false;
  return (error as { name?: unknown }).name === "AI_APICallError" || API_CALL_ERROR in error;
}

/**
 * A `ProviderError` for anything an AI SDK model throws or streams as an `error` part.
 *
 * - `APICallError` (an HTTP failure or a network error): `status` from `statusCode`; the error
 *   payload (the parsed `responseBody`, else `data`) read by the same rules as `openai()` and
 *   `anthropic()` (message, `errorType`, permanent errors such as `insufficient_quota`);
 *   `retryAfterMs` from the `retry-after-ms` / `retry-after` response headers; retryable by the
 *   shared status rules, the `x-should-retry` header, or, with no status (a network error), the
 *   SDK's own `isRetryable`.
 * - An error payload object inside the stream (`{ type, message }`, as the OpenAI and Anthropic
 *   models pass on): read like an in-stream error of the native adapters (overloaded → retryable).
 * - Any other value: a non-retryable `ProviderError` with its message, the value as `cause`.
 */
export function providerErrorFromAiSdk(error: unknown, provider: string): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  if (isApiCallError(error)) {
    const headers = new Headers();
    for (const [name, value] of Object.entries(error.responseHeaders ?? {}))
      if (typeof value === "string") headers.set(name, value);
    const retryAfterMs = parseRetryAfter(headers);
    const shouldRetry = headers.get("x-should-retry");
    const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
    // The raw body first: `data` went through the provider's schema, which drops fields we read (OpenRouter's
    // `metadata.raw`).
    let payload: unknown;
    if (typeof error.responseBody === "string") {
      try {
        payload = JSON.parse(error.responseBody);
      } catch {
        payload = undefined;
      }
    }
    payload ??= error.data;
    const mapped = providerErrorFromPayload({
      provider,
      payload,
      ...(status !== undefined && { status }),
      ...(retryAfterMs !== undefined && { retryAfterMs }),
      ...(shouldRetry === "true" ? { shouldRetry: true } : shouldRetry === "false" ? { shouldRetry: false } : {}),
      fallbackMessage: error.message,
    });
    if (status !== undefined || mapped.retryable || shouldRetry !== null) return withCause(mapped, error);
    return new ProviderError(mapped.message, {
      provider,
      retryable: error.isRetryable === true,
      ...(mapped.errorType !== undefined && { errorType: mapped.errorType }),
      cause: error,
    });
  }
  if (error instanceof Error) return new ProviderError(error.message, { provider, retryable: false, cause: error });
  if (typeof error === "object" && error !== null) {
    const payload = "error" in error ? error : { error };
    return withCause(providerErrorFromPayload({ provider, payload }), error);
  }
  return new ProviderError(typeof error === "string" && error !== "" ? error : "Unknown provider error", {
    provider,
    retryable: false,
    cause: error,
  });
}

function withCause(error: ProviderError, cause: unknown): ProviderError {
  return new ProviderError(error.message, {
    provider: error.provider,
    retryable: error.retryable,
    ...(error.status !== undefined && { status: error.status }),
    ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
    ...(error.errorType !== undefined && { errorType: error.errorType }),
    cause,
  });
}
