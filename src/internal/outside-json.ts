/**
 * The deepest nesting accepted in a value from outside the package (a provider's tool-call
 * arguments, an AI SDK model's tool input): 64 levels of objects and arrays. JSON.parse accepts
 * thousands, but JSON.stringify (and so every store) fails on a few thousand, and recursive
 * validators are no better: a value over this limit is refused before anything keeps it.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The most values (objects, arrays and primitives, keys not counted) read from one outside value:
 * 1,000,000, far more than a model can write within any output-token limit. It bounds the cost
 * of a value whose getters make up new objects on every read.
 */
export const MAX_JSON_VALUES = 1_000_000;

/** Why an outside value was refused (see {@link readOutsideJson}). */
export type OutsideJsonProblem = "too_deep" | "too_many_values" | "unreadable";

/** The outcome of {@link readOutsideJson}. */
export type OutsideJson = { ok: true; value: unknown } | { ok: false; problem: OutsideJsonProblem; detail: string };

/**
 * What is kept in place of an outside value that cannot be kept (see {@link readOutsideJson}): a
 * fixed text per reason, so the history stays storable and whoever reads it later (the loop
 * planning a call from a stored message, after a restart too) tells it apart from the value.
 */
const DROPPED_TEXT: Record<OutsideJsonProblem, string> = {
  too_deep: `[arguments dropped: nested deeper than ${MAX_JSON_DEPTH} levels]`,
  too_many_values: `[arguments dropped: more than ${MAX_JSON_VALUES} values]`,
  unreadable: "[arguments dropped: not readable as JSON]",
};

/** The placeholder text for tool-call arguments dropped for `problem`. */
export function droppedArgsText(problem: OutsideJsonProblem): string {
  return DROPPED_TEXT[problem];
}

/** The problem a placeholder made by {@link droppedArgsText} stands for, or `undefined` for any other text. */
export function droppedArgsProblem(text: string): OutsideJsonProblem | undefined {
  return (Object.keys(DROPPED_TEXT) as OutsideJsonProblem[]).find((problem) => DROPPED_TEXT[problem] === text);
}

class Refused extends Error {
  constructor(
    readonly problem: OutsideJsonProblem,
    detail: string,
  ) {
    super(detail);
  }
}

/**
 * A plain JSON copy of a value from outside, as `JSON.parse(JSON.stringify(value))` would make it
 * (`toJSON` applied, `undefined` and functions dropped from objects and `null` in arrays,
 * non-finite numbers `null`), or why it cannot be one: nested deeper than `maxDepth`, more than
 * {@link MAX_JSON_VALUES} values, or unreadable (a getter or a Proxy trap that throws, a bigint,
 * a `toJSON` that throws). Never throws, and never recurses deeper than `maxDepth`: a cycle is
 * "too deep". A top-level `undefined`, function or symbol gives `undefined`.
 */
export function readOutsideJson(value: unknown, maxDepth: number = MAX_JSON_DEPTH): OutsideJson {
  const state = { values: 0, maxDepth };
  try {
    return { ok: true, value: copy(value, "", 0, state) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, problem: error.problem, detail: error.message };
    return { ok: false, problem: "unreadable", detail: `it could not be read (${describeError(error)})` };
  }
}

/** Copies `value` (held under `key`), whose container is `depth` levels deep. Throws when it must be refused. */
function copy(value: unknown, key: string, depth: number, state: { values: number; maxDepth: number }): unknown {
  if (++state.values > MAX_JSON_VALUES)
    throw new Refused("too_many_values", `it holds more than ${MAX_JSON_VALUES} values`);
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "bigint":
      throw new Refused("unreadable", "it holds a bigint, which JSON cannot");
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object":
      break;
  }
  if (value === null) return null;
  return copyObject(value, key, depth, state, true);
}

/** Copies an object or array; `toJSON` is applied once, as JSON.stringify does (not to what it returns). */
function copyObject(
  value: object,
  key: string,
  depth: number,
  state: { values: number; maxDepth: number },
  applyToJSON: boolean,
): unknown {
  const toJSON = applyToJSON ? (value as { toJSON?: unknown }).toJSON : undefined;
  if (typeof toJSON === "function") {
    // The result of toJSON takes the value's place (a Date becomes its ISO text).
    const replaced: unknown = toJSON.call(value, key);
    if (typeof replaced !== "object" || replaced === null) return copy(replaced, key, depth, state);
    return copyObject(replaced, key, depth, state, false);
  }
  if (depth >= state.maxDepth) throw new Refused("too_deep", `it is nested deeper than ${state.maxDepth} levels`);
  if (Array.isArray(value)) {
    const length = (value as unknown[]).length;
    const out: unknown[] = [];
    for (let index = 0; index < length; index++) {
      const item = copy((value as unknown[])[index], String(index), depth + 1, state);
      out.push(item === undefined ? null : item);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[name], name, depth + 1, state);
    if (item === undefined) continue;
    if (name === "__proto__")
      Object.defineProperty(out, name, { value: item, writable: true, enumerable: true, configurable: true });
    else out[name] = item;
  }
  return out;
}

/** A thrown value's message, never throwing itself (the thrown value may be hostile too). */
function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name).slice(0, 200);
    return String(error).slice(0, 200);
  } catch {
    return "a value that could not be read";
  }
}

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, by one scan of the text
 * (brackets inside strings do not count; nothing is allocated). For text that may not be valid
 * JSON, the answer is about its brackets.
 */
export function isJsonTextTooDeep(text: string, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 92)
        i++; // backslash: skip the escaped character
      else if (code === 34) inString = false;
    } else if (code === 34) inString = true;
    else if (code === 123 || code === 91) {
      if (++depth > maxDepth) return true;
    } else if (code === 125 || code === 93) depth--;
  }
  return false;
}
