import { createSseProvider } from "../http/create-sse-provider.js";
import type { StreamLimitOptions } from "../http/stream-limit-options.js";
import type { RetryOptions } from "../http/stream-with-retry.js";
import type { Provider } from "../../contracts/provider.js";
import { randomCallId } from "../random-call-id.js";
import { readEnv } from "../read-env.js";
import { createOpenAIStreamReader } from "./create-openai-stream-reader.js";
import { createResponsesStreamReader } from "./create-responses-stream-reader.js";
import { toOpenAIRequest, type MaxTokensField } from "./to-openai-request.js";
import { toResponsesRequest } from "./to-responses-request.js";

/** The official endpoint. */
const OPENAI_BASE_URL = "https://api.openai.com/v1";

/** Options of {@link openai}. */
export interface OpenAIOptions extends RetryOptions, StreamLimitOptions {
  /**
   * Which OpenAI API to speak. `"chat"`: Chat Completions (`{baseURL}/chat/completions`), what
   * every compatible server has. `"responses"`: the Responses API (`{baseURL}/responses`), which
   * OpenAI's reasoning models need to keep their reasoning across tool calls: sent stateless
   * (`store: false`) with `include: ["reasoning.encrypted_content"]`; each reasoning item is kept
   * on a thinking part (`providerMetadata.openaiResponses.item`, stored with the session) and sent
   * back unchanged on the next calls of the same tool-calling sequence (after the last user message;
   * OpenAI discards older turns' reasoning). Bounded against a hostile endpoint: an item over 256 KiB
   * of JSON is kept without its payload and never sent, and at most 2 MiB of items are kept per
   * response and sent per request (the newest). Structured output: `providerOptions.text.format` (or a
   * Chat-style `response_format`, moved there). `maxTokensField` and `includeUsage` do not apply.
   * @default "chat"
   */
  api?: "chat" | "responses";
  /**
   * Sent as `Authorization: Bearer <apiKey>`; no header when there is none (local servers).
   * @default process.env.OPENAI_API_KEY (read only where `globalThis.process` exists)
   */
  apiKey?: string;
  /**
   * Where the API lives; requests go to `{baseURL}/chat/completions` (`{baseURL}/responses` with
   * `api: "responses"`). Point it at any
   * OpenAI-compatible server: vLLM `http://localhost:8000/v1`, Ollama `http://localhost:11434/v1`,
   * LM Studio `http://localhost:1234/v1`, llama.cpp `http://localhost:8080/v1`, Groq
   * `https://api.groq.com/openai/v1`, OpenRouter `https://openrouter.ai/api/v1`, DeepSeek
   * `https://api.deepseek.com`.
   * @default process.env.OPENAI_BASE_URL, else "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** Extra headers on every request (e.g. OpenRouter's `HTTP-Referer`). @default {} */
  headers?: Record<string, string>;
  /** The fetch to use (a proxy agent, a test double). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The provider's id, in errors and events. @default "openai" */
  id?: string;
  /**
   * The field for `maxOutputTokens`. OpenAI's reasoning models reject `max_tokens`; several
   * compatible servers only know `max_tokens`.
   * @default "max_completion_tokens" for api.openai.com, "max_tokens" for any other baseURL
   */
  maxTokensField?: MaxTokensField;
  /** Send `stream_options.include_usage` (without it the stream carries no usage at all). @default true */
  includeUsage?: boolean;
  /**
   * Send each assistant message's thinking back as `reasoning_content` (Chat Completions only).
   * DeepSeek's thinking mode answers 400 when the reasoning of a turn with tool calls is not sent
   * back; Kimi's thinking models need it to keep reasoning across tool calls. Other servers may
   * reject the field.
   * @default false (true in the `deepseek()` and `moonshot()` presets)
   */
  sendReasoningContent?: boolean;
}

/**
 * A provider for OpenAI Chat Completions and every OpenAI-compatible server, over `fetch` and
 * server-sent events. Retries 408/409/429/5xx and network errors before any output (exponential
 * backoff with jitter, `retry-after` honoured), never after output was streamed.
 *
 * @example
 * import { openai } from "@agentry/core/openai";
 * const provider = openai(); // OPENAI_API_KEY from the environment
 * const local = openai({ baseURL: "http://localhost:11434/v1", id: "ollama" });
 * const reasoning = openai({ api: "responses" }); // reasoning kept across tool calls
 */
export function openai(options: OpenAIOptions = {}): Provider {
  const id = options.id ?? "openai";
  const apiKey = options.apiKey ?? readEnv("OPENAI_API_KEY");
  const baseURL = (options.baseURL ?? readEnv("OPENAI_BASE_URL") ?? OPENAI_BASE_URL).replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    ...options.headers,
  };
  if (options.api === "responses") {
    return createSseProvider({
      ...options,
      id,
      url: `${baseURL}/responses`,
      headers,
      body: (request) => toResponsesRequest(request, id),
      reader: (output) => createResponsesStreamReader({ provider: id, generateId: randomCallId, output }),
    });
  }
  const maxTokensField =
    options.maxTokensField ?? (baseURL === OPENAI_BASE_URL ? "max_completion_tokens" : "max_tokens");
  const includeUsage = options.includeUsage ?? true;
  return createSseProvider({
    ...options,
    id,
    url: `${baseURL}/chat/completions`,
    headers,
    body: (request) =>
      toOpenAIRequest({
        request,
        maxTokensField,
        includeUsage,
        provider: id,
        sendReasoningContent: options.sendReasoningContent ?? false,
      }),
    reader: (output) => createOpenAIStreamReader({ provider: id, generateId: randomCallId, output }),
  });
}
