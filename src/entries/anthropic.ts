/**
 * `@agentry/core/anthropic`: a provider for the Anthropic Messages API, built on `fetch` and
 * server-sent events only. No `node:` imports, no vendor SDK.
 *
 * @example
 * import { anthropic } from "@agentry/core/anthropic";
 * const provider = anthropic({ apiKey: "sk-ant-..." });
 *
 * @module \@agentry/core/anthropic
 */

export { anthropic } from "../providers/anthropic/anthropic.js";
export type { AnthropicOptions } from "../providers/anthropic/anthropic.js";
export type { RetryInfo, RetryOptions } from "../providers/http/stream-with-retry.js";
export type { StreamLimitOptions } from "../providers/http/stream-limit-options.js";
export { ProviderError } from "../errors/errors.js";
export type { FinishReason, ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
