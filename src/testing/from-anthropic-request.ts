import type { AssistantPart, Message, ToolResultPart, UserPart } from "../contracts/message.js";
import { hasExactly, withBodyOptions } from "./wire-request-parts.js";
import type { ModelRequest, ToolChoice } from "../contracts/provider.js";
import { toolResultValue } from "./tool-result-value.js";

const KNOWN = new Set(["model", "messages", "system", "tools", "stream", "max_tokens", "temperature"]);

/**
 * An Anthropic Messages request body mapped back to a `ModelRequest` (for fake servers and function
 * scripts). `tool_result` blocks become a tool message (before any text of the same user turn);
 * `redacted_thinking` becomes a redacted thinking part whose `signature` is the opaque data; a
 * `tool_choice` comes back as `toolChoice` (`any` as `"required"`; tool names as on the wire). Tool
 * results come back as values (text that is JSON is parsed back). Tool names stay as on the wire;
 * the fake server restores the ones the adapter mapped.
 */
export function fromAnthropicRequest(body: any): ModelRequest {
  const messages: Message[] = [];
  const names = new Map<string, string>();
  for (const message of (body?.messages ?? []) as any[]) {
    const blocks: any[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content ?? []);
    if (message.role === "assistant") {
      const content = blocks.flatMap((block): AssistantPart[] => {
        if (block.type === "text") return [{ type: "text", text: block.text }];
        if (block.type === "thinking") return [{ type: "thinking", text: block.thinking, signature: block.signature }];
        if (block.type === "redacted_thinking")
          return [{ type: "thinking", text: "", signature: block.data, redacted: true }];
        if (block.type === "tool_use") {
          names.set(block.id, block.name);
          return [{ type: "tool_call", id: block.id, name: block.name, args: block.input }];
        }
        return [];
      });
      messages.push({ role: "assistant", content });
      continue;
    }
    const results: ToolResultPart[] = blocks
      .filter((block) => block.type === "tool_result")
      .map((block) => ({
        type: "tool_result",
        toolCallId: block.tool_use_id,
        name: names.get(block.tool_use_id) ?? "",
        result: toolResultValue(typeof block.content === "string" ? block.content : textOf(block.content)),
        ...(block.is_error ? { isError: true } : {}),
      }));
    if (results.length > 0) messages.push({ role: "tool", content: results });
    const parts = blocks.flatMap((block): UserPart[] => {
      if (block.type === "text") return [{ type: "text", text: block.text }];
      if (block.type === "image")
        return [{ type: "image", mediaType: block.source?.media_type ?? "", data: block.source?.data ?? "" }];
      if (block.type === "document") {
        const source =
          block.source?.type === "url"
            ? { type: "url" as const, url: String(block.source.url ?? "") }
            : { type: "data" as const, data: String(block.source?.data ?? "") };
        const title = typeof block.title === "string" ? { filename: block.title } : {};
        return [{ type: "file", mediaType: String(block.source?.media_type ?? "application/pdf"), source, ...title }];
      }
      return [];
    });
    if (parts.length > 0) {
      messages.push({
        role: "user",
        content: parts.every((part) => part.type === "text") ? parts.map((part) => part.text).join("") : parts,
      });
    }
  }
  const request: ModelRequest = {
    model: String(body?.model ?? ""),
    system: typeof body?.system === "string" ? body.system : textOf(body?.system),
    messages,
    tools: ((body?.tools ?? []) as any[]).map((tool) => ({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.input_schema ?? {},
    })),
  };
  return withBodyOptions(request, body, KNOWN, body?.max_tokens, anthropicToolChoice);
}

/** An Anthropic `tool_choice` in a form the adapter sends, as a tool choice. */
function anthropicToolChoice(wire: unknown): ToolChoice | undefined {
  if (hasExactly(wire, ["type", "name"])) {
    return wire.type === "tool" && typeof wire.name === "string" ? { name: wire.name } : undefined;
  }
  if (!hasExactly(wire, ["type"])) return undefined;
  return wire.type === "auto" ? "auto" : wire.type === "any" ? "required" : wire.type === "none" ? "none" : undefined;
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content.map((block: any) => (typeof block?.text === "string" ? block.text : "")).join("");
}
