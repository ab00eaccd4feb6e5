import type { ToolResultContent, ToolResultContentPart } from "../contracts/message.js";
import { isJsonTextTooDeep } from "../internal/outside-json.js";
import { boundToolResultContent, isMediaPart, isToolResultContent } from "../internal/tool-result-content.js";

/** Bytes of `text` in UTF-8, without allocating. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 2; // surrogate pair: 4 bytes for 2 UTF-16 units
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** The longest prefix of `text` that fits in `maxBytes` of UTF-8 (never splits a surrogate pair). */
export function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code <= 0xdbff ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    if (size === 4) i++;
  }
  return text.slice(0, i);
}

/** A value as the text the model will read: strings as is, anything else as JSON. */
export function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? describe(value);
  } catch {
    return describe(value);
  }
}

/** `String()` of a value that JSON could not represent (functions, bigints, cycles). */
function describe(value: unknown): string {
  if (typeof value === "bigint" || typeof value === "symbol" || typeof value === "function") return value.toString();
  return Object.prototype.toString.call(value);
}

/**
 * Makes a tool's return value plain JSON and measures it. Values that are not JSON (class
 * instances with cycles, functions, bigint) become their string form, and so do values nested
 * deeper than 64 levels (`MAX_JSON_DEPTH`): the model reads the same text, and what is stored is
 * a string that every store can hold.
 */
export function normaliseResult(value: unknown): { value: unknown; bytes: number; text: string | undefined } {
  if (typeof value === "string") {
    // Cheap upper bound first: most results are far below any limit.
    return { value, bytes: value.length * 3 <= 1024 ? value.length : utf8Length(value), text: value };
  }
  if (value === undefined || value === null) return { value: null, bytes: 4, text: undefined };
  if (typeof value === "number" && !Number.isFinite(value)) return { value: null, bytes: 4, text: undefined }; // as JSON has it
  if (typeof value === "number" || typeof value === "boolean")
    return { value, bytes: String(value).length, text: undefined };
  const text = resultText(value);
  if (isJsonTextTooDeep(text)) return { value: text, bytes: utf8Length(text), text };
  let plain: unknown;
  try {
    plain = JSON.parse(text);
  } catch {
    plain = text;
  }
  return { value: plain, bytes: utf8Length(text), text };
}

/** The marker appended to a truncated result. */
export function truncationNotice(keptBytes: number, totalBytes: number): string {
  return `\n…[truncated: kept ${keptBytes} of ${totalBytes} bytes]`;
}

/** Message of any thrown value; never throws (a hostile Proxy included). */
export function errorMessage(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return JSON.stringify(error) ?? String(error);
  } catch {
    try {
      return String(error);
    } catch {
      return "a value that could not be read";
    }
  }
}

/**
 * {@link normaliseResult} for a value that may be hostile (a Proxy whose traps throw, a getter
 * that throws): any throw becomes an error text the model can read.
 */
export function readResult(value: unknown): { value: unknown; isError: boolean; text: string | undefined } {
  try {
    const normal = normaliseResult(value);
    return { value: normal.value, isError: false, text: normal.text };
  } catch (error) {
    return {
      value: `The tool returned a value that could not be read: ${errorMessage(error)}`,
      isError: true,
      text: undefined,
    };
  }
}

/** Longest part of a model-supplied name echoed back in a refusal. */
const MAX_ECHOED_NAME = 64;

/** A model-supplied name as refusals quote it: cut to 64 characters. */
export function echoName(name: string): string {
  return name.length <= MAX_ECHOED_NAME ? name : `${name.slice(0, MAX_ECHOED_NAME)}…`;
}

/**
 * Cuts a result to `maxBytes` of UTF-8 measured as the model reads it ({@link resultText}),
 * truncation notice included: the notice is kept only when it fits, so the result never exceeds
 * `maxBytes`. Returns the value unchanged when it fits. `knownText` is `resultText(value)` when
 * the caller has it already.
 */
export function capResult(
  value: unknown,
  maxBytes: number,
  knownText?: string,
): { value: unknown; bytes: number; fullBytes: number } {
  if (isToolResultContent(value)) return capContent(boundToolResultContent(value), maxBytes);
  let text: string;
  try {
    text = knownText ?? resultText(value);
  } catch (error) {
    value = text = `The result could not be read: ${errorMessage(error)}`;
  }
  const bytes = utf8Length(text);
  if (bytes <= maxBytes) return { value, bytes, fullBytes: bytes };
  // The notice with `bytes` for both figures is at least as long as the real one (kept <= bytes).
  const noticeBytes = utf8Length(truncationNotice(bytes, bytes));
  if (noticeBytes >= maxBytes) {
    const kept = utf8Prefix(text, maxBytes);
    return { value: kept, bytes: utf8Length(kept), fullBytes: bytes };
  }
  const kept = utf8Prefix(text, maxBytes - noticeBytes);
  const out = kept + truncationNotice(utf8Length(kept), bytes);
  return { value: out, bytes: utf8Length(out), fullBytes: bytes };
}

/**
 * {@link capResult} for a result with media (already bounded by `boundToolResultContent`): its
 * text parts together are cut to `maxBytes` (the part that overflows is cut, with the truncation
 * notice when it fits; later text parts are left out), media parts are kept. Only text is counted.
 */
function capContent(
  content: ToolResultContent,
  maxBytes: number,
): { value: ToolResultContent; bytes: number; fullBytes: number } {
  let fullBytes = 0;
  for (const part of content.parts) if (!isMediaPart(part)) fullBytes += utf8Length(part.text);
  if (fullBytes <= maxBytes) return { value: content, bytes: fullBytes, fullBytes };
  const noticeBytes = utf8Length(truncationNotice(fullBytes, fullBytes));
  const parts: ToolResultContentPart[] = [];
  let bytes = 0;
  let cut = false;
  for (const part of content.parts) {
    if (isMediaPart(part)) {
      parts.push(part);
      continue;
    }
    if (cut) continue;
    const size = utf8Length(part.text);
    if (bytes + size + noticeBytes <= maxBytes) {
      parts.push(part);
      bytes += size;
      continue;
    }
    cut = true;
    const room = maxBytes - bytes;
    const kept = noticeBytes >= room ? utf8Prefix(part.text, room) : utf8Prefix(part.text, room - noticeBytes);
    const text = noticeBytes >= room ? kept : kept + truncationNotice(bytes + utf8Length(kept), fullBytes);
    if (text !== "") parts.push({ type: "text", text });
    bytes += utf8Length(text);
  }
  return { value: { type: "content", parts }, bytes, fullBytes };
}
