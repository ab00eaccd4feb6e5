import type { FilePart, Message, ToolResultPart, UserPart } from "../../contracts/message.js";
import type { ModelRequest, ToolChoice } from "../../contracts/provider.js";
import { base64Of, isImageType, isPdfType } from "../../internal/file-data.js";
import { mediaLabel, mediaNote, toolResultContentText } from "../../internal/tool-result-content.js";
import { toolResultMedia, toolResultText } from "../tool-result-text.js";
import { unsentAttachmentNote, type UnsentReason } from "../../internal/unsent-attachment.js";

/** Which request field carries the output-token limit. */
export type MaxTokensField = "max_tokens" | "max_completion_tokens";

/**
 * The Chat Completions request body for a model request.
 *
 * - `system` becomes the first `system` message (omitted when empty).
 * - User text stays a string; parts with images become a content array with `image_url` data URLs.
 *   File parts: a PDF becomes a `file` part (`file_data` as a data URL with a `filename`, or a
 *   `file_id`); an image file an `image_url` (data or URL). A PDF by URL, an image by file id or any
 *   other media type (Chat Completions has no way to send it) goes as a short text note saying so,
 *   in this request only: the stored history keeps the part and never fails a later request.
 * - Assistant text parts are joined; `tool_call` parts become `tool_calls` with the arguments as a
 *   JSON string (a string `args`, i.e. invalid JSON the model sent earlier, is sent back as is).
 *   Thinking parts are not sent (Chat Completions has no field for them), unless
 *   `sendReasoningContent`: then an assistant message's thinking text (redacted blocks aside) goes
 *   back as `reasoning_content`, as DeepSeek and Kimi thinking models need after tool calls.
 * - Each tool result is its own `tool` message, in order; non-string results are JSON-encoded. A
 *   `ToolResultContent` with images: its text goes in the `tool` message (saying where each image
 *   went) and the images in one `user` message after the results (a `tool` message takes no image).
 * - `toolChoice` becomes `tool_choice` (`"auto"`, `"required"`, `"none"`, or
 *   `{ type: "function", function: { name } }`), only when tools are offered.
 * - `providerOptions` are merged into the body last (vendor knobs such as `parallel_tool_calls`,
 *   `reasoning_effort`, `tool_choice`), so they can override anything here but `stream`.
 */
export function toOpenAIRequest(init: {
  request: ModelRequest;
  maxTokensField: MaxTokensField;
  includeUsage: boolean;
  provider?: string;
  sendReasoningContent?: boolean;
}) {
  const { request } = init;
  const provider = init.provider ?? "openai";
  const reasoning = init.sendReasoningContent ?? false;
  const messages: Record<string, unknown>[] = [];
  if (request.system !== "") messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(...toMessages(message, provider, reasoning));
  const body: Record<string, unknown> = { model: request.model, messages, stream: true };
  if (init.includeUsage) body.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    if (request.toolChoice !== undefined) body.tool_choice = chatToolChoice(request.toolChoice);
  }
  if (request.maxOutputTokens !== undefined) body[init.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return { ...body, ...request.providerOptions, stream: true };
}

function toMessages(message: Message, provider: string, reasoning: boolean): Record<string, unknown>[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: userContent(message.content, (part) => userPart(part, provider)) }];
    case "assistant": {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
      const calls = message.content.flatMap((part) =>
        part.type === "tool_call"
          ? [{ id: part.id, type: "function", function: { name: part.name, arguments: argumentsText(part.args) } }]
          : [],
      );
      const out: Record<string, unknown> = {
        role: "assistant",
        content: text === "" && calls.length > 0 ? null : text,
      };
      if (calls.length > 0) out.tool_calls = calls;
      const thinking = message.content
        .flatMap((part) => (part.type === "thinking" && !part.redacted ? [part.text] : []))
        .join("");
      if (reasoning && thinking !== "") out.reasoning_content = thinking;
      return [out];
    }
    case "tool":
      return toolMessages(message.content, provider);
  }
}

/**
 * One `tool` message per result, then, when results carry images, one `user` message with them:
 * Chat Completions takes no image in a `tool` message. The tool message's text says where each
 * image went; audio goes as a note.
 */
function toolMessages(parts: ToolResultPart[], provider: string): Record<string, unknown>[] {
  const images: Record<string, unknown>[] = [];
  let count = 0;
  const messages = parts.map((part) => {
    const content = toolResultMedia(part);
    const text =
      content === undefined
        ? toolResultText(part)
        : toolResultContentText(content, (inner) => {
            if (inner.type === "audio") return mediaNote(inner, `${provider} does not take audio in a tool result`);
            const n = ++count;
            images.push({ type: "text", text: `[image ${n}, from the result of tool call ${part.toolCallId}]` });
            images.push({ type: "image_url", image_url: { url: `data:${inner.mediaType};base64,${inner.data}` } });
            return `[image ${n} (${mediaLabel(inner.mediaType)}): sent in the user message after the tool results]`;
          });
    return { role: "tool", tool_call_id: part.toolCallId, content: text };
  });
  return images.length === 0 ? messages : [...messages, { role: "user", content: images }];
}

/**
 * A user message's content on OpenAI's wires (Chat Completions and Responses): text alone as one
 * string (parts joined by newlines), else every part mapped by `toPart`.
 */
export function userContent(
  content: string | UserPart[],
  toPart: (part: UserPart) => Record<string, unknown>,
): string | Record<string, unknown>[] {
  if (typeof content === "string") return content;
  if (content.every((part) => part.type === "text")) return content.map((part) => part.text).join("\n");
  return content.map(toPart);
}

function userPart(part: UserPart, provider: string): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.data}` } };
    case "file":
      return isImageType(part.mediaType) ? imageFilePart(part, provider) : pdfFilePart(part, provider);
  }
}

function imageFilePart(part: FilePart, provider: string): Record<string, unknown> {
  const { source } = part;
  switch (source.type) {
    case "data":
      return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${base64Of(source.data)}` } };
    case "url":
      return { type: "image_url", image_url: { url: source.url } };
    case "file_id":
      return unsentPart(part, provider, "file_id");
  }
}

/** A text part in place of a file Chat Completions cannot take (see {@link unsentAttachmentNote}). */
function unsentPart(part: FilePart, provider: string, reason: UnsentReason): Record<string, unknown> {
  return { type: "text", text: unsentAttachmentNote(part, provider, reason) };
}

function pdfFilePart(part: FilePart, provider: string): Record<string, unknown> {
  if (!isPdfType(part.mediaType)) return unsentPart(part, provider, "type");
  const { source } = part;
  switch (source.type) {
    case "data":
      return {
        type: "file",
        file: {
          filename: part.filename ?? "document.pdf",
          file_data: `data:application/pdf;base64,${base64Of(source.data)}`,
        },
      };
    case "file_id":
      return { type: "file", file: { file_id: source.fileId } };
    case "url":
      return unsentPart(part, provider, "url");
  }
}

/** A tool choice in Chat Completions' form. */
function chatToolChoice(choice: ToolChoice): unknown {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {});
}
