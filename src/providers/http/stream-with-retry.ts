import { ProviderError } from "../../errors/errors.js";
import { abortError, isAbortError, sleep } from "../../internal/abort.js";

/** Retry settings shared by the HTTP providers. */
export interface RetryOptions {
  /** Attempts after the first one. @default 2 */
  maxRetries?: number;
  /** First backoff wait; it doubles per attempt (capped at 8 s) and gets 0-25 % jitter off. @default 500 */
  retryBaseDelayMs?: number;
  /**
   * The longest wait a `retry-after` header may ask for. A longer request is not slept: the
   * call fails at once with a retryable `ProviderError` whose `retryAfterMs` says how long.
   * @default 60000
   */
  maxRetryDelayMs?: number;
  /** Called before each retry wait (logging, metrics). Must not throw. @default none */
  onRetry?: (info: RetryInfo) => void;
}

/** What `onRetry` is told. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** How long we wait before it. */
  delayMs: number;
  /** Why the previous attempt failed. */
  error: ProviderError;
}

const MAX_BACKOFF_MS = 8_000;

/**
 * Runs `attempt` and retries it on a retryable `ProviderError` (network failures are those too), but only
 * while nothing has been yielded to the consumer: once output is out, a retry would duplicate it,
 * so the error is thrown for the caller (the loop) to decide. Abort ends any wait at once.
 */
export async function* streamWithRetry<T>(
  init: RetryOptions & {
    provider: string;
    signal: AbortSignal;
    attempt: (signal: AbortSignal) => AsyncIterable<T>;
  },
): AsyncGenerator<T> {
  const { signal } = init;
  const maxRetries = Math.max(0, init.maxRetries ?? 2);
  const base = init.retryBaseDelayMs ?? 500;
  const maxWait = init.maxRetryDelayMs ?? 60_000;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortError(signal);
    let yielded = false;
    try {
      for await (const item of init.attempt(signal)) {
        yielded = true;
        yield item;
        if (signal.aborted) throw abortError(signal);
      }
      return;
    } catch (caught) {
      if (signal.aborted) throw abortError(signal);
      if (isAbortError(caught)) throw caught;
      const error = toProviderError(caught, init.provider);
      if (yielded || attempt >= maxRetries || !error.retryable) throw error;
      let delayMs: number;
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > maxWait) throw error;
        delayMs = error.retryAfterMs;
      } else {
        delayMs = Math.min(base * 2 ** attempt, MAX_BACKOFF_MS) * (1 - Math.random() * 0.25);
      }
      init.onRetry?.({ attempt: attempt + 1, delayMs, error });
      await sleep(delayMs, signal);
    }
  }
}

/** A `ProviderError` stays as it is; anything else (a bug, not the provider's fault) is wrapped, not retried. */
function toProviderError(error: unknown, provider: string): ProviderError {
  if (ProviderError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`Unexpected error while streaming: ${message}`, {
    provider,
    retryable: false,
    cause: error,
  });
}
