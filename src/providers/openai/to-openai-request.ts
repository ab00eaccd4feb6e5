import type { Message, UserPart } from "../../contracts/message.js";
import type { ModelRequest } from "../../contracts/provider.js";
import { toolResultText } from "../tool-result-text.js";

/** Which request field carries the output-token limit. */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/**
 * The Chat Completions request body for a model request.
 *
 * - `system` becomes the first `system` message (omitted when empty).
 * - User text stays a string; parts with images become a content array with `image_url` data URLs.
 * - Assistant text parts are joined; `tool_call` parts become `tool_calls` with the arguments as a
 *   JSON string (a string `args`, i.e. invalid JSON the model sent earlier, is sent back as is).
 *   Thinking parts are not sent: Chat Completions has no field for them.
 * - Each tool result is its own `tool` message, in order; non-string results are JSON-encoded.
 * - `providerOptions` are merged into the body last (vendor knobs such as `parallel_tool_calls`,
 *   `reasoning_effort`, `tool_choice`), so they can override anything here but `stream`.
 */
export function toOpenAIRequest(init: { request: ModelRequest; maxTokensField: MaxTokensField; includeUsage: boolean }) {
  const { request } = init;
  const messages: Record<string, unknown>[] = [];
  if (request.system !== "") messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(...toMessages(message));
  const body: Record<string, unknown> = { model: request.model, messages, stream: true };
  if (init.includeUsage) body.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
  }
  if (request.maxOutputTokens !== undefined) body[init.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return { ...body, ...request.providerOptions, stream: true };
}

function toMessages(message: Message): Record<string, unknown>[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: userContent(message.content) }];
    case "assistant": {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      const calls = message.content.flatMap((part) =>
        part.type === "tool_call" ? [{ id: part.id, type: "function", function: { name: part.name, arguments: argumentsText(part.args) } }] : [],
      );
      const out: Record<string, unknown> = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
      if (calls.length > 0) out.tool_calls = calls;
      return [out];
    }
    case "tool":
      return message.content.map((part) => ({ role: "tool", tool_call_id: part.toolCallId, content: toolResultText(part) }));
  }
}

function userContent(content: string | UserPart[]): string | Record<string, unknown>[] {
  if (typeof content === "string") return content;
  if (content.every((part) => part.type === "text")) return content.map((part) => part.text).join("\n");
  return content.map((part) =>
    part.type === "text" ? { type: "text", text: part.text } : { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } },
  );
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {});
}
