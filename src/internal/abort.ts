import { timerDelay } from "./timer-delay.js";

/** An error named `AbortError` for an aborted signal (its reason when that already is one). */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  const error = new Error(reason instanceof Error ? reason.message : "The operation was aborted");
  error.name = "AbortError";
  if (reason !== undefined) (error as Error & { cause?: unknown }).cause = reason;
  return error;
}

/** True for errors produced by aborting (any realm: checks the name). */
export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

/**
 * Resolves after `ms`, or rejects with an `AbortError` as soon as `signal` aborts. A delay no
 * timer can wait (`Infinity`, above 2^31-1 ms) waits for the abort alone, never "fires at once".
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const delay = timerDelay(ms);
    const timer =
      delay === undefined
        ? undefined
        : setTimeout(() => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          }, delay);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
