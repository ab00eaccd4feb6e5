import { InvalidArgumentError } from "../errors/errors.js";
import { abortError, isAbortError } from "../internal/abort.js";
import { streamWithRetry, type RetryOptions } from "../providers/http/stream-with-retry.js";
import type { ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
import { randomCallId } from "../providers/random-call-id.js";
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkSpecificationVersion, AiSdkStreamPart } from "./ai-sdk-types.js";
import { createAiSdkStreamReader } from "./create-ai-sdk-stream-reader.js";
import { providerErrorFromAiSdk } from "./provider-error-from-ai-sdk.js";
import { toAiSdkCallOptions, type AiSdkTarget } from "./to-ai-sdk-call-options.js";

const VERSIONS: readonly string[] = ["v2", "v3", "v4"] satisfies AiSdkSpecificationVersion[];

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions extends RetryOptions {
  /** The provider's id, in errors and events. @default the model's `provider` (e.g. `"openai.chat"`) */
  id?: string;
  /** Extra headers on every call (the model's `headers` call option). @default none */
  headers?: Record<string, string>;
}

/**
 * Any AI SDK language model (specification V2, V3 or V4; told apart at run time by its
 * `specificationVersion`) as an Agentry {@link Provider}: `@ai-sdk/openai`, `@ai-sdk/anthropic`,
 * `@ai-sdk/google`, `@ai-sdk/openai-compatible`, Bedrock, Ollama community providers, ...
 *
 * Each model call is one `model.doStream()` (the AI SDK's `streamText` is not involved): messages,
 * tools, `maxOutputTokens`, `temperature` and `providerOptions` (the AI SDK's, keyed by provider
 * name) go in; text, reasoning (with Anthropic signatures, sent back on later calls), complete
 * tool calls, usage and the finish reason come out. The signal is passed as `abortSignal`, and the
 * stream is also cancelled on abort, so a model that ignores the signal still stops promptly.
 *
 * Errors become `ProviderError`s with `status`, `retryable` and `retryAfterMs` (from the
 * `APICallError`'s status, body and headers; see `providerErrorFromAiSdk`). The AI SDK retries
 * only inside `generateText`/`streamText`, not in `doStream`, so `fromAiSdk` retries itself, like
 * `openai()`: retryable failures before any output, with backoff and `retry-after` honoured
 * (`maxRetries`, default 2; pass `maxRetries: 0` to turn it off).
 *
 * Throws `InvalidArgumentError` for something that is not a V2/V3/V4 language model (a V1 model
 * from AI SDK 4 included).
 *
 * @example
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { fromAiSdk } from "@agentry/core/ai-sdk";
 * const provider = fromAiSdk(createOpenAI({ apiKey })("gpt-4o"));
 * const runtime = createAgentRuntime({ registry, store, providers: { openai: provider }, defaultModel: "gpt-4o" });
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): Provider {
  const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
  if (typeof model !== "object" || model === null || typeof model.doStream !== "function" || typeof version !== "string" || !VERSIONS.includes(version)) {
    throw new InvalidArgumentError(
      `fromAiSdk: expected an AI SDK language model of specification v2, v3 or v4, got ${typeof version === "string" ? `specification "${version}"` : "something else"}`,
    );
  }
  const spec = version as AiSdkSpecificationVersion;
  const providerName = typeof model.provider === "string" ? model.provider : "ai-sdk";
  const id = options.id ?? providerName;
  const target: AiSdkTarget = { version: spec, metadataKey: providerName.split(".")[0] || providerName };
  const doStream = model.doStream.bind(model) as unknown as (callOptions: AiSdkCallOptions) => PromiseLike<{ stream: ReadableStream<unknown> }>;

  async function* attempt(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    const parts = createAiSdkStreamReader({ provider: id, version: spec, generateId: randomCallId });
    let stream: ReadableStream<unknown>;
    try {
      const result = await untilAborted(Promise.resolve(doStream(toAiSdkCallOptions(request, target, signal, options.headers))), signal);
      stream = result.stream;
    } catch (error) {
      throw failure(error, signal, id);
    }
    const reader = stream.getReader();
    const onAbort = () => void reader.cancel(signal.reason).catch(() => undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    let drained = false;
    try {
      for (;;) {
        let next: ReadableStreamReadResult<unknown>;
        try {
          next = await reader.read();
        } catch (error) {
          throw failure(error, signal, id);
        }
        if (signal.aborted) throw abortError(signal);
        if (next.done) break;
        const part = next.value;
        if (typeof part !== "object" || part === null || typeof (part as { type?: unknown }).type !== "string") continue;
        for (const event of parts.push(part as AiSdkStreamPart)) yield event;
      }
      drained = true;
    } finally {
      signal.removeEventListener("abort", onAbort);
      // Stop the model's work when we leave early (an error part, the consumer stopped reading).
      if (!drained) void reader.cancel().catch(() => undefined);
    }
    for (const event of parts.end()) yield event;
  }

  return {
    id,
    stream(request, { signal }) {
      return streamWithRetry({ ...options, provider: id, signal, attempt: (attemptSignal) => attempt(request, attemptSignal) });
    },
  };
}

function failure(error: unknown, signal: AbortSignal, provider: string): unknown {
  if (signal.aborted) return abortError(signal);
  if (isAbortError(error)) return error;
  return providerErrorFromAiSdk(error, provider);
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
