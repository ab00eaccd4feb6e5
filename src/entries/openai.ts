/**
 * `@agentry/core/openai`: a provider for OpenAI Chat Completions and any OpenAI-compatible server
 * (vLLM, Ollama, LM Studio, llama.cpp, Groq, OpenRouter, DeepSeek, Azure, ...), OpenAI's Responses
 * API (`api: "responses"`), and presets for DeepSeek, Moonshot Kimi, Zhipu GLM and MiniMax; built
 * on `fetch` and server-sent events only. No `node:` imports, no vendor SDK.
 *
 * @example
 * import { deepseek, openai } from "@agentry/core/openai";
 * const provider = openai({ baseURL: "http://localhost:11434/v1", id: "ollama" });
 * const responses = openai({ api: "responses" });
 * const vendor = deepseek(); // DEEPSEEK_API_KEY
 *
 * @module \@agentry/core/openai
 */

export { openai } from "../providers/openai/openai.js";
export type { OpenAIOptions } from "../providers/openai/openai.js";
export { deepseek, minimax, moonshot, zhipu } from "../providers/openai/vendor-presets.js";
export type { OpenAIPresetOptions } from "../providers/openai/vendor-presets.js";
export type { MaxTokensField } from "../providers/openai/to-openai-request.js";
export type { RetryInfo, RetryOptions } from "../providers/http/stream-with-retry.js";
export type { StreamLimitOptions } from "../providers/http/stream-limit-options.js";
export { ProviderError } from "../errors/errors.js";
export type { FinishReason, ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";
