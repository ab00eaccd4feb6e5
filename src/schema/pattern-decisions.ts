import { compileLinearRegex, RegexSubsetError, type LinearRegex } from "../internal/linear-regex.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import { SchemaLimitError } from "./schema-limit-error.js";
import { SCHEMA_ARRAY, SCHEMA_MAP, SINGLE_SCHEMA } from "./schema-keywords.js";
import type { PatternInputs } from "./schema-work.js";

/** A schema's patterns compiled for the linear-time engine: `pattern` values and `patternProperties` names. */
export interface CompiledPatterns {
  values: Map<string, LinearRegex>;
  keys: Map<string, LinearRegex>;
}

/**
 * What the patterns decided for one value: the strings failing each `pattern`, the names matching each
 * `patternProperties` entry.
 */
interface Decisions {
  failing: Map<string, string[]>;
  matching: Map<string, string[]>;
}

/**
 * Compiles `source` for the linear-time engine; a pattern outside its subset is a {@link SchemaLimitError} naming `at`.
 */
export function compilePattern(source: string, at: string): LinearRegex {
  try {
    return compileLinearRegex(source);
  } catch (error) {
    if (!(error instanceof RegexSubsetError)) throw error;
    throw new SchemaLimitError(`${at}: unsupported pattern ${JSON.stringify(source).slice(0, 200)}: ${error.message}`);
  }
}

/**
 * Runs the patterns on the strings they apply to (within `budget.steps` of the linear engine) and
 * returns the schema with every pattern replaced by what it decided, or `undefined` when the
 * budget ran out. A `pattern` becomes `not: { enum: [failing strings] }`; a `patternProperties`
 * entry becomes a `properties` entry for each matching name (merged with `allOf` where one exists),
 * which is exact for this value. `failed` collects the strings that failed a pattern.
 */
export function decidePatterns(
  schema: unknown,
  patterns: CompiledPatterns,
  inputs: PatternInputs,
  budget: { steps: number },
  failed: Set<string>,
): unknown {
  const decisions: Decisions = { failing: new Map(), matching: new Map() };
  for (const [source, texts] of inputs.values) {
    const regex = patterns.values.get(source);
    if (!regex) continue;
    const misses: string[] = [];
    for (const text of texts) {
      const matched = regex.test(text, budget);
      if (matched === undefined) return undefined;
      if (!matched) {
        misses.push(text);
        failed.add(text);
      }
    }
    decisions.failing.set(source, misses);
  }
  for (const [source, names] of inputs.keys) {
    const regex = patterns.keys.get(source);
    if (!regex) continue;
    const hits: string[] = [];
    for (const name of names) {
      const matched = regex.test(name, budget);
      if (matched === undefined) return undefined;
      if (matched) hits.push(name);
    }
    decisions.matching.set(source, hits);
  }
  return rewrite(schema, decisions, new Map());
}

/**
 * A copy of `schema` that a validator can run without any regular expression of its own: `format`
 * dropped (an annotation, as JSON Schema 2020-12 has it by default), and every `pattern` and
 * `patternProperties` entry removed. Only for schemas that have neither (a `pattern` would always
 * pass, and `patternProperties` would no longer apply).
 */
export function withoutRegexKeywords(schema: unknown): unknown {
  return rewrite(schema, { failing: new Map(), matching: new Map() }, new Map());
}

/** `target[key] = value` that keeps a key named "__proto__" an own property (schemas are parsed JSON). */
function setOwn(target: JsonSchema, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function rewrite(node: unknown, decisions: Decisions, done: Map<object, unknown>): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return node;
  const seen = done.get(node);
  if (seen !== undefined) return seen;
  const out: JsonSchema = {};
  done.set(node, out);
  const again = (sub: unknown) => rewrite(sub, decisions, done);
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" || key === "patternProperties" || (key === "pattern" && typeof value === "string")) continue;
    if (SCHEMA_ARRAY.has(key) && Array.isArray(value)) out[key] = value.map(again);
    else if (SINGLE_SCHEMA.has(key)) out[key] = again(value);
    else if (SCHEMA_MAP.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const map: JsonSchema = {};
      for (const [name, sub] of Object.entries(value))
        setOwn(map, name, key === "dependencies" && Array.isArray(sub) ? sub : again(sub));
      out[key] = map;
    } else setOwn(out, key, value);
  }
  const { pattern, patternProperties } = node as JsonSchema;
  const misses = typeof pattern === "string" ? decisions.failing.get(pattern) : undefined;
  if (misses && misses.length > 0)
    out.allOf = [...(Array.isArray(out.allOf) ? (out.allOf as unknown[]) : []), { not: { enum: misses } }];
  if (typeof patternProperties === "object" && patternProperties !== null) {
    const properties: JsonSchema = {};
    for (const [name, sub] of Object.entries((out.properties as JsonSchema | undefined) ?? {}))
      setOwn(properties, name, sub);
    for (const [source, sub] of Object.entries(patternProperties)) {
      for (const name of decisions.matching.get(source) ?? []) {
        const kept = Object.hasOwn(properties, name) ? properties[name] : undefined;
        setOwn(properties, name, kept === undefined ? again(sub) : { allOf: [kept, again(sub)] });
      }
    }
    out.properties = properties;
  }
  return out;
}
