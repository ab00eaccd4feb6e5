import type { UserMessage } from "../contracts/message.js";

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
 * Wraps a system message from another agent: `<system_message origin="ID">text</system_message>`.
 * The origin is attribute-escaped. The text is kept verbatim except that anything looking like a
 * `<system_message` or `</system_message` tag has its `<` written `&lt;` (and an `&` before such an
 * escape `&amp;`), so text an agent wrote can never close the wrapper or forge another one.
 * {@link unwrapSystemMessage} reverses it.
 */
export function wrapSystemMessage(origin: string, text: string): string {
  const escaped = origin.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const body = text.replace(/&(?=(?:amp;)*lt;\s*\/?\s*system_message)/gi, "&amp;").replace(TAG, "&lt;$1");
  return `<system_message origin="${escaped}">${body}</system_message>`;
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
