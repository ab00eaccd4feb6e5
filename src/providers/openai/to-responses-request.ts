import type {
  AssistantPart,
  FilePart,
  Message,
  ThinkingPart,
  ToolResultPart,
  UserPart,
} from "../../contracts/message.js";
import type { ModelRequest, ToolChoice } from "../../contracts/provider.js";
import { base64Of, isImageType, isPdfType } from "../../internal/file-data.js";
import { jsonChars } from "../../internal/json-chars.js";
import { mediaNote } from "../../internal/tool-result-content.js";
import { toolResultMedia, toolResultText } from "../tool-result-text.js";
import { userContent } from "./to-openai-request.js";
import { unsentAttachmentNote } from "../../internal/unsent-attachment.js";

/** The key under which a thinking part keeps its Responses reasoning item (`providerMetadata`). */
export const RESPONSES_METADATA_KEY = "openaiResponses";

/**
 * The most one reasoning item may weigh to be kept and sent back: 256 KiB, in characters of its
 * JSON (encrypted content included; string escapes are not counted, so the bytes sent are at most a
 * small multiple of it). A larger item is kept without its payload (see
 * `createResponsesStreamReader`) and never sent.
 */
export const MAX_REASONING_ITEM_CHARS = 256 * 1024;

/**
 * The most reasoning items one request sends back, and one response keeps, in characters of their
 * JSON: 2 MiB. Past it, the oldest items of the request are left out (a response's later items are
 * kept without their payload).
 */
export const MAX_REASONING_CHARS = 2 * 1024 * 1024;

/**
 * The Responses API request body for a model request (`POST /responses`, streamed, stateless).
 *
 * - `system` becomes `instructions` (omitted when empty); `store: false` and
 *   `include: ["reasoning.encrypted_content"]`, so reasoning comes back encrypted and is sent back
 *   with the history instead of being kept by OpenAI.
 * - User text stays a string; parts with images become `input_text` / `input_image` (data URL).
 *   File parts: a PDF becomes an `input_file` (`file_data` as a data URL with a `filename`, a
 *   `file_url` or a `file_id`); an image file an `input_image` (data, URL or file id). Any other
 *   media type goes as a short text note saying so, in this request only: the stored history keeps
 *   the part and never fails a later request.
 * - Assistant parts keep their order: a thinking part that holds a reasoning item
 *   (`providerMetadata.openaiResponses.item`) sends that item back unchanged, when it comes after the
 *   last user message (the current tool-calling sequence: OpenAI needs those to continue its
 *   reasoning across calls, and discards older turns' reasoning anyway), weighs at most
 *   `MAX_REASONING_ITEM_CHARS`, and the items sent stay within `MAX_REASONING_CHARS` (newest first);
 *   other thinking (another provider's, older turns', oversized) is dropped, and so is a reasoning
 *   item left last (its call was dropped: the API refuses a reasoning item without the item that
 *   follows it); text becomes an assistant message; a tool call a `function_call` item
 *   (`call_id` = the call's id, arguments as JSON text).
 * - Each tool result is a `function_call_output` item; non-string results are JSON-encoded, a
 *   `ToolResultContent` is an `output` array of `input_text` and `input_image` items (audio as a note).
 * - Tools are `function` tools with `strict: false` (the API's default, `true`, rejects most
 *   schemas a tool author writes). `toolChoice` becomes `tool_choice` (`"auto"`, `"required"`,
 *   `"none"`, or `{ type: "function", name }`), only when tools are offered.
 * - Structured output: `providerOptions.text.format` (`{ type: "json_schema", name, schema, strict }`)
 *   is sent as is; a Chat Completions `response_format` in `providerOptions` is moved there.
 * - `providerOptions` are merged into the body last (`reasoning`, `parallel_tool_calls`, `store`,
 *   `include`, ...), so they can override anything here but `stream`.
 */
export function toResponsesRequest(request: ModelRequest, provider = "openai"): Record<string, unknown> {
  const input: unknown[] = [];
  const resend = reasoningToResend(request.messages);
  for (const message of request.messages) input.push(...toItems(message, provider, resend));
  const body: Record<string, unknown> = {
    model: request.model,
    input,
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
  };
  if (request.system !== "") body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict: false,
    }));
    if (request.toolChoice !== undefined) body.tool_choice = responsesToolChoice(request.toolChoice);
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  const { response_format: responseFormat, ...options } = request.providerOptions ?? {};
  const format = textFormat(responseFormat);
  if (format !== undefined) body.text = { format };
  return { ...body, ...options, stream: true };
}

/**
 * The thinking parts whose reasoning items this request sends back: those after the last user message, each
 * within `MAX_REASONING_ITEM_CHARS`, newest first while their total stays within `MAX_REASONING_CHARS`. Sizes
 * are measured by walking the items, never by serializing them.
 */
function reasoningToResend(messages: readonly Message[]): ReadonlySet<ThinkingPart> {
  const resend = new Set<ThinkingPart>();
  let total = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === "user") break;
    if (message.role !== "assistant") continue;
    for (let at = message.content.length - 1; at >= 0; at--) {
      const part = message.content[at]!;
      if (part.type !== "thinking") continue;
      const item = reasoningItem(part.providerMetadata);
      if (item === undefined) continue;
      const chars = jsonChars(item);
      if (chars > MAX_REASONING_ITEM_CHARS) continue;
      if (total + chars > MAX_REASONING_CHARS) return resend;
      total += chars;
      resend.add(part);
    }
  }
  return resend;
}

function toItems(message: Message, provider: string, resend: ReadonlySet<ThinkingPart>): unknown[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: userContent(message.content, (part) => userPart(part, provider)) }];
    case "assistant":
      return assistantItems(message.content, resend);
    case "tool":
      return message.content.map((part) => ({
        type: "function_call_output",
        call_id: part.toolCallId,
        output: toolOutput(part, provider),
      }));
  }
}

/**
 * A `function_call_output`'s `output`: text, or (a result with media) `input_text` and
 * `input_image` items; audio goes as a note (the output takes no audio).
 */
function toolOutput(part: ToolResultPart, provider: string): string | Record<string, unknown>[] {
  const content = toolResultMedia(part);
  if (content === undefined) return toolResultText(part);
  return content.parts.map((inner) => {
    if (inner.type === "text") return { type: "input_text", text: inner.text };
    if (inner.type === "image")
      return { type: "input_image", image_url: `data:${inner.mediaType};base64,${inner.data}`, detail: "auto" };
    return { type: "input_text", text: mediaNote(inner, `${provider} does not take audio in a tool result`) };
  });
}

function assistantItems(parts: AssistantPart[], resend: ReadonlySet<ThinkingPart>): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const part of parts) {
    switch (part.type) {
      case "text": {
        const last = items[items.length - 1];
        if (last?.role === "assistant" && typeof last.content === "string") last.content += part.text;
        else if (part.text !== "") items.push({ role: "assistant", content: part.text });
        break;
      }
      case "tool_call":
        items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: argumentsText(part.args) });
        break;
      case "thinking": {
        const item = resend.has(part) ? reasoningItem(part.providerMetadata) : undefined;
        if (item !== undefined) items.push(item);
        break;
      }
      default: {
        const unhandled: never = part;
        throw new Error(`Unknown assistant part: ${JSON.stringify(unhandled)}`);
      }
    }
  }
  // A reasoning item must be followed by what it led to; one left last lost its call (a response cut off by the
  // token limit, whose calls are dropped) and the API would refuse it.
  while (items.length > 0 && items[items.length - 1]!.type === "reasoning") items.pop();
  return items;
}

/** The reasoning item a thinking part keeps, when it holds one. */
export function reasoningItem(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const entry = metadata?.[RESPONSES_METADATA_KEY];
  if (typeof entry !== "object" || entry === null) return undefined;
  const item = (entry as { item?: unknown }).item;
  return typeof item === "object" && item !== null && !Array.isArray(item)
    ? (item as Record<string, unknown>)
    : undefined;
}

function userPart(part: UserPart, provider: string): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text };
    case "image":
      return { type: "input_image", image_url: `data:${part.mediaType};base64,${part.data}`, detail: "auto" };
    case "file":
      return isImageType(part.mediaType) ? imageFile(part) : documentFile(part, provider);
  }
}

function imageFile(part: FilePart): Record<string, unknown> {
  const { source } = part;
  switch (source.type) {
    case "data":
      return {
        type: "input_image",
        image_url: `data:${part.mediaType};base64,${base64Of(source.data)}`,
        detail: "auto",
      };
    case "url":
      return { type: "input_image", image_url: source.url, detail: "auto" };
    case "file_id":
      return { type: "input_image", file_id: source.fileId, detail: "auto" };
  }
}

function documentFile(part: FilePart, provider: string): Record<string, unknown> {
  if (!isPdfType(part.mediaType)) return { type: "input_text", text: unsentAttachmentNote(part, provider, "type") };
  const { source } = part;
  switch (source.type) {
    case "data":
      return {
        type: "input_file",
        filename: part.filename ?? "document.pdf",
        file_data: `data:application/pdf;base64,${base64Of(source.data)}`,
      };
    case "url":
      return {
        type: "input_file",
        file_url: source.url,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      };
    case "file_id":
      return { type: "input_file", file_id: source.fileId };
  }
}

/** A Chat Completions `response_format` as a Responses `text.format`; undefined for none or `text`. */
function textFormat(responseFormat: unknown): Record<string, unknown> | undefined {
  if (typeof responseFormat !== "object" || responseFormat === null) return undefined;
  const { type, json_schema: schema } = responseFormat as { type?: unknown; json_schema?: unknown };
  if (type === "json_object") return { type: "json_object" };
  if (type !== "json_schema" || typeof schema !== "object" || schema === null) return undefined;
  return { type: "json_schema", ...schema };
}

/** A tool choice in the Responses API's form. */
function responsesToolChoice(choice: ToolChoice): unknown {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {});
}
