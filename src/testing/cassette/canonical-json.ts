/** An RFC 4122-shaped id anywhere in a string (session ids, run ids: new on every run). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Keys written first, in this order: `type`, `role`, `id`, `name`; the rest follow sorted. */
const rank = (key: string): number =>
  key === "type" ? 0 : key === "role" ? 1 : key === "id" ? 2 : key === "name" ? 3 : 4;
const byKey = (a: string, b: string) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);

/** An object's keys in canonical order; most objects already have them so, and are not sorted. */
function orderedKeys(record: object): string[] {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i++) if (byKey(keys[i - 1]!, keys[i]!) > 0) return keys.sort(byKey);
  return keys;
}

/** The shortest text that can hold a UUID. */
const UUID_LENGTH = 36;
const DASH = 45;

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
  return {
    normalizeIds: options.normalizeIds,
    keys: options.keys,
    ids: new Map(),
    placeholders: new Map(),
    numbering: true,
    seen: 0,
  };
}

/** Whether `text` has a dash and three more, five characters apart (8-4-4-4-12): a cheap test before the regex. */
function mayHoldUuid(text: string): boolean {
  if (text.length < UUID_LENGTH) return false;
  for (let i = text.indexOf("-", 8); i !== -1 && i <= text.length - 28; i = text.indexOf("-", i + 1)) {
    if (text.charCodeAt(i + 5) === DASH && text.charCodeAt(i + 10) === DASH && text.charCodeAt(i + 15) === DASH)
      return true;
  }
  return false;
}

function normalizeString(text: string, volatility: Volatility | undefined): string {
  if (!volatility?.normalizeIds || !mayHoldUuid(text)) return text;
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
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (i > 0) out += ",";
          out += item === undefined || typeof item === "function" ? "null" : canonicalJson(item, volatility);
        }
        return `${out}]`;
      }
      const record = value as Record<string, unknown>;
      let out = "{";
      for (const key of orderedKeys(record)) {
        const item = record[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        const text = volatility?.keys.has(key) ? JSON.stringify(VARIES) : canonicalJson(item, volatility);
        out += `${out.length === 1 ? "" : ","}${JSON.stringify(key)}:${text}`;
      }
      return `${out}}`;
    }
    default:
      return "null";
  }
}

/** `value` with each id placeholder of `ids` replaced by the id it stands for (a replayed event). */
export function restoreIds<T>(value: T, ids: ReadonlyMap<string, string>): T {
  if (ids.size === 0) return value;
  if (typeof value === "string")
    return value.replace(/<id:\d+>/g, (placeholder) => ids.get(placeholder) ?? placeholder) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => restoreIds(item, ids)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, restoreIds(item, ids)])) as T;
  }
  return value;
}
