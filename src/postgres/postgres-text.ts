/**
 * Text Postgres cannot hold, stored losslessly. A `text` value cannot contain U+0000 (NUL), nor
 * can a `jsonb` string (`\u0000` is refused), while hosts and models may send it in any string;
 * a lone UTF-16 surrogate becomes U+FFFD in a `text` value and is refused in a `jsonb` string.
 * The store writes every text column and every string (and key) of a `jsonb` value escaped:
 * U+0000 → U+0001 "0", U+0001 → U+0001 "1", a lone surrogate → U+0001 "s" and its four hex
 * digits; everything else as is. The escape is exact both ways (a string that already holds
 * U+0001 "0" reads back as written) and keeps prefixes of well-formed text: `p` is a prefix of `s`
 * exactly when `toPgText(p)` is a prefix of `toPgText(s)`, so scope prefixes (which never hold a
 * lone surrogate) are index ranges of the escaped column. (`json` columns, the record bodies,
 * hold `\u0000` and `\ud800` as is.)
 */

const ESCAPE = "\u0001";
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// eslint-disable-next-line no-control-regex
const TO_ESCAPE = /[\u0000\u0001]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// eslint-disable-next-line no-control-regex
const ESCAPED = /\u0001([01]|s[0-9a-f]{4})/g;
/** In JSON text, where an escaped string may be: the JSON escape of U+0000, U+0001 or a lone surrogate. */
const JSON_CONTROL = /\\u000[01]|\\ud[89a-f]/i;

/** The escape of one character that needs it (see the module comment). */
const escapeOf = (char: string): string =>
  char === "\u0000" ? `${ESCAPE}0` : char === ESCAPE ? `${ESCAPE}1` : `${ESCAPE}s${char.charCodeAt(0).toString(16)}`;

/** The character an escape stands for. */
const unescapeOf = (code: string): string =>
  code === "0" ? "\u0000" : code === "1" ? ESCAPE : String.fromCharCode(Number.parseInt(code.slice(1), 16));

/** `text` as stored in a text column (see the module comment). */
export function toPgText(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(TO_ESCAPE, escapeOf) : text;
}

/** A text column's value as written (the inverse of {@link toPgText}). */
export function fromPgText(stored: string): string {
  return stored.includes(ESCAPE) ? stored.replace(ESCAPED, (_, code: string) => unescapeOf(code)) : stored;
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
