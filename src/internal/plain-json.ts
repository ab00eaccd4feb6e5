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
