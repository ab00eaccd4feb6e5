import type { UserMessage, UserPart } from "../contracts/message.js";

/**
 * A system message from another agent: a user message whose text is wrapped with its
 * `origin`; `silent` ones are recorded and join the context but trigger no inference.
 */
export function systemMessage(origin: string, text: string, options: { silent?: boolean } = {}): UserMessage {
  const message: UserMessage = { role: "user", content: wrapSystemMessage(origin, text), origin };
  if (options.silent) message.silent = true;
  return message;
}

/** `<system_message` or `</system_message` in any case, with the `<` captured apart. */
const TAG = /<(\s*\/?\s*system_message)/gi;
const ESCAPED_TAG = /&lt;(\s*\/?\s*system_message)/gi;
const ESCAPED_AMP = /&amp;(?=(?:amp;)*lt;\s*\/?\s*system_message)/gi;

/**
 * Text that did not come from the runtime itself (a user's message, another agent's, an MCP
 * client's, a model's), made unable to pass for a runtime notice: it is kept verbatim except that
 * anything looking like a `<system_message` or `</system_message` tag (any case, spaces allowed)
 * has its `<` written `&lt;`, and an `&` before such an escape `&amp;`. So it can neither open a
 * `<system_message origin="...">` wrapper of its own nor close a real one. Apply it once to each
 * text where it enters (applied twice, an escape is escaped again); {@link unwrapSystemMessage}
 * reverses it for the text of a wrapper.
 */
export function escapeSystemMessageTags(text: string): string {
  return text.replace(/&(?=(?:amp;)*lt;\s*\/?\s*system_message)/gi, "&amp;").replace(TAG, "&lt;$1");
}

/**
 * A user message's content with {@link escapeSystemMessageTags} applied to its text (a string, or
 * each text part; other parts as they are). Returns the same value when nothing needed escaping.
 */
export function escapeUserContent(content: string | UserPart[]): string | UserPart[] {
  if (typeof content === "string") return escapeSystemMessageTags(content);
  let changed = false;
  const parts = content.map((part) => {
    if (part.type !== "text") return part;
    const text = escapeSystemMessageTags(part.text);
    if (text === part.text) return part;
    changed = true;
    return { ...part, text };
  });
  return changed ? parts : content;
}

/**
 * Wraps a system message from another agent: `<system_message origin="ID">text</system_message>`.
 * The origin is attribute-escaped; the text goes through `escapeSystemMessageTags`, so text
 * an agent wrote can never close the wrapper or forge another one. {@link unwrapSystemMessage}
 * reverses it.
 */
export function wrapSystemMessage(origin: string, text: string): string {
  const escaped = origin.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return `<system_message origin="${escaped}">${escapeSystemMessageTags(text)}</system_message>`;
}

/** The origin and text of a wrapped system message, or undefined when `content` is not one. */
export function unwrapSystemMessage(content: string): { origin: string; text: string } | undefined {
  const match = /^<system_message origin="([^"]*)">([\s\S]*)<\/system_message>$/.exec(content);
  if (!match) return undefined;
  const origin = match[1]!
    .replace(/&lt;/g, "<")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
  return { origin, text: match[2]!.replace(ESCAPED_TAG, "<$1").replace(ESCAPED_AMP, "&") };
}
