/**
 * Text Postgres cannot hold, stored losslessly. A `text` value cannot contain U+0000 (NUL), nor
 * can a `jsonb` string (`\u0000` is refused), while hosts and models may send it in any string.
 * The store writes every text column and every string (and key) of a `jsonb` value escaped:
 * U+0000 → U+0001 "0" and U+0001 → U+0001 "1"; everything else as is. The escape is exact both
 * ways (a string that already holds U+0001 "0" reads back as written) and keeps prefixes: `p` is
 * a prefix of `s` exactly when `toPgText(p)` is a prefix of `toPgText(s)`, so scope prefixes are
 * index ranges of the escaped column. (`json` columns, the record bodies, hold `\u0000` as is.)
 */

const ESCAPE = "\u0001";
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\u0000\u0001]/;
// eslint-disable-next-line no-control-regex
const TO_ESCAPE = /[\u0000\u0001]/g;
// eslint-disable-next-line no-control-regex
const ESCAPED = /\u0001([01])/g;
/** In JSON text, where an escaped string may be: the JSON escape of U+0000 or U+0001. */
const JSON_CONTROL = /\\u000[01]/i;

/** `text` as stored in a text column (see the module comment). */
export function toPgText(text: string): string {
  return NEEDS_ESCAPE.test(text)
    ? text.replace(TO_ESCAPE, (char) => (char === "\u0000" ? `${ESCAPE}0` : `${ESCAPE}1`))
    : text;
}

/** A text column's value as written (the inverse of {@link toPgText}). */
export function fromPgText(stored: string): string {
  return stored.includes(ESCAPE)
    ? stored.replace(ESCAPED, (_, digit: string) => (digit === "0" ? "\u0000" : ESCAPE))
    : stored;
}

/** `toPgText` of a nullable column value. */
export const toPgTextOrNull = (text: string | null | undefined): string | null =>
  text === undefined || text === null ? null : toPgText(text);

/** `fromPgText` of a nullable column value. */
export const fromPgTextOrNull = (stored: string | null): string | null => (stored === null ? null : fromPgText(stored));

/** A plain-JSON value as `jsonb` text: every string and key escaped as {@link toPgText}. */
export function toPgJson(value: unknown): string {
  const json = JSON.stringify(value);
  return JSON_CONTROL.test(json) ? JSON.stringify(mapStrings(value, toPgText)) : json;
}

/** A `jsonb` column read as text (`column::text`), parsed and unescaped (the inverse of {@link toPgJson}). */
export function fromPgJson(json: string): unknown {
  const value: unknown = JSON.parse(json);
  return JSON_CONTROL.test(json) ? mapStrings(value, fromPgText) : value;
}

/** A copy of plain JSON with `map` applied to every string and object key. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (typeof value === "object" && value !== null) {
    // fromEntries defines own properties: a "__proto__" key stays a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
  }
  return value;
}
