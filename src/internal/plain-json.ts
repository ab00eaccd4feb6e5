import { InvalidArgumentError } from "../errors/errors.js";

/**
 * A deep copy with JSON semantics, as every persistent store sees the value: `undefined` and
 * functions dropped from objects, `toJSON` applied (dates become strings). An
 * {@link InvalidArgumentError} naming `what` for what JSON cannot hold (bigint, cycles).
 */
export function toPlainJson<T>(value: T, what: string): T {
  // A round trip through JSON text rather than a copying walk: a walk is about four times faster,
  // but it keeps the caller's strings (a slice of a large text keeps all of that text alive) and
  // builds objects with spare property slots; parsed records are fresh and compact, which is what
  // a store that holds them for the life of the process wants (bench: 5.8 vs 7.8 MB per 1,000 sessions).
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(`${what}: must be plain JSON data`, { cause: error });
  }
  if (json === undefined) throw new InvalidArgumentError(`${what}: must be plain JSON data`);
  return JSON.parse(json) as T;
}

/**
 * A deep copy of a value already known to be plain JSON (objects, arrays, primitives); faster than `structuredClone`.
 */
export function copyPlainJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlainJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const item = copyPlainJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__")
      Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true });
    else copy[key] = item;
  }
  return copy as T;
}

/**
 * Whether `value` is plain data equal to `plain` (a value parsed from JSON): the same JSON text up
 * to key order, checked without serializing. Conservative: anything JSON would transform (an
 * `undefined` or function property, `toJSON`, an object that is not a plain object or array, a
 * non-finite number) counts as different, so a `false` only means "serialize to be sure".
 */
export function equalsPlainJson(value: unknown, plain: unknown): boolean {
  if (typeof plain !== "object" || plain === null) return value === plain;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(plain)) {
    if (!Array.isArray(value) || value.length !== plain.length) return false;
    for (let i = 0; i < plain.length; i++) if (!equalsPlainJson(value[i], plain[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  const expected = plain as Record<string, unknown>;
  if (typeof record.toJSON === "function") return false;
  let count = 0;
  for (const key in record) {
    count++;
    if (!Object.hasOwn(expected, key) || !equalsPlainJson(record[key], expected[key])) return false;
  }
  return count === Object.keys(expected).length;
}
