import type { FilePart, Message, ToolResultContentPart, ToolResultPart, UserPart } from "../contracts/message.js";
import { isToolResultContent } from "../internal/tool-result-content.js";
import { toolResultMedia, toolResultText } from "../providers/tool-result-text.js";
import type { ModelRequest, ToolChoice } from "../contracts/provider.js";
import { unsentAttachmentNote, type UnsentReason } from "../internal/unsent-attachment.js";
import type {
  AiSdkCallOptions,
  AiSdkFilePart,
  AiSdkMessage,
  AiSdkSpecificationVersion,
  AiSdkTextPart,
  AiSdkToolChoice,
  AiSdkToolResultContentPart,
  AiSdkToolResultPart,
} from "./ai-sdk-types.js";

/** What the request mapping needs to know about the model. */
export interface AiSdkTarget {
  version: AiSdkSpecificationVersion;
  /**
   * The `providerOptions` key that thinking signatures are sent back under: the first segment of
   * the model's `provider` (`"anthropic.messages"` → `"anthropic"`), as the AI SDK providers read it.
   */
  metadataKey: string;
  /** The Agentry provider id, named in errors. @default metadataKey */
  provider?: string;
}

/**
 * The AI SDK call options for a model request.
 *
 * - `system` becomes a leading `system` message (none when empty).
 * - User images become `file` parts (V2/V3: base64 `data`; V4: `{ type: "data", data }`), and so
 *   do user file parts: data as given (base64 or bytes), a URL as a `URL` (V4: `{ type: "url" }`),
 *   a file id as a V4 `reference` under `metadataKey`. What the model cannot take (a file id for
 *   V2/V3, a URL that does not parse) goes as a short text note saying so, in this request only.
 * - Thinking parts become `reasoning` parts; a signature (or redacted data) goes back in
 *   `providerOptions[metadataKey]` as `signature` (`redactedData`), where Anthropic reads it.
 * - Tool results: a string is `text`, anything else `json`; `isError` results are `error-text`; a
 *   `ToolResultContent` with media is `content` with its text and media parts (V2 `media`, V3
 *   `image-data` / `file-data`, V4 `file`), one without media `text`.
 * - `toolChoice` becomes `toolChoice` (`{ type: "auto" | "none" | "required" }` or
 *   `{ type: "tool", toolName }`), only when tools are offered.
 * - `providerOptions` are the AI SDK's (keyed by provider name), passed through as they are.
 */
export function toAiSdkCallOptions(
  request: ModelRequest,
  target: AiSdkTarget,
  signal: AbortSignal,
  headers?: Record<string, string>,
): AiSdkCallOptions {
  const prompt: AiSdkMessage[] = [];
  if (request.system !== "") prompt.push({ role: "system", content: request.system });
  for (const message of request.messages) {
    const mapped = toAiSdkMessage(message, target);
    if (mapped) prompt.push(mapped);
  }
  const options: AiSdkCallOptions = { prompt, abortSignal: signal };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
    }));
    if (request.toolChoice !== undefined) options.toolChoice = aiSdkToolChoice(request.toolChoice);
  }
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) options.temperature = request.temperature;
  if (request.providerOptions !== undefined)
    options.providerOptions = request.providerOptions as AiSdkCallOptions["providerOptions"];
  if (headers !== undefined) options.headers = headers;
  return options;
}

function aiSdkToolChoice(choice: ToolChoice): AiSdkToolChoice {
  return typeof choice === "string" ? { type: choice } : { type: "tool", toolName: choice.name };
}

function toAiSdkMessage(message: Message, target: AiSdkTarget): AiSdkMessage | undefined {
  switch (message.role) {
    case "user":
      return {
        role: "user",
        content:
          typeof message.content === "string"
            ? [{ type: "text", text: message.content }]
            : message.content.map((part) => userPart(part, target)),
      };
    case "assistant": {
      const content: Extract<AiSdkMessage, { role: "assistant" }>["content"] = [];
      for (const part of message.content) {
        if (part.type === "text") {
          if (part.text !== "") content.push({ type: "text", text: part.text });
        } else if (part.type === "tool_call") {
          content.push({ type: "tool-call", toolCallId: part.id, toolName: part.name, input: part.args ?? {} });
        } else if (part.redacted) {
          content.push({
            type: "reasoning",
            text: "",
            providerOptions: { [target.metadataKey]: { redactedData: part.signature ?? "" } },
          });
        } else {
          content.push({
            type: "reasoning",
            text: part.text,
            ...(part.signature !== undefined && {
              providerOptions: { [target.metadataKey]: { signature: part.signature } },
            }),
          });
        }
      }
      // An assistant message with nothing to say (e.g. an empty final answer) is left out: several providers reject
      // empty content.
      return content.length > 0 ? { role: "assistant", content } : undefined;
    }
    case "tool":
      return {
        role: "tool",
        content: message.content.map((part) => ({
          type: "tool-result",
          toolCallId: part.toolCallId,
          toolName: part.name,
          output: toolOutput(part, target),
        })),
      };
  }
}

/** A tool result's `output`: `error-text`, `text`, `json`, or `content` with media parts for a result with media. */
function toolOutput(part: ToolResultPart, target: AiSdkTarget): AiSdkToolResultPart["output"] {
  if (part.isError) return { type: "error-text", value: toolResultText(part) };
  const content = toolResultMedia(part);
  if (content !== undefined)
    return { type: "content", value: content.parts.map((inner) => contentPart(inner, target)) };
  if (isToolResultContent(part.result)) return { type: "text", value: toolResultText(part) };
  return typeof part.result === "string"
    ? { type: "text", value: part.result }
    : { type: "json", value: part.result ?? null };
}

function contentPart(part: ToolResultContentPart, target: AiSdkTarget): AiSdkToolResultContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  const { data, mediaType } = part;
  switch (target.version) {
    case "v2":
      return { type: "media", data, mediaType };
    case "v3":
      return { type: part.type === "image" ? "image-data" : "file-data", data, mediaType };
    case "v4":
      return { type: "file", data: { type: "data", data }, mediaType };
  }
}

function userPart(part: UserPart, target: AiSdkTarget): AiSdkTextPart | AiSdkFilePart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return {
        type: "file",
        mediaType: part.mediaType,
        data: target.version === "v4" ? { type: "data", data: part.data } : part.data,
      };
    case "file": {
      const data = fileData(part, target);
      if (typeof data === "object" && data !== null && "unsent" in data)
        return { type: "text", text: unsentAttachmentNote(part, target.provider ?? target.metadataKey, data.unsent) };
      return {
        type: "file",
        mediaType: part.mediaType,
        data,
        ...(part.filename !== undefined && { filename: part.filename }),
      };
    }
  }
}

/** A file part's data as the model takes it, or why it cannot take it (then a note goes in its place). */
function fileData(part: FilePart, target: AiSdkTarget): AiSdkFilePart["data"] | { unsent: UnsentReason } {
  const { source } = part;
  const v4 = target.version === "v4";
  switch (source.type) {
    case "data":
      return v4 ? { type: "data", data: source.data } : source.data;
    case "url": {
      let url: URL;
      try {
        url = new URL(source.url);
      } catch {
        return { unsent: "url" };
      }
      return v4 ? { type: "url", url } : url;
    }
    case "file_id":
      if (v4) return { type: "reference", reference: { [target.metadataKey]: source.fileId } };
      return { unsent: "file_id" };
  }
}
