import type { JsonValue } from "../contracts/json-schema.js";
import { InvalidArgumentError } from "../errors/errors.js";

/** Deepest nesting of a turn's host context. */
export const MAX_CONTEXT_DEPTH = 32;
/** Largest host context, in characters of its JSON. */
export const MAX_CONTEXT_CHARS = 65_536;

/**
 * A turn's host context (`SendInput.context`) as the runtime keeps it: a copy, so a host that
 * mutates its object after `send` changes nothing, and plain JSON, because it is stored with the
 * turn and read back by whichever process resumes it. Throws `InvalidArgumentError` naming where
 * the value is not JSON (a function, a class instance, `undefined` in an array, a non-finite
 * number, a cycle), and for a value nested deeper than {@link MAX_CONTEXT_DEPTH} or larger than
 * {@link MAX_CONTEXT_CHARS} characters of JSON.
 */
export function checkedContext(operation: string, value: unknown): JsonValue {
  return checkedJson(operation, value, "context", MAX_CONTEXT_CHARS);
}

/**
 * A JSON copy of `value` (named `what` in errors), as {@link checkedContext} makes it: nested at
 * most {@link MAX_CONTEXT_DEPTH} deep and at most `maxChars` characters of JSON, else
 * `InvalidArgumentError`.
 */
export function checkedJson(operation: string, value: unknown, what: string, maxChars: number): JsonValue {
  const copy = copyJson(value, what, 0, new Set());
  if (typeof copy === "string") throw new InvalidArgumentError(`${operation}: ${copy}`);
  const size = JSON.stringify(copy.value).length;
  if (size > maxChars)
    throw new InvalidArgumentError(`${operation}: ${what} is ${size} characters of JSON, over the ${maxChars} allowed`);
  return copy.value;
}

/** A JSON copy of `value`, or why there is none (where, and what). */
function copyJson(value: unknown, path: string, depth: number, open: Set<object>): { value: JsonValue } | string {
  if (value === null || typeof value === "string" || typeof value === "boolean") return { value };
  if (typeof value === "number")
    return Number.isFinite(value) ? { value } : `${path} is ${String(value)}, not a JSON number`;
  if (typeof value !== "object") return `${path} is a ${typeof value}, not JSON`;
  if (depth >= MAX_CONTEXT_DEPTH) return `${path} is nested deeper than ${MAX_CONTEXT_DEPTH} levels`;
  if (open.has(value)) return `${path} refers to itself (a cycle)`;
  open.add(value);
  try {
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (let i = 0; i < value.length; i++) {
        const item = copyJson(value[i], `${path}[${i}]`, depth + 1, open);
        if (typeof item === "string") return item;
        out.push(item.value);
      }
      return { value: out };
    }
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null)
      return `${path} is a class instance (${value.constructor?.name ?? "unknown"}), not a plain object`;
    const out: { [key: string]: JsonValue } = {};
    for (const [key, field] of Object.entries(value)) {
      if (field === undefined) continue; // as JSON.stringify leaves it out
      const item = copyJson(field, `${path}.${key}`, depth + 1, open);
      if (typeof item === "string") return item;
      // An own `__proto__` key (JSON.parse makes one) stays an own key: assigned, it would become
      // the copy's prototype, and every reader would see fields the host never set.
      Object.defineProperty(out, key, { value: item.value, writable: true, enumerable: true, configurable: true });
    }
    return { value: out };
  } finally {
    open.delete(value);
  }
}
