import { ProviderError } from "../../errors/errors.js";
import { asRecord, recordField, stringField } from "../../internal/wire-guards.js";

/** Error types and codes that will not clear by waiting: never retried, whatever the status. */
const PERMANENT = new Set(["insufficient_quota", "enforced_spend_limit_reached", "billing_error", "tool_use_failed"]);
/** Error types that mean "try again" even without an HTTP status (errors inside a 200 stream). */
const TRANSIENT = new Set([
  "overloaded_error",
  "api_error",
  "rate_limit_error",
  "rate_limit_exceeded",
  "server_error",
  "timeout_error",
  "internal_server_error",
  "service_unavailable",
]);

/** True for HTTP statuses worth retrying: 408, 409, 429 and every 5xx (529 "overloaded" included). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * A `ProviderError` from an error payload in any of the shapes seen in the wild: OpenAI
 * `{error:{message,type,code}}`, Anthropic `{type:"error",error:{type,message}}`, OpenRouter
 * `{error:{code:429,message,metadata:{raw}}}`, Groq `{error:{...,status_code}}`, `{error:"text"}`,
 * FastAPI `{detail}` or a bare `{message}`.
 *
 * `status` is the HTTP status; for an error inside a 200 stream pass none and the payload's own
 * numeric `status_code` / `code` is used when it has one.
 */
export function providerErrorFromPayload(init: {
  provider: string;
  payload: unknown;
  status?: number;
  retryAfterMs?: number;
  /** The `x-should-retry` header, when the server sent one: it overrides the status rules. */
  shouldRetry?: boolean;
  /** Message when the payload has none (e.g. the raw body text). */
  fallbackMessage?: string;
}): ProviderError {
  const root = asRecord(init.payload) ?? {};
  const inner = recordField(root, "error") ?? {};
  const code = stringField(inner, "code");
  const type = stringField(inner, "type");
  const details = stringField(recordField(inner, "details"), "error_code");
  const errorType = details ?? code ?? type;

  let message =
    str(inner.message) ??
    str(root.error) ??
    str(root.message) ??
    str(root.detail) ??
    init.fallbackMessage ??
    "Unknown provider error";
  const raw = str(recordField(inner, "metadata")?.raw);
  if (raw && raw !== message) message = `${message} (${raw})`;

  const payloadStatus = num(inner.status_code) ?? num(inner.code) ?? num(inner.status);
  const status = init.status ?? payloadStatus;
  let retryable: boolean;
  if ([errorType, code, type, details].some((t) => t !== undefined && PERMANENT.has(t))) retryable = false;
  else if (init.shouldRetry !== undefined) retryable = init.shouldRetry;
  else if (status !== undefined && status !== 200) retryable = isRetryableStatus(status);
  else retryable = [code, type].some((t) => t !== undefined && TRANSIENT.has(t));

  return new ProviderError(message, {
    provider: init.provider,
    ...(status === undefined ? {} : { status }),
    retryable,
    ...(init.retryAfterMs === undefined ? {} : { retryAfterMs: init.retryAfterMs }),
    ...(errorType === undefined ? {} : { errorType }),
  });
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 100 && value < 600 ? value : undefined;
}
