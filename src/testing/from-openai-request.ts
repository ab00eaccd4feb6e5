import type { AssistantPart, Message, ToolResultPart, UserPart } from "../contracts/message.js";
import { contentText, hasExactly, stringToolChoice, withBodyOptions } from "./wire-request-parts.js";
import { parseToolArgs } from "../providers/parse-tool-args.js";
import { toolResultValue } from "./tool-result-value.js";
import type { ModelRequest, ToolChoice } from "../contracts/provider.js";

const KNOWN = new Set([
  "model",
  "messages",
  "tools",
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
]);

/**
 * A Chat Completions request body mapped back to a `ModelRequest` (for fake servers and function
 * scripts). A `tool_choice` comes back as `toolChoice` (tool names as on the wire). Tool results come back as values (text that is JSON is parsed back: the adapter
 * JSON-encodes every result that is not a string); unknown body fields land in `providerOptions`.
 * Tool names stay as on the wire; the fake server restores the ones the adapter mapped. Chat
 * Completions has no field for thinking or for a result's `isError`, so neither comes back.
 */
export function fromOpenAIRequest(body: any): ModelRequest {
  const system: string[] = [];
  const messages: Message[] = [];
  const names = new Map<string, string>();
  for (const message of (body?.messages ?? []) as any[]) {
    if (message.role === "system" || message.role === "developer") system.push(contentText(message.content));
    else if (message.role === "user") messages.push({ role: "user", content: userContent(message.content) });
    else if (message.role === "assistant") {
      const content: AssistantPart[] = [];
      const text = contentText(message.content);
      if (text !== "") content.push({ type: "text", text });
      for (const call of (message.tool_calls ?? []) as any[]) {
        names.set(call.id, call.function?.name ?? "");
        content.push({
          type: "tool_call",
          id: call.id,
          name: call.function?.name ?? "",
          args: parseToolArgs(typeof call.function?.arguments === "string" ? call.function.arguments : ""),
        });
      }
      messages.push({ role: "assistant", content });
    } else if (message.role === "tool") {
      const part: ToolResultPart = {
        type: "tool_result",
        toolCallId: message.tool_call_id,
        name: names.get(message.tool_call_id) ?? "",
        result: toolResultValue(contentText(message.content)),
      };
      const previous = messages[messages.length - 1];
      if (previous?.role === "tool") previous.content.push(part);
      else messages.push({ role: "tool", content: [part] });
    }
  }
  const request: ModelRequest = {
    model: String(body?.model ?? ""),
    system: system.join("\n\n"),
    messages,
    tools: ((body?.tools ?? []) as any[]).map((tool) => ({
      name: tool.function?.name ?? "",
      description: tool.function?.description ?? "",
      inputSchema: tool.function?.parameters ?? {},
    })),
  };
  return withBodyOptions(request, body, KNOWN, body?.max_completion_tokens ?? body?.max_tokens, chatToolChoice);
}

/** A Chat Completions `tool_choice` in a form the adapter sends, as a tool choice. */
function chatToolChoice(wire: unknown): ToolChoice | undefined {
  if (!hasExactly(wire, ["type", "function"]) || wire.type !== "function") return stringToolChoice(wire);
  const { function: named } = wire;
  return hasExactly(named, ["name"]) && typeof named.name === "string" ? { name: named.name } : undefined;
}

function userContent(content: unknown): string | UserPart[] {
  if (!Array.isArray(content)) return contentText(content);
  return content.map((part: any): UserPart => {
    if (part?.type === "image_url") {
      const match = /^data:([^;]+);base64,(.*)$/.exec(String(part.image_url?.url ?? ""));
      return { type: "image", mediaType: match?.[1] ?? "application/octet-stream", data: match?.[2] ?? "" };
    }
    if (part?.type === "file") {
      const file = part.file ?? {};
      if (typeof file.file_id === "string")
        return { type: "file", mediaType: "application/pdf", source: { type: "file_id", fileId: file.file_id } };
      const match = /^data:([^;]+);base64,(.*)$/.exec(String(file.file_data ?? ""));
      return {
        type: "file",
        mediaType: match?.[1] ?? "application/octet-stream",
        source: { type: "data", data: match?.[2] ?? "" },
        ...(typeof file.filename === "string" && { filename: file.filename }),
      };
    }
    return { type: "text", text: String(part?.text ?? "") };
  });
}
