import type { AssistantPart, FilePart, Message, ToolResultPart, UserPart } from "../../contracts/message.js";
import type { ModelRequest, ToolChoice } from "../../contracts/provider.js";
import { base64Of, isImageType, isPdfType } from "../../internal/file-data.js";
import { mediaNote } from "../../internal/tool-result-content.js";
import { toolResultMedia, toolResultText } from "../tool-result-text.js";
import { unsentAttachmentNote } from "../../internal/unsent-attachment.js";

type Block = Record<string, unknown>;
interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

/**
 * The Messages request body for a model request.
 *
 * - `system` goes to the top-level `system` field (omitted when empty); `max_tokens` is required by
 *   the API, so `maxOutputTokens ?? defaultMaxTokens`.
 * - User images become `image` blocks with a base64 source. File parts: a PDF becomes a
 *   `document` block (base64 or URL source, `title` from the filename), an image file an `image`
 *   block (base64 or URL). A file id (Anthropic's Files API is a beta this adapter does not use)
 *   or another media type goes as a short text note saying so, in this request only: the stored
 *   history keeps the part and never fails a later request.
 * - Assistant parts: thinking with a signature → `thinking` block (text and signature verbatim);
 *   redacted thinking → `redacted_thinking` with the signature as `data`; thinking without a
 *   signature (another provider's reasoning) is dropped, the API would reject it; empty text is
 *   dropped; tool calls → `tool_use` (arguments that are not an object, e.g. invalid JSON another
 *   provider produced, are sent as `{}`).
 * - Tool results → `tool_result` blocks (`is_error` when set); a `ToolResultContent` result as
 *   `text` and `image` blocks (JPEG, PNG, GIF, WebP; audio and other types as a note). Consecutive messages of the same
 *   wire role are merged, so the results of one assistant turn (and a user message right after
 *   them) form one user message, tool results first.
 * - `toolChoice` becomes `tool_choice`: `{ type: "auto" }`, `{ type: "any" }` (required),
 *   `{ type: "none" }` or `{ type: "tool", name }`, only when tools are offered.
 * - `providerOptions` are merged into the body last (e.g. `thinking`, `tool_choice`, `metadata`).
 */
export function toAnthropicRequest(init: { request: ModelRequest; defaultMaxTokens: number; provider?: string }) {
  const { request } = init;
  const provider = init.provider ?? "anthropic";
  const messages: WireMessage[] = [];
  for (const message of request.messages) {
    const wire = toWire(message, provider);
    if (wire.content.length === 0) continue;
    const previous = messages[messages.length - 1];
    if (previous && previous.role === wire.role) previous.content.push(...wire.content);
    else messages.push(wire);
  }
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: request.maxOutputTokens ?? init.defaultMaxTokens,
    messages,
    stream: true,
  };
  if (request.system !== "") body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
    }));
    if (request.toolChoice !== undefined) body.tool_choice = anthropicToolChoice(request.toolChoice);
  }
  return { ...body, ...request.providerOptions, stream: true };
}

function toWire(message: Message, provider: string): WireMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: userBlocks(message.content, provider) };
    case "assistant":
      return { role: "assistant", content: message.content.flatMap(assistantBlock) };
    case "tool":
      return {
        role: "user",
        content: message.content.map((part) => ({
          type: "tool_result",
          tool_use_id: part.toolCallId,
          content: toolResultContent(part, provider),
          ...(part.isError ? { is_error: true } : {}),
        })),
      };
  }
}

/** Image types the Messages API reads. */
const ANTHROPIC_IMAGE = /^image\/(jpeg|png|gif|webp)$/i;

/**
 * A tool result's `content`: text, or (a result with media) text and `image` blocks; audio and
 * image types the API does not read go as a note.
 */
function toolResultContent(part: ToolResultPart, provider: string): string | Block[] {
  const content = toolResultMedia(part);
  if (content === undefined) return toolResultText(part);
  return content.parts.flatMap((inner): Block[] => {
    if (inner.type === "text") return inner.text === "" ? [] : [{ type: "text", text: inner.text }];
    if (inner.type === "image" && ANTHROPIC_IMAGE.test(inner.mediaType))
      return [
        { type: "image", source: { type: "base64", media_type: inner.mediaType.toLowerCase(), data: inner.data } },
      ];
    return [{ type: "text", text: mediaNote(inner, `${provider} does not take this type in a tool result`) }];
  });
}

function userBlocks(content: string | UserPart[], provider: string): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.flatMap((part): Block[] => {
    switch (part.type) {
      case "text":
        return part.text === "" ? [] : [{ type: "text", text: part.text }];
      case "image":
        return [{ type: "image", source: { type: "base64", media_type: part.mediaType, data: part.data } }];
      case "file":
        return [fileBlock(part, provider)];
    }
  });
}

function fileBlock(part: FilePart, provider: string): Block {
  const image = isImageType(part.mediaType);
  if (!image && !isPdfType(part.mediaType)) return { type: "text", text: unsentAttachmentNote(part, provider, "type") };
  const { source } = part;
  let wire: Block;
  switch (source.type) {
    case "data":
      wire = { type: "base64", media_type: image ? part.mediaType : "application/pdf", data: base64Of(source.data) };
      break;
    case "url":
      wire = { type: "url", url: source.url };
      break;
    case "file_id":
      return { type: "text", text: unsentAttachmentNote(part, provider, "file_id") };
  }
  if (image) return { type: "image", source: wire };
  return { type: "document", source: wire, ...(part.filename !== undefined && { title: part.filename }) };
}

function assistantBlock(part: AssistantPart): Block[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "thinking":
      if (part.redacted) return part.signature ? [{ type: "redacted_thinking", data: part.signature }] : [];
      return part.signature ? [{ type: "thinking", thinking: part.text, signature: part.signature }] : [];
    case "tool_call":
      return [{ type: "tool_use", id: part.id, name: part.name, input: toolInput(part.args) }];
  }
}

/** A tool choice in the Messages API's form (`"required"` is `any` there). */
function anthropicToolChoice(choice: ToolChoice): Block {
  if (typeof choice === "object") return { type: "tool", name: choice.name };
  switch (choice) {
    case "auto":
      return { type: "auto" };
    case "required":
      return { type: "any" };
    case "none":
      return { type: "none" };
    default: {
      const unhandled: never = choice;
      throw new Error(`Unknown tool choice: ${JSON.stringify(unhandled)}`);
    }
  }
}

function toolInput(args: unknown): unknown {
  if (args && typeof args === "object" && !Array.isArray(args)) return args;
  if (typeof args === "string") {
    try {
      const parsed: unknown = JSON.parse(args);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
    } catch {
      // not JSON: fall through
    }
  }
  return {};
}

/**
 * What `toAnthropicRequest` leaves out: the Messages API no longer takes `temperature` (its
 * current `MessageCreateParams` has none), so a request's `temperature` is not sent.
 */
export function anthropicRequestWarnings(request: ModelRequest): { code: string; message: string }[] {
  return request.temperature === undefined
    ? []
    : [
        {
          code: "temperature_not_sent",
          message: "temperature is not sent to Anthropic: the Messages API no longer takes it.",
        },
      ];
}
