import { InvalidArgumentError } from "../errors/errors.js";

/**
 * A deep copy with JSON semantics, as every persistent store sees the value: `undefined` and
 * functions dropped from objects, `toJSON` applied (dates become strings). An
 * {@link InvalidArgumentError} naming `what` for what JSON cannot hold (bigint, cycles).
 */
export function toPlainJson<T>(value: T, what: string): T {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new InvalidArgumentError(`${what}: must be plain JSON data`, { cause: error });
  }
  if (json === undefined) throw new InvalidArgumentError(`${what}: must be plain JSON data`);
  return JSON.parse(json) as T;
}

/** A deep copy of a value already known to be plain JSON (objects, arrays, primitives); faster than `structuredClone`. */
export function copyPlainJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(copyPlainJson) as T;
  const copy: Record<string, unknown> = {};
  for (const key in value) copy[key] = copyPlainJson((value as Record<string, unknown>)[key]);
  return copy as T;
}
