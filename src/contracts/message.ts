import type { ExecutionTreeSnapshot } from "./execution-tree.js";

/** A user-side content part: text, an inline image (base64 `data`) or a file (a PDF, ...). */
export type UserPart = TextPart | ImagePart | FilePart;

/** Plain text. */
export interface TextPart {
  type: "text";
  text: string;
}

/** An inline image; `data` is base64 without a `data:` prefix. */
export interface ImagePart {
  type: "image";
  mediaType: string;
  data: string;
}

/**
 * A file the user attaches, e.g. a PDF. Providers take what they can: OpenAI chat takes PDFs as
 * `file` parts (data or a file id; no URL), Anthropic as `document` blocks (data or URL; no
 * file id); images given as files go as images. What a provider cannot take is left out of that
 * request, with a short text note in its place that the model reads (the stored message keeps
 * the part, so it never fails a later request). Token estimates count a file like an
 * image (`IMAGE_TOKENS`), never by its size.
 */
export interface FilePart {
  type: "file";
  /** IANA media type, e.g. `"application/pdf"`. */
  mediaType: string;
  /** Where the file's bytes are. */
  source: FileSource;
  /** A file name to show the model, when the provider takes one. @default none */
  filename?: string;
}

/**
 * Where a file part's bytes are:
 * - `data`: inline, as base64 (no `data:` prefix) or bytes. The runtime stores bytes as base64
 *   (messages are plain JSON); the bare loop hands them to the provider as given.
 * - `url`: an `https:` (or `data:`) URL the provider fetches itself.
 * - `file_id`: a file already uploaded to the provider (its own id, e.g. OpenAI's `file-...`).
 */
export type FileSource =
  { type: "data"; data: string | Uint8Array } | { type: "url"; url: string } | { type: "file_id"; fileId: string };

/**
 * Model reasoning; `signature` is the provider's opaque proof, sent back verbatim on the next turn.
 * `providerMetadata` is what an adapter needs to send the reasoning back unchanged (plain JSON,
 * keyed by adapter: `openai()` with `api: "responses"` keeps the reasoning item, encrypted content
 * included, under `openaiResponses.item`); adapters ignore other adapters' keys.
 */
export interface ThinkingPart {
  type: "thinking";
  text: string;
  signature?: string;
  redacted?: boolean;
  providerMetadata?: Record<string, unknown>;
}

/** A call the model made. `args` is the parsed JSON arguments object. */
export interface ToolCallPart {
  type: "tool_call";
  id: string;
  name: string;
  args: unknown;
}

/** What an assistant message may hold. */
export type AssistantPart = TextPart | ThinkingPart | ToolCallPart;

/** The result of one tool call, matched to it by `toolCallId`. */
export interface ToolResultPart {
  type: "tool_result";
  toolCallId: string;
  name: string;
  /** What the tool returned: any JSON value, or a {@link ToolResultContent} (text with images or audio). */
  result: unknown;
  isError?: boolean;
}

/** Inline audio a tool returns; `data` is base64 without a `data:` prefix. */
export interface AudioPart {
  type: "audio";
  /** e.g. `"audio/wav"`, `"audio/mpeg"`. */
  mediaType: string;
  data: string;
}

/** One part of a {@link ToolResultContent}. */
export type ToolResultContentPart = TextPart | ImagePart | AudioPart;

/**
 * A tool result that carries media: return it from a tool's `execute` (MCP tools return it for
 * results with images or audio) and the model sees the images as images where its API takes them
 * in a tool result: Anthropic `tool_result` image blocks, OpenAI Responses `input_image` items of
 * the `function_call_output`, the AI SDK bridge's `content` output with media parts. OpenAI Chat
 * Completions cannot put an image in a `tool` message: the text goes there and the images in a
 * `user` message right after the call's results. A part a provider cannot take (audio, except
 * through the AI SDK bridge; an image type Anthropic does not read) is a short text note saying so.
 *
 * Recognised only in exactly this shape (`type: "content"`, a non-empty `parts` array of valid
 * parts, nothing else required); any other value is an ordinary JSON result. The loop bounds it
 * like every result: the text parts together are cut to the turn's result room
 * (`maxToolResultBytes`), and media parts have bounds of their own (an image or audio part over
 * 5 MiB of base64, parts past the 16th media part, media past 20 MiB a result, or data that is not
 * base64 of an `image/*` or `audio/*` type become a text note instead); media bytes do not count
 * toward `maxToolResultBytes`. Token estimates count each media part as one image (`IMAGE_TOKENS`).
 *
 * @example
 * execute: async () => ({ type: "content", parts: [
 *   { type: "text", text: "The chart:" },
 *   { type: "image", mediaType: "image/png", data: pngBase64 },
 * ] })
 */
export interface ToolResultContent {
  type: "content";
  parts: ToolResultContentPart[];
}

/**
 * How a UI should render a message: an assistant message's `text`, `plan`, `question` or
 * `tool_call` (tool calls and no text); a tool message's `tool_result`.
 */
export type MessageType = "text" | "plan" | "question" | "tool_call" | "tool_result";

/** Token usage, summed over every depth of a run. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  llmCalls: number;
  toolCalls: number;
  /** Present when a pricing table was given. */
  costUsd?: number;
  cachedInputTokens?: number;
}

/** A user message. System messages from agents are user messages with `origin` set. */
export interface UserMessage {
  role: "user";
  content: string | UserPart[];
  origin?: string;
  silent?: boolean;
}

/** An assistant message; the final one of a turn carries the execution tree and usage. */
export interface AssistantMessage {
  role: "assistant";
  content: AssistantPart[];
  messageType?: MessageType;
  executionTree?: ExecutionTreeSnapshot;
  usage?: Usage;
}

/** The results of one assistant message's tool calls, in the model's call order. */
export interface ToolMessage {
  role: "tool";
  content: ToolResultPart[];
  /**
   * Always `"tool_result"` on tool messages the loop and the runtime make (a rendering hint, like an assistant
   * message's).
   */
  messageType?: "tool_result";
}

/** A conversation message. Plain JSON. */
export type Message = UserMessage | AssistantMessage | ToolMessage;
