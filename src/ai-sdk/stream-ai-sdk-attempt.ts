import { ProviderError } from "../errors/errors.js";
import { abortError, isAbortError } from "../internal/abort.js";
import { createIdleTimer } from "../providers/http/create-idle-timer.js";
import { createOutputLimit } from "../providers/output-limit.js";
import { randomCallId } from "../providers/random-call-id.js";
import type { ModelEvent, ModelRequest } from "../contracts/provider.js";
import type { AiSdkCallOptions, AiSdkSpecificationVersion, AiSdkStreamPart } from "./ai-sdk-types.js";
import { createAiSdkStreamReader } from "./create-ai-sdk-stream-reader.js";
import { providerErrorFromAiSdk } from "./provider-error-from-ai-sdk.js";
import { toAiSdkCallOptions, type AiSdkTarget } from "./to-ai-sdk-call-options.js";

/** What one attempt needs (fixed per `fromAiSdk` provider). */
export interface AiSdkAttemptInit {
  provider: string;
  version: AiSdkSpecificationVersion;
  target: AiSdkTarget;
  doStream: (callOptions: AiSdkCallOptions) => PromiseLike<{ stream: ReadableStream<unknown> }>;
  headers: Record<string, string> | undefined;
  idleTimeoutMs: number;
  maxResponseChars: number;
}

/**
 * One `doStream` call, read to its `finish` part: the parts as model events (see
 * `createAiSdkStreamReader`). The model's stream is not read past `finish` (it is cancelled), and
 * not after the consumer stops, an error part or a failure.
 *
 * Every wait for the model (the `doStream` call, then each read) may last `idleTimeoutMs`; then the
 * call is aborted (the model's `abortSignal` fires) and the attempt fails with a retryable
 * `ProviderError` (`errorType: "idle_timeout"`). Abort of `signal` rejects with an `AbortError`,
 * also when the model ignores its `abortSignal`.
 */
export async function* streamAiSdkAttempt(
  init: AiSdkAttemptInit,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelEvent> {
  if (signal.aborted) throw abortError(signal);
  const { provider } = init;
  const parts = createAiSdkStreamReader({
    provider,
    version: init.version,
    generateId: randomCallId,
    maxResponseChars: init.maxResponseChars,
    output: createOutputLimit({ provider, maxOutputTokens: request.maxOutputTokens }),
  });
  const timeout = new AbortController();
  const idle = createIdleTimer({
    timeoutMs: init.idleTimeoutMs,
    onTimeout: () => timeout.abort(idleError(init.idleTimeoutMs, provider)),
  });
  // The model's abortSignal: the caller's abort or the idle timeout.
  const callSignal = AbortSignal.any([signal, timeout.signal]);
  const fail = (error: unknown): Error => {
    if (signal.aborted) return abortError(signal);
    if (idle.fired) return timeout.signal.reason as ProviderError;
    if (isAbortError(error)) return error as Error;
    return providerErrorFromAiSdk(error, provider);
  };
  let stream: ReadableStream<unknown>;
  // Outside the try: content the model cannot take is the request's fault, never the model's.
  const callOptions = toAiSdkCallOptions(request, init.target, callSignal, init.headers);
  try {
    idle.arm();
    const result = await untilAborted(Promise.resolve(init.doStream(callOptions)), callSignal);
    stream = result.stream;
  } catch (error) {
    throw fail(error);
  } finally {
    idle.disarm();
  }
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(callSignal.reason).catch(() => undefined);
  callSignal.addEventListener("abort", onAbort, { once: true });
  let drained = false;
  try {
    while (!parts.finished) {
      let next: ReadableStreamReadResult<unknown>;
      idle.arm();
      try {
        next = await reader.read();
      } catch (error) {
        throw fail(error);
      } finally {
        idle.disarm();
      }
      if (callSignal.aborted) throw fail(undefined);
      if (next.done) {
        drained = true;
        break;
      }
      const part = next.value;
      if (typeof part !== "object" || part === null || typeof (part as { type?: unknown }).type !== "string") continue;
      for (const event of parts.push(part as AiSdkStreamPart)) yield event;
    }
  } finally {
    callSignal.removeEventListener("abort", onAbort);
    // Stop the model's work when we leave before its end (finish came, an error part, the consumer stopped reading).
    if (!drained) void reader.cancel().catch(() => undefined);
  }
  for (const event of parts.end()) yield event;
}

function idleError(timeoutMs: number, provider: string): ProviderError {
  return new ProviderError(`No part from the model for ${timeoutMs} ms (idleTimeoutMs): the call was cancelled`, {
    provider,
    retryable: true,
    errorType: "idle_timeout",
  });
}

/** `promise`, or a rejection with an `AbortError` as soon as `signal` aborts (for models that ignore `abortSignal`). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
