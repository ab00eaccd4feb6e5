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
 * instances with cycles, functions, bigint) become their string form.
 */
export function normaliseResult(value: unknown): { value: unknown; bytes: number; text: string | undefined } {
  if (typeof value === "string") {
    // Cheap upper bound first: most results are far below any limit.
    return { value, bytes: value.length * 3 <= 1024 ? value.length : utf8Length(value), text: value };
  }
  if (value === undefined || value === null) return { value: null, bytes: 4, text: undefined };
  if (typeof value === "number" || typeof value === "boolean") return { value, bytes: String(value).length, text: undefined };
  const text = resultText(value);
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

/** A result cut to `maxBytes` of UTF-8, as text with a truncation notice. */
export function truncateResult(text: string, totalBytes: number, maxBytes: number): string {
  const kept = utf8Prefix(text, maxBytes);
  return kept + truncationNotice(utf8Length(kept), totalBytes);
}

/** Message of any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
