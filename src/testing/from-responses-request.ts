import type { AssistantPart, Message, ToolResultPart, UserPart } from "../contracts/message.js";
import { contentText, hasExactly, stringToolChoice, withBodyOptions } from "./wire-request-parts.js";
import type { ModelRequest, ToolChoice } from "../contracts/provider.js";
import { parseToolArgs } from "../providers/parse-tool-args.js";
import { toolResultValue } from "./tool-result-value.js";

const KNOWN = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "stream",
  "store",
  "include",
  "max_output_tokens",
  "temperature",
]);

/**
 * A Responses API request body mapped back to a `ModelRequest` (for the fake server and function
 * scripts). Consecutive assistant items (messages, reasoning, function calls) make one assistant
 * message; a reasoning item becomes a thinking part (its summary as text) that keeps the item in
 * `providerMetadata.openaiResponses.item`; `function_call_output` items become tool results as
 * values (JSON text parsed back); `input_file` and `input_image` items become file and image parts
 * (an image sent by URL or file id comes back as a file part of type `image/*`); a `tool_choice`
 * comes back as `toolChoice` (tool names as on the wire). Unknown body
 * fields land in `providerOptions`. The wire has no
 * field for a result's `isError`, so it does not come back.
 */
export function fromResponsesRequest(body: any): ModelRequest {
  const system: string[] =
    typeof body?.instructions === "string" && body.instructions !== "" ? [body.instructions] : [];
  const messages: Message[] = [];
  const names = new Map<string, string>();
  const assistant = (): AssistantPart[] => {
    const last = messages[messages.length - 1];
    if (last?.role === "assistant") return last.content;
    const content: AssistantPart[] = [];
    messages.push({ role: "assistant", content });
    return content;
  };
  for (const item of (Array.isArray(body?.input) ? body.input : []) as any[]) {
    if (item?.type === "function_call") {
      names.set(item.call_id, item.name ?? "");
      const args = parseToolArgs(typeof item.arguments === "string" ? item.arguments : "");
      assistant().push({ type: "tool_call", id: item.call_id, name: item.name ?? "", args });
    } else if (item?.type === "reasoning") {
      const text = ((item.summary ?? []) as any[]).map((part) => String(part?.text ?? "")).join("\n\n");
      assistant().push({ type: "thinking", text, providerMetadata: { openaiResponses: { item } } });
    } else if (item?.type === "function_call_output") {
      const part: ToolResultPart = {
        type: "tool_result",
        toolCallId: item.call_id,
        name: names.get(item.call_id) ?? "",
        result: toolResultValue(typeof item.output === "string" ? item.output : JSON.stringify(item.output)),
      };
      const previous = messages[messages.length - 1];
      if (previous?.role === "tool") previous.content.push(part);
      else messages.push({ role: "tool", content: [part] });
    } else if (item?.role === "system" || item?.role === "developer") system.push(contentText(item.content));
    else if (item?.role === "assistant") {
      const text = contentText(item.content);
      if (text !== "") assistant().push({ type: "text", text });
    } else if (item?.role === "user") messages.push({ role: "user", content: userContent(item.content) });
  }
  const request: ModelRequest = {
    model: String(body?.model ?? ""),
    system: system.join("\n\n"),
    messages,
    tools: ((body?.tools ?? []) as any[]).map((tool) => ({
      name: tool?.name ?? "",
      description: tool?.description ?? "",
      inputSchema: tool?.parameters ?? {},
    })),
  };
  return withBodyOptions(request, body, KNOWN, body?.max_output_tokens, responsesToolChoice);
}

/** A Responses `tool_choice` in a form the adapter sends, as a tool choice. */
function responsesToolChoice(wire: unknown): ToolChoice | undefined {
  if (!hasExactly(wire, ["type", "name"])) return stringToolChoice(wire);
  return wire.type === "function" && typeof wire.name === "string" ? { name: wire.name } : undefined;
}

function userContent(content: unknown): string | UserPart[] {
  if (!Array.isArray(content)) return contentText(content);
  return content.map((part: any): UserPart => {
    if (part?.type === "input_image") {
      if (typeof part.file_id === "string")
        return { type: "file", mediaType: "image/*", source: { type: "file_id", fileId: part.file_id } };
      const match = /^data:([^;]+);base64,(.*)$/.exec(String(part.image_url ?? ""));
      if (!match)
        return { type: "file", mediaType: "image/*", source: { type: "url", url: String(part.image_url ?? "") } };
      return { type: "image", mediaType: match[1]!, data: match[2]! };
    }
    if (part?.type === "input_file") return filePart(part);
    return { type: "text", text: String(part?.text ?? "") };
  });
}

/** An `input_file` as a file part (a PDF: the only kind the adapter sends as one). */
function filePart(part: any): UserPart {
  const named = typeof part.filename === "string" ? { filename: part.filename as string } : {};
  if (typeof part.file_id === "string")
    return { type: "file", mediaType: "application/pdf", source: { type: "file_id", fileId: part.file_id }, ...named };
  if (typeof part.file_url === "string")
    return { type: "file", mediaType: "application/pdf", source: { type: "url", url: part.file_url }, ...named };
  const match = /^data:([^;]+);base64,(.*)$/.exec(String(part.file_data ?? ""));
  return {
    type: "file",
    mediaType: match?.[1] ?? "application/pdf",
    source: { type: "data", data: match?.[2] ?? "" },
    ...named,
  };
}
