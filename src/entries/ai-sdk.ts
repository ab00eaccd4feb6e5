/**
 * `@agentry/core/ai-sdk`: any AI SDK language model (specification V2, V3 or V4, from
 * `@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/openai-compatible`, ...) as an
 * Agentry `Provider`. `@ai-sdk/provider` is an optional peer, for types only: nothing of the AI
 * SDK is imported at run time.
 *
 * @example
 * import { anthropic } from "@ai-sdk/anthropic";
 * import { fromAiSdk } from "@agentry/core/ai-sdk";
 * const provider = fromAiSdk(anthropic("claude-sonnet-4-5"));
 *
 * @module \@agentry/core/ai-sdk
 */

export { fromAiSdk } from "../ai-sdk/from-ai-sdk.js";
export type { FromAiSdkOptions } from "../ai-sdk/from-ai-sdk.js";
export type { AiSdkLanguageModel, AiSdkSpecificationVersion } from "../ai-sdk/ai-sdk-types.js";
export type { RetryInfo, RetryOptions } from "../providers/http/stream-with-retry.js";
export { ProviderError } from "../errors/errors.js";
export type { FinishReason, ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
