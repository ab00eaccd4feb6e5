import { InvalidArgumentError } from "../../errors/errors.js";
import type { Provider } from "../../contracts/provider.js";
import { readEnv } from "../read-env.js";
import type { MaxTokensField } from "./to-openai-request.js";
import { openai, type OpenAIOptions } from "./openai.js";

/** Options of the vendor presets: those of {@link openai}, Chat Completions only. */
export type OpenAIPresetOptions = Omit<OpenAIOptions, "api">;

/** What a preset fixes: where the vendor lives, where its key is, and the request quirks it needs. */
interface VendorPreset {
  id: string;
  baseURL: string;
  keyVariable: string;
  maxTokensField: MaxTokensField;
  includeUsage: boolean;
  sendReasoningContent: boolean;
}

const DEEPSEEK: VendorPreset = {
  id: "deepseek",
  baseURL: "https://api.deepseek.com",
  keyVariable: "DEEPSEEK_API_KEY",
  maxTokensField: "max_tokens",
  includeUsage: true,
  // Thinking mode answers 400 when a tool-calling turn's reasoning_content is not sent back.
  sendReasoningContent: true,
};
const MOONSHOT: VendorPreset = {
  id: "moonshot",
  baseURL: "https://api.moonshot.ai/v1",
  keyVariable: "MOONSHOT_API_KEY",
  maxTokensField: "max_tokens",
  includeUsage: true,
  // Kimi's thinking models keep their reasoning across tool calls only when it is sent back.
  sendReasoningContent: true,
};
const ZHIPU: VendorPreset = {
  id: "zhipu",
  baseURL: "https://open.bigmodel.cn/api/paas/v4",
  keyVariable: "ZHIPUAI_API_KEY",
  maxTokensField: "max_tokens",
  // GLM has no stream_options; it sends usage on the last chunk by itself.
  includeUsage: false,
  sendReasoningContent: false,
};
const MINIMAX: VendorPreset = {
  id: "minimax",
  baseURL: "https://api.minimax.io/v1",
  keyVariable: "MINIMAX_API_KEY",
  // MiniMax marks max_tokens as deprecated.
  maxTokensField: "max_completion_tokens",
  includeUsage: true,
  sendReasoningContent: false,
};

/**
 * `openai()` with a vendor's settings. The key comes from `options.apiKey`, else the vendor's own
 * variable, never `OPENAI_API_KEY` (an OpenAI key is not sent to another vendor); `OPENAI_BASE_URL`
 * is not read either. Throws an `InvalidArgumentError` when there is no key, before any request.
 */
function fromPreset(preset: VendorPreset, options: OpenAIPresetOptions): Provider {
  const apiKey = options.apiKey ?? readEnv(preset.keyVariable);
  if (apiKey === undefined || apiKey === "") {
    throw new InvalidArgumentError(`${preset.id}(): no API key: pass { apiKey } or set ${preset.keyVariable}`);
  }
  return openai({
    id: preset.id,
    maxTokensField: preset.maxTokensField,
    includeUsage: preset.includeUsage,
    sendReasoningContent: preset.sendReasoningContent,
    ...options,
    apiKey,
    baseURL: options.baseURL ?? preset.baseURL,
    api: "chat",
  });
}

/**
 * DeepSeek (`deepseek-chat`, `deepseek-reasoner`) over its OpenAI-compatible Chat Completions API.
 * Reasoning streams as `reasoning_content` and arrives as thinking, and goes back as
 * `reasoning_content` (thinking mode answers 400 when a tool-calling turn's reasoning is missing);
 * `max_tokens` carries `maxOutputTokens`; cached input is reported from
 * `prompt_tokens_details.cached_tokens`.
 *
 * @param options - `apiKey` (default `process.env.DEEPSEEK_API_KEY`), `baseURL`
 *   (default `"https://api.deepseek.com"`), `id` (default `"deepseek"`) and every other
 *   {@link OpenAIOptions} field.
 * @example
 * import { deepseek } from "@agentry/core/openai";
 * const provider = deepseek(); // DEEPSEEK_API_KEY from the environment; model "deepseek-chat"
 */
export function deepseek(options: OpenAIPresetOptions = {}): Provider {
  return fromPreset(DEEPSEEK, options);
}

/**
 * Moonshot AI's Kimi models (`kimi-k2.5`, `kimi-k2-thinking`, ...) over its OpenAI-compatible
 * API. Thinking models stream `reasoning_content`, which arrives as thinking and is sent back
 * on the assistant messages (`sendReasoningContent`), so reasoning carries across tool calls.
 *
 * @param options - `apiKey` (default `process.env.MOONSHOT_API_KEY`), `baseURL`
 *   (default `"https://api.moonshot.ai/v1"`; mainland China: `"https://api.moonshot.cn/v1"`),
 *   `id` (default `"moonshot"`) and every other {@link OpenAIOptions} field.
 * @example
 * import { moonshot } from "@agentry/core/openai";
 * const provider = moonshot(); // MOONSHOT_API_KEY from the environment
 */
export function moonshot(options: OpenAIPresetOptions = {}): Provider {
  return fromPreset(MOONSHOT, options);
}

/**
 * Zhipu AI's GLM models (`glm-5`, `glm-4.7`, ...) over the BigModel OpenAI-compatible API. No
 * `stream_options` is sent (GLM reports usage on its last chunk anyway); GLM's empty-string
 * names and ids in tool-call deltas and its `reasoning_content` are read as the adapter always does.
 *
 * @param options - `apiKey` (default `process.env.ZHIPUAI_API_KEY`), `baseURL`
 *   (default `"https://open.bigmodel.cn/api/paas/v4"`; Z.ai outside China:
 *   `"https://api.z.ai/api/paas/v4"`), `id` (default `"zhipu"`) and every other
 *   {@link OpenAIOptions} field.
 * @example
 * import { zhipu } from "@agentry/core/openai";
 * const provider = zhipu(); // ZHIPUAI_API_KEY from the environment
 */
export function zhipu(options: OpenAIPresetOptions = {}): Provider {
  return fromPreset(ZHIPU, options);
}

/**
 * MiniMax's M-series models (`MiniMax-M2.5`, ...) over its OpenAI-compatible API, with
 * `max_completion_tokens` for `maxOutputTokens`. The M2 models write their reasoning inline in
 * the text, inside `<think>` tags: it arrives as text, not as thinking.
 *
 * @param options - `apiKey` (default `process.env.MINIMAX_API_KEY`), `baseURL`
 *   (default `"https://api.minimax.io/v1"`; mainland China: `"https://api.minimaxi.com/v1"`),
 *   `id` (default `"minimax"`) and every other {@link OpenAIOptions} field.
 * @example
 * import { minimax } from "@agentry/core/openai";
 * const provider = minimax(); // MINIMAX_API_KEY from the environment
 */
export function minimax(options: OpenAIPresetOptions = {}): Provider {
  return fromPreset(MINIMAX, options);
}
