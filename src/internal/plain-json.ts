import { InvalidArgumentError } from "../errors/errors.js";

/**
 * A deep copy with JSON semantics, as every persistent store sees the value: `undefined` and
 * functions dropped from objects, `toJSON` applied (dates become strings). An
 * {@link InvalidArgumentError} naming `what` for what JSON cannot hold (bigint, cycles).
 */
export function toPlainJson<T>(value: T, what: string): T {
  let copy: unknown;
  try {
    copy = jsonValue(value, "", []);
  } catch (error) {
    throw new InvalidArgumentError(`${what}: must be plain JSON data`, { cause: error });
  }
  if (copy === undefined) throw new InvalidArgumentError(`${what}: must be plain JSON data`);
  return copy as T;
}

/**
 * `JSON.parse(JSON.stringify(value))` in one walk, about four times faster on records: the
 * steps of the spec's SerializeJSONProperty (`toJSON(key)`, boxed primitives unwrapped,
 * non-finite numbers and `-0` as JSON writes them, `undefined`/functions/symbols dropped from
 * objects and `null` in arrays, own enumerable string keys in order, a `__proto__` key kept as
 * an own property as `JSON.parse` keeps it). Throws `TypeError` for bigint and cycles.
 */
function jsonValue(value: unknown, key: string, stack: object[]): unknown {
  if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") value = toJSON.call(value, key) as unknown;
  }
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value + 0 : null; // + 0 turns -0 into 0, as JSON does
    case "bigint":
      throw new TypeError("Do not know how to serialize a BigInt");
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return jsonValue(value.valueOf(), key, stack);
  if (stack.includes(value)) throw new TypeError("Converting circular structure to JSON");
  stack.push(value);
  let copy: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    const length = value.length;
    copy = new Array<unknown>(length);
    for (let index = 0; index < length; index++) copy[index] = jsonValue(value[index], String(index), stack) ?? null;
  } else {
    copy = {};
    for (const name of Object.keys(value)) {
      const item = jsonValue((value as Record<string, unknown>)[name], name, stack);
      if (item === undefined) continue;
      if (name === "__proto__") Object.defineProperty(copy, name, { value: item, writable: true, enumerable: true, configurable: true });
      else copy[name] = item;
    }
  }
  stack.pop();
  return copy;
}

/** A deep copy of a value already known to be plain JSON (objects, arrays, primitives); faster than `structuredClone`. */
export function copyPlainJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlainJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const item = copyPlainJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__") Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}
