/** An RFC 4122-shaped id anywhere in a string (session ids, run ids: new on every run). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Keys written first, in this order, when an object has them; the rest follow sorted. */
const FIRST_KEYS = ["type", "role", "id", "name"];
const rank = (key: string) => {
  const i = FIRST_KEYS.indexOf(key);
  return i === -1 ? FIRST_KEYS.length : i;
};
const byKey = (a: string, b: string) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);

/** The placeholder a volatile value is written as. */
export const VARIES = "<varies>";

/**
 * How values that change from run to run are written, for one request and the events of its
 * response. Ids are numbered by first appearance (`<id:1>`, `<id:2>`, ...), so the same run
 * gives the same text whatever ids it was given, and `ids` maps each placeholder back.
 */
export interface Volatility {
  /** Replace UUIDs in strings by placeholders. */
  readonly normalizeIds: boolean;
  /** Values under these keys are written as {@link VARIES} (timings in tool results). */
  readonly keys: ReadonlySet<string>;
  /** Placeholder → the id it stands for, in this request. */
  readonly ids: Map<string, string>;
  /** Id → placeholder. */
  readonly placeholders: Map<string, string>;
  /** Whether new ids get placeholders (a request) or only known ones are replaced (its events). */
  numbering: boolean;
  /** How many ids were seen so far (text holding none does not depend on the numbering: it can be cached). */
  seen: number;
}

/** A fresh numbering for one request. */
export function createVolatility(options: { normalizeIds: boolean; keys: ReadonlySet<string> }): Volatility {
  return { normalizeIds: options.normalizeIds, keys: options.keys, ids: new Map(), placeholders: new Map(), numbering: true, seen: 0 };
}

function normalizeString(text: string, volatility: Volatility | undefined): string {
  if (!volatility?.normalizeIds || !text.includes("-")) return text;
  return text.replace(UUID, (id) => {
    volatility.seen++;
    const known = volatility.placeholders.get(id);
    if (known !== undefined || !volatility.numbering) return known ?? id;
    const placeholder = `<id:${volatility.placeholders.size + 1}>`;
    volatility.placeholders.set(id, placeholder);
    volatility.ids.set(placeholder, id);
    return placeholder;
  });
}

/**
 * `value` as JSON text with a stable key order (`type`, `role`, `id`, `name` first, then sorted),
 * so equal content gives equal text whatever order its keys were made in; volatile values
 * replaced as `volatility` says. Otherwise as `JSON.stringify` (`toJSON` honoured, `undefined`
 * and functions left out of objects, `null` in arrays).
 */
export function canonicalJson(value: unknown, volatility?: Volatility): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(normalizeString(value, volatility));
    case "number":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(String(value));
    case "object": {
      if (value === null) return "null";
      const json = (value as { toJSON?: unknown }).toJSON;
      if (typeof json === "function") return canonicalJson((json as () => unknown).call(value), volatility);
      if (Array.isArray(value))
        return `[${value.map((item: unknown) => (item === undefined || typeof item === "function" ? "null" : canonicalJson(item, volatility))).join(",")}]`;
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const key of Object.keys(record).sort(byKey)) {
        const item = record[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        const text = volatility?.keys.has(key) ? JSON.stringify(VARIES) : canonicalJson(item, volatility);
        parts.push(`${JSON.stringify(key)}:${text}`);
      }
      return `{${parts.join(",")}}`;
    }
    default:
      return "null";
  }
}

/** `value` with each id placeholder of `ids` replaced by the id it stands for (a replayed event). */
export function restoreIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  if (ids.size === 0) return value;
  if (typeof value === "string") return value.replace(/<id:\d+>/g, (placeholder) => ids.get(placeholder) ?? placeholder) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => restoreIds(item, ids)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restoreIds(item, ids)])) as T;
  }
  return value;
}
