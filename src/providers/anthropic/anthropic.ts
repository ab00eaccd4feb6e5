import { createSseProvider } from "../http/create-sse-provider.js";
import type { StreamLimitOptions } from "../http/stream-limit-options.js";
import type { RetryOptions } from "../http/stream-with-retry.js";
import type { Provider } from "../../contracts/provider.js";
import { readEnv } from "../read-env.js";
import { createAnthropicStreamReader } from "./create-anthropic-stream-reader.js";
import { anthropicRequestWarnings, toAnthropicRequest } from "./to-anthropic-request.js";

/** Options of {@link anthropic}. */
export interface AnthropicOptions extends RetryOptions, StreamLimitOptions {
  /** Sent as `x-api-key`. @default process.env.ANTHROPIC_API_KEY (read only where `globalThis.process` exists) */
  apiKey?: string;
  /**
   * Requests go to `{baseURL}/v1/messages`. @default process.env.ANTHROPIC_BASE_URL, else "https://api.anthropic.com"
   */
  baseURL?: string;
  /** Extra headers on every request (e.g. `anthropic-beta`). @default {} */
  headers?: Record<string, string>;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The provider's id, in errors and events. @default "anthropic" */
  id?: string;
  /** The `anthropic-version` header. @default "2023-06-01" */
  version?: string;
  /** `max_tokens` when the request sets no `maxOutputTokens` (the API requires one). @default 4096 */
  defaultMaxTokens?: number;
}

/**
 * A provider for the Anthropic Messages API (and Anthropic-compatible proxies), over `fetch` and
 * server-sent events: text, tool use, extended thinking (signatures kept and sent back), redacted
 * thinking, prompt-cache usage. Retries 408/409/429/5xx/529, network errors and a mid-stream
 * `overloaded_error` while nothing has been streamed yet; never after output.
 *
 * @example
 * import { anthropic } from "@agentry/core/anthropic";
 * const provider = anthropic(); // ANTHROPIC_API_KEY from the environment
 */
export function anthropic(options: AnthropicOptions = {}): Provider {
  const id = options.id ?? "anthropic";
  const apiKey = options.apiKey ?? readEnv("ANTHROPIC_API_KEY");
  const baseURL = (options.baseURL ?? readEnv("ANTHROPIC_BASE_URL") ?? "https://api.anthropic.com").replace(/\/+$/, "");
  const url = `${baseURL}/v1/messages`;
  const defaultMaxTokens = options.defaultMaxTokens ?? 4096;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    "anthropic-version": options.version ?? "2023-06-01",
    ...(apiKey ? { "x-api-key": apiKey } : {}),
    ...options.headers,
  };

  return createSseProvider({
    ...options,
    id,
    url,
    headers,
    body: (request) => toAnthropicRequest({ request, defaultMaxTokens, provider: id }),
    warnings: anthropicRequestWarnings,
    reader: (output) => createAnthropicStreamReader({ provider: id, output }),
  });
}
