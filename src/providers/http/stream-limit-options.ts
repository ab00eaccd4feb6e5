import { InvalidArgumentError } from "../../errors/errors.js";

/** Bounds on one streamed response, shared by the HTTP providers (`openai()`, `anthropic()`). */
export interface StreamLimitOptions {
  /**
   * The largest server-sent event accepted, in characters of its `data` (one per byte for ASCII
   * JSON). A larger event, or a line that keeps growing past it without an end, fails the stream
   * with a non-retryable `ProviderError` (`errorType: "event_too_large"`) instead of buffering
   * without bound. `Infinity` turns the check off.
   * @default 16777216 (16 MiB)
   */
  maxEventBytes?: number;
  /**
   * How long one wait for the server may last before the request is cancelled: from sending the
   * request to the response headers, and from each received chunk to the next. Time your code
   * spends between reads is not counted. A timeout fails the attempt with a retryable
   * `ProviderError` (`errorType: "idle_timeout"`), retried like a network error while nothing has
   * been streamed yet. `0`, `Infinity` or more than 2^31 - 1 ms turns it off.
   * @default 300000 (5 minutes)
   */
  idleTimeoutMs?: number;
  /**
   * The most bytes of one response body (one attempt) read. A server that keeps streaming past it
   * (deltas at full speed, never finishing) fails the call with a non-retryable `ProviderError`
   * (`errorType: "response_too_large"`) instead of growing memory until the process fails. The
   * default is about twice the SSE framing of a 128,000-token answer (OpenAI sends some 200 bytes
   * of JSON around each delta). `Infinity` turns the check off.
   *
   * Separately, when a request sets `maxOutputTokens`, a response whose text and tool-call
   * arguments pass `maxOutputTokens × 32 + 1024` characters fails the same way
   * (`errorType: "output_too_large"`): no model keeps to its limit and says that much.
   * @default 67108864 (64 MiB)
   */
  maxResponseBytes?: number;
}

/** The default `idleTimeoutMs`: 5 minutes without a byte. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** The default `maxResponseBytes` of the HTTP providers: 64 MiB of response body. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Throws an `InvalidArgumentError` naming every bad limit (before any request is made). */
export function checkStreamLimits(provider: string, options: StreamLimitOptions): void {
  const problems: string[] = [];
  const { maxEventBytes, idleTimeoutMs, maxResponseBytes } = options;
  if (maxEventBytes !== undefined && !(typeof maxEventBytes === "number" && maxEventBytes > 0)) {
    problems.push(`maxEventBytes must be a positive number or Infinity, got ${String(maxEventBytes)}`);
  }
  if (maxResponseBytes !== undefined && !(typeof maxResponseBytes === "number" && maxResponseBytes > 0)) {
    problems.push(`maxResponseBytes must be a positive number or Infinity, got ${String(maxResponseBytes)}`);
  }
  if (idleTimeoutMs !== undefined && !(typeof idleTimeoutMs === "number" && idleTimeoutMs >= 0)) {
    problems.push(`idleTimeoutMs must be 0 or more (0 or Infinity: no timeout), got ${String(idleTimeoutMs)}`);
  }
  if (problems.length > 0) throw new InvalidArgumentError(`${provider}: ${problems.join("; ")}`);
}
