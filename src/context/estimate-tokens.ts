import type { Message } from "../contracts/message.js";
import { jsonChars } from "../internal/json-chars.js";
import { isToolResultContent } from "../internal/tool-result-content.js";

/**
 * Characters of text counted as one token. Four is the usual rule of thumb for English prose
 * with OpenAI and Anthropic tokenizers; code, JSON and non-Latin scripts pack fewer characters
 * per token, so treat the estimate as a budget guide, not a bill.
 */
export const CHARS_PER_TOKEN = 4;

/**
 * Tokens counted for one inline image, whatever its size or encoding (image data is
 * replaced by a placeholder before estimating, so the count never scales with base64 length).
 * 1,600 is the upper end of what providers charge for an image after their own resizing
 * (Anthropic caps images near 1.15 megapixels, about 1,600 tokens; an OpenAI high-detail image
 * is at most 765), so pruning errs on the side of fitting.
 */
export const IMAGE_TOKENS = 1_600;

/**
 * Tokens added per message (and once for a non-empty system prompt) for the role markers and
 * separators that providers wrap around every message.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * Estimated tokens of one message, without calling a tokenizer:
 * `MESSAGE_OVERHEAD_TOKENS + ceil(characters / CHARS_PER_TOKEN) + (images + files) * IMAGE_TOKENS`.
 *
 * Characters are summed over the whole message, then rounded up once:
 * - user text (string content or text parts); image and file parts count `IMAGE_TOKENS` each and
 *   their data is never read;
 * - assistant text, thinking text (a `signature` is an opaque proof, and a redacted block's
 *   encrypted data, that the model does not read as text: not counted), a thinking part's
 *   `providerMetadata` as its JSON (the Responses API's reasoning item, encrypted content and all,
 *   is sent back as text and costs what it weighs; counted even where an adapter leaves it out,
 *   so pruning errs on the side of fitting), and tool calls as `name` plus the JSON of `args`;
 * - tool results as the text the model receives: a string result as is, anything else as its
 *   JSON (the providers send results as text, so base64 inside a result does count; the loop's
 *   `maxToolResultBytes` keeps results bounded); a `ToolResultContent` as its text parts, each
 *   image or audio part counting `IMAGE_TOKENS`.
 *
 * JSON lengths are measured by walking the value, never by `JSON.stringify`, and ignore string
 * escapes. Pure: reads nothing but `message` and keeps no cache.
 */
export function estimateMessageTokens(message: Message): number {
  let chars = 0;
  let images = 0;
  if (message.role === "user") {
    if (typeof message.content === "string") chars = message.content.length;
    else {
      for (const part of message.content) {
        // A file counts as an image: a placeholder, never its bytes.
        if (part.type === "image" || part.type === "file") images++;
        else chars += part.text.length;
      }
    }
  } else if (message.role === "assistant") {
    for (const part of message.content) {
      if (part.type === "tool_call") chars += part.name.length + jsonChars(part.args);
      else if (part.type === "thinking" && part.providerMetadata !== undefined)
        chars += part.text.length + jsonChars(part.providerMetadata);
      else chars += part.text.length;
    }
  } else {
    for (const part of message.content) {
      if (isToolResultContent(part.result)) {
        // Text parts as text, media parts as images: never their base64.
        for (const inner of part.result.parts) {
          if (inner.type === "text") chars += inner.text.length;
          else images++;
        }
      } else chars += typeof part.result === "string" ? part.result.length : jsonChars(part.result);
    }
  }
  return MESSAGE_OVERHEAD_TOKENS + Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

/**
 * Estimated tokens of a model request's context: every message per
 * {@link estimateMessageTokens}, plus the system prompt as
 * `MESSAGE_OVERHEAD_TOKENS + ceil(system.length / CHARS_PER_TOKEN)` when it is non-empty.
 *
 * @param system - The system prompt, passed separately as providers take it; absent or empty
 *   counts nothing.
 */
export function estimateTokens(messages: readonly Message[], system?: string): number {
  let total = estimateSystemTokens(system);
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Tokens of a system prompt; 0 when absent or empty. Not exported from the package. */
export function estimateSystemTokens(system: string | undefined): number {
  return system ? MESSAGE_OVERHEAD_TOKENS + Math.ceil(system.length / CHARS_PER_TOKEN) : 0;
}
