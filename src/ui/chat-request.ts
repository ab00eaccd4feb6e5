import type { UserPart } from "../contracts/message.js";

/** The most messages a chat request may carry (`useChat` sends the whole conversation). */
export const MAX_CHAT_MESSAGES = 10_000;
/** The most parts one message of a chat request may have. */
export const MAX_MESSAGE_PARTS = 1_000;

/** A tool part of a UI message, as the handler reads it (`tool-<name>` or `dynamic-tool`). */
export interface ChatToolPart {
  toolCallId: string;
  state: string;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** A message of a chat request, as the handler reads it. */
export interface ChatMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: unknown[];
}

/** What `useChat`'s `DefaultChatTransport` sends, checked: `{ id, messages, trigger, messageId, ...body }`. */
export interface ChatRequestBody {
  /** The chat's id (`useChat`'s `id`). */
  id: string | undefined;
  messages: ChatMessage[];
  trigger: "submit-message" | "regenerate-message";
  /** With `submit-message`: the id of a message the client replaced (an edit), or of the assistant message it continues. */
  messageId: string | undefined;
  /** The other fields of the body (`useChat`'s `body` option), for the host's `route`. */
  extra: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const optionalString = (value: unknown): value is string | undefined =>
  value === undefined || typeof value === "string";

/** The body checked, or why it is refused (a sentence for the 400 response). */
export function parseChatBody(value: unknown): ChatRequestBody | string {
  if (!isObject(value)) return "the body must be a JSON object";
  const { id, messages, trigger, messageId, ...extra } = value;
  if (!optionalString(id)) return "id must be a string";
  if (!optionalString(messageId)) return "messageId must be a string";
  if (trigger !== undefined && trigger !== "submit-message" && trigger !== "regenerate-message")
    return 'trigger must be "submit-message" or "regenerate-message"';
  if (!Array.isArray(messages) || messages.length === 0) return "messages must be a non-empty array";
  if (messages.length > MAX_CHAT_MESSAGES) return `messages has more than ${MAX_CHAT_MESSAGES} entries`;
  const checked: ChatMessage[] = [];
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return `messages[${index}] must be an object`;
    const { id: messageIdOf, role, parts } = message;
    if (typeof messageIdOf !== "string") return `messages[${index}].id must be a string`;
    if (role !== "user" && role !== "assistant" && role !== "system")
      return `messages[${index}].role must be "user", "assistant" or "system"`;
    if (!Array.isArray(parts) || parts.length > MAX_MESSAGE_PARTS)
      return `messages[${index}].parts must be an array of at most ${MAX_MESSAGE_PARTS} parts`;
    checked.push({ id: messageIdOf, role, parts });
  }
  return { id, messages: checked, trigger: trigger ?? "submit-message", messageId, extra };
}

/** The tool parts of a message (`tool-<name>` and `dynamic-tool` parts with a call id and a state). */
export function toolPartsOf(message: ChatMessage): ChatToolPart[] {
  const out: ChatToolPart[] = [];
  for (const part of message.parts) {
    if (!isObject(part) || typeof part.type !== "string") continue;
    if (part.type !== "dynamic-tool" && !part.type.startsWith("tool-")) continue;
    const { toolCallId, state, output, errorText, approval } = part;
    if (typeof toolCallId !== "string" || typeof state !== "string") continue;
    const tool: ChatToolPart = { toolCallId, state };
    if (output !== undefined) tool.output = output;
    if (typeof errorText === "string") tool.errorText = errorText;
    if (isObject(approval) && typeof approval.id === "string") {
      tool.approval = { id: approval.id };
      if (typeof approval.approved === "boolean") tool.approval.approved = approval.approved;
      if (typeof approval.reason === "string") tool.approval.reason = approval.reason;
    }
    out.push(tool);
  }
  return out;
}

/**
 * A user message's content as the runtime takes it: its text parts joined, and its file parts
 * (`data:` URLs inline, images as image parts; other URLs by reference). A part of another kind is
 * left out. `undefined` when nothing is left.
 */
export function userContentOf(message: ChatMessage): string | UserPart[] | undefined {
  const parts: UserPart[] = [];
  for (const part of message.parts) {
    if (!isObject(part)) continue;
    if (part.type === "text" && typeof part.text === "string") parts.push({ type: "text", text: part.text });
    else if (part.type === "file" && typeof part.url === "string" && typeof part.mediaType === "string") {
      const file = filePartOf(part.url, part.mediaType, typeof part.filename === "string" ? part.filename : undefined);
      if (file) parts.push(file);
    }
  }
  if (parts.every((part) => part.type === "text")) {
    const text = parts.map((part) => (part as { text: string }).text).join("\n");
    return text.trim() === "" ? undefined : text;
  }
  return parts;
}

const DATA_URL = /^data:([^;,]*)(;base64)?,/;

function filePartOf(url: string, mediaType: string, filename: string | undefined): UserPart | undefined {
  const data = DATA_URL.exec(url);
  if (data) {
    // Only base64 data URLs: the runtime stores base64.
    if (data[2] === undefined) return undefined;
    const base64 = url.slice(data[0].length);
    if (mediaType.startsWith("image/")) return { type: "image", mediaType, data: base64 };
    return { type: "file", mediaType, source: { type: "data", data: base64 }, ...(filename && { filename }) };
  }
  if (!url.startsWith("https:")) return undefined;
  return { type: "file", mediaType, source: { type: "url", url }, ...(filename && { filename }) };
}
