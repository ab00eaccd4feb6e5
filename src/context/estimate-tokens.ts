import type { Message } from "../contracts/message.js";

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
 *   encrypted data, that the model does not read as text: not counted), and tool calls as
 *   `name` plus the JSON of `args`;
 * - tool results as the text the model receives: a string result as is, anything else as its
 *   JSON (the providers send results as text, so base64 inside a result does count; the loop's
 *   `maxToolResultBytes` keeps results bounded).
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
      if (part.type === "tool_call") chars += part.name.length + jsonChars(part.args, 0);
      else chars += part.text.length;
    }
  } else {
    for (const part of message.content) {
      chars += typeof part.result === "string" ? part.result.length : jsonChars(part.result, 0);
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

/** Deeper nesting than this is not measured (it also stops cyclic values without tracking them). */
const MAX_JSON_DEPTH = 64;

/**
 * Length of `JSON.stringify(value)` without building the string (escapes ignored), allocation-free.
 * Nesting past `MAX_JSON_DEPTH` counts as nothing, so a cyclic value cannot recurse forever.
 */
function jsonChars(value: unknown, depth: number): number {
  switch (typeof value) {
    case "string":
      return value.length + 2;
    case "number":
      return Number.isFinite(value) ? String(value).length : 4; // NaN and Infinity become null
    case "boolean":
      return value ? 4 : 5;
    case "bigint":
      return String(value).length;
    case "object":
      break;
    default:
      return 0; // undefined, functions and symbols are left out of JSON
  }
  if (value === null) return 4;
  if (depth >= MAX_JSON_DEPTH) return 0;
  let chars = 2;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) chars += (isOmitted(item) ? 4 : jsonChars(item, depth + 1)) + 1; // omitted items become null
    if (value.length > 0) chars--;
  } else {
    let members = 0;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
      const item = record[key];
      if (isOmitted(item)) continue;
      chars += key.length + 3 + jsonChars(item, depth + 1) + 1; // "key": value,
      members++;
    }
    if (members > 0) chars--;
  }
  return chars;
}

/** Values JSON leaves out of objects (and writes as null in arrays). */
function isOmitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}
