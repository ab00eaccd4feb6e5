import { InvalidArgumentError } from "../errors/errors.js";
import { checkStreamLimits, DEFAULT_IDLE_TIMEOUT_MS } from "../providers/http/stream-limit-options.js";
import { streamWithRetry, type RetryOptions } from "../providers/http/stream-with-retry.js";
import type { Provider } from "../contracts/provider.js";
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkSpecificationVersion } from "./ai-sdk-types.js";
import { streamAiSdkAttempt, type AiSdkAttemptInit } from "./stream-ai-sdk-attempt.js";
import type { AiSdkTarget } from "./to-ai-sdk-call-options.js";

const VERSIONS: readonly string[] = ["v2", "v3", "v4"] satisfies AiSdkSpecificationVersion[];

/** The default `maxResponseBytes` of `fromAiSdk`: 32 Mi characters of deltas. */
export const DEFAULT_AI_SDK_MAX_RESPONSE_CHARS = 32 * 1024 * 1024;

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions extends RetryOptions {
  /** The provider's id, in errors and events. @default the model's `provider` (e.g. `"openai.chat"`) */
  id?: string;
  /** Extra headers on every call (the model's `headers` call option). @default none */
  headers?: Record<string, string>;
  /**
   * How long one wait for the model may last: the `doStream` call, then each part of its stream.
   * Then the call is aborted (the model's `abortSignal` fires, its stream is cancelled) and the
   * attempt fails with a retryable `ProviderError` (`errorType: "idle_timeout"`), retried while
   * nothing has been streamed yet. `0`, `Infinity` or more than 2^31 - 1 ms turns it off.
   * @default 300000 (5 minutes)
   */
  idleTimeoutMs?: number;
  /**
   * The most characters of one response: the deltas of text, reasoning and tool input, and each
   * tool call's input, counted as they come (the bridge sees parts, not bytes). A model that
   * keeps streaming past it fails the call with a non-retryable `ProviderError`
   * (`errorType: "response_too_large"`) and its stream is cancelled. `Infinity` turns it off.
   *
   * Separately, when a request sets `maxOutputTokens`, a response whose text and tool-call inputs
   * pass `maxOutputTokens × 32 + 1024` characters fails the same way (`errorType: "output_too_large"`).
   * @default 33554432 (32 Mi characters)
   */
  maxResponseBytes?: number;
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
 * What the model sends is read as untrusted: each wait for it is bounded (`idleTimeoutMs`), the
 * response's size too (`maxResponseBytes`, and `maxOutputTokens` when set), a `finish` part ends
 * the response (the stream is not read further), and tool-call inputs are copied as plain JSON
 * (one that cannot be, such as a Proxy whose traps throw, becomes an error result for that call).
 *
 * Throws `InvalidArgumentError` for something that is not a V2/V3/V4 language model (a V1 model
 * from AI SDK 4 included), or for a bad `idleTimeoutMs` or `maxResponseBytes`.
 *
 * @example
 * import { createOpenAI } from "@ai-sdk/openai";
 * import { fromAiSdk } from "@agentry/core/ai-sdk";
 * const provider = fromAiSdk(createOpenAI({ apiKey })("gpt-4o"));
 * const runtime = createAgentRuntime({ registry, store, providers: { openai: provider }, defaultModel: "gpt-4o" });
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): Provider {
  const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
  if (
    typeof model !== "object" ||
    model === null ||
    typeof model.doStream !== "function" ||
    typeof version !== "string" ||
    !VERSIONS.includes(version)
  ) {
    throw new InvalidArgumentError(
      `fromAiSdk: expected an AI SDK language model of specification v2, v3 or v4, got ${typeof version === "string" ? `specification "${version}"` : "something else"}`,
    );
  }
  checkStreamLimits("fromAiSdk", options);
  const spec = version as AiSdkSpecificationVersion;
  const providerName = typeof model.provider === "string" ? model.provider : "ai-sdk";
  const id = options.id ?? providerName;
  const target: AiSdkTarget = { version: spec, metadataKey: providerName.split(".")[0] || providerName, provider: id };
  const doStream = model.doStream.bind(model) as unknown as (
    callOptions: AiSdkCallOptions,
  ) => PromiseLike<{ stream: ReadableStream<unknown> }>;
  const attemptInit: AiSdkAttemptInit = {
    provider: id,
    version: spec,
    target,
    doStream,
    headers: options.headers,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxResponseChars: options.maxResponseBytes ?? DEFAULT_AI_SDK_MAX_RESPONSE_CHARS,
  };

  return {
    id,
    stream(request, { signal }) {
      return streamWithRetry({
        ...options,
        provider: id,
        signal,
        attempt: (attemptSignal) => streamAiSdkAttempt(attemptInit, request, attemptSignal),
      });
    },
  };
}
