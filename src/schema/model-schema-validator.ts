import { Validator } from "@cfworker/json-schema";
import { compileLinearRegex, RegexSubsetError, type LinearRegex } from "../internal/linear-regex.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import { draftOf, type ValueValidator } from "./validate.js";

/**
 * The limits of a JSON Schema the model writes itself (`run_subtask`'s `output_schema`). A model
 * schema is hostile input: these keep compiling it and checking any value against it bounded
 * in time and memory, whatever it holds.
 */
export const MODEL_SCHEMA_LIMITS = Object.freeze({
  /** Longest schema, in bytes of JSON. */
  maxSchemaBytes: 16_384,
  /** Deepest nesting of subschemas. */
  maxDepth: 32,
  /** Most subschemas, counted with every `$ref` inlined (so a chain of `$defs` cannot double up). */
  maxExpandedNodes: 5_000,
  /** Longest `pattern`, in characters. */
  maxPatternLength: 1_000,
  /** Most `pattern` keywords. */
  maxPatterns: 32,
  /** Regex work allowed for one value (Pike-VM steps over all patterns and strings). */
  maxRegexSteps: 5_000_000,
  /** Longest array checked against `uniqueItems` (the check is quadratic). */
  maxUniqueItems: 2_000,
});

/** Why a model-supplied schema was refused; the message says what to change. */
export class ModelSchemaError extends Error {
  override name = "ModelSchemaError";
}

/** Options of {@link createModelSchemaValidator}. */
export interface ModelSchemaValidatorOptions {
  /** Largest value accepted, in bytes of JSON (a larger one is an error to fix, not a check). */
  maxValueBytes: number;
}

const SINGLE = new Set([
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
const ARRAY = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
const MAP = new Set(["$defs", "definitions", "properties", "dependentSchemas", "dependencies"]);
const FORBIDDEN: Record<string, string> = {
  $id: "$id is not supported: use $defs with local $refs",
  id: "id is not supported: use $defs with local $refs",
  $anchor: "$anchor is not supported: use $defs with local $refs",
  $dynamicRef: "$dynamicRef is not supported: use $refs to #/$defs/<name>",
  $dynamicAnchor: "$dynamicAnchor is not supported",
  $recursiveRef: "$recursiveRef is not supported (recursive schemas are not allowed)",
  $recursiveAnchor: "$recursiveAnchor is not supported",
  patternProperties: "patternProperties is not supported: list the properties, or use additionalProperties",
};
const TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
const REF = /^#\/(\$defs|definitions)\/([A-Za-z0-9_.-]{1,64})$/;

interface Compiled {
  /** The schema as checked: `format` dropped (an annotation in 2020-12), otherwise as written. */
  schema: JsonSchema;
  patterns: Map<string, LinearRegex>;
  usesUniqueItems: boolean;
}

/** JSON bytes of a JSON value (strings counted in UTF-8). */
function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? "";
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

function compile(root: unknown): Compiled {
  const L = MODEL_SCHEMA_LIMITS;
  if (typeof root !== "object" || root === null || Array.isArray(root)) throw new ModelSchemaError("the schema must be a JSON object");
  let bytes: number;
  try {
    bytes = jsonBytes(root);
  } catch {
    throw new ModelSchemaError("the schema must be plain JSON");
  }
  if (bytes > L.maxSchemaBytes) throw new ModelSchemaError(`the schema is ${bytes} bytes; at most ${L.maxSchemaBytes} are allowed: make it smaller`);
  const rootObject = root as JsonSchema;
  const patterns = new Map<string, LinearRegex>();
  let usesUniqueItems = false;
  // Which definitions each definition (or the root, "#") references: for cycles and expansion.
  const refsOf = new Map<string, string[]>();
  // Subschemas of each definition (or the root) without its references inlined.
  const ownNodes = new Map<string, number>();
  const defined = (ref: string): boolean => {
    const [, bucket, name] = REF.exec(ref)!;
    const defs = rootObject[bucket!];
    return typeof defs === "object" && defs !== null && Object.hasOwn(defs, name!);
  };

  const visit = (node: unknown, path: string, depth: number, owner: string): unknown => {
    if (typeof node === "boolean") return node;
    if (typeof node !== "object" || node === null || Array.isArray(node))
      throw new ModelSchemaError(`${path || "/"}: a subschema must be an object or a boolean`);
    if (depth > L.maxDepth) throw new ModelSchemaError(`${path}: subschemas nest deeper than ${L.maxDepth} levels`);
    ownNodes.set(owner, (ownNodes.get(owner) ?? 0) + 1);
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${key}`;
      if (Object.hasOwn(FORBIDDEN, key) && (key !== "id" || typeof value === "string")) throw new ModelSchemaError(`${at}: ${FORBIDDEN[key]}`);
      if (key === "format") continue;
      if (key === "$ref") {
        if (typeof value !== "string" || !REF.test(value)) {
          throw new ModelSchemaError(
            `${at}: only local references of the form "#/$defs/<name>" are supported (got ${JSON.stringify(value).slice(0, 80)}); recursive schemas are not allowed`,
          );
        }
        if (!defined(value)) throw new ModelSchemaError(`${at}: "${value}" resolves to nothing: define it under $defs`);
        refsOf.get(owner)!.push(value);
        out[key] = value;
      } else if (key === "pattern") {
        if (typeof value !== "string") throw new ModelSchemaError(`${at}: must be a string`);
        if (value.length > L.maxPatternLength) throw new ModelSchemaError(`${at}: patterns may be at most ${L.maxPatternLength} characters`);
        if (!patterns.has(value)) {
          if (patterns.size >= L.maxPatterns) throw new ModelSchemaError(`${at}: at most ${L.maxPatterns} different patterns are allowed`);
          try {
            patterns.set(value, compileLinearRegex(value));
          } catch (error) {
            if (!(error instanceof RegexSubsetError)) throw error;
            throw new ModelSchemaError(`${at}: unsupported pattern ${JSON.stringify(value)}: ${error.message}`);
          }
        }
        out[key] = value;
      } else if (key === "type") {
        const types = Array.isArray(value) ? (value as unknown[]) : [value];
        const bad = types.find((t) => typeof t !== "string" || !TYPES.has(t));
        if (bad !== undefined || types.length === 0)
          throw new ModelSchemaError(`${at}: must be one of ${[...TYPES].join(", ")} (or an array of them), got ${JSON.stringify(bad ?? value).slice(0, 40)}`);
        out[key] = value;
      } else if (key === "uniqueItems") {
        usesUniqueItems ||= value === true;
        out[key] = value;
      } else if (ARRAY.has(key) && Array.isArray(value)) {
        out[key] = value.map((item, index) => visit(item, `${at}/${index}`, depth + 1, owner));
      } else if (SINGLE.has(key)) {
        out[key] = visit(value, at, depth + 1, owner);
      } else if (MAP.has(key)) {
        if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ModelSchemaError(`${at}: must be an object`);
        const map: JsonSchema = {};
        for (const [name, sub] of Object.entries(value)) {
          // Definitions are walked on their own (below), each as an owner of its references.
          if ((key === "$defs" || key === "definitions") && depth === 0) map[name] = sub;
          else if (key === "dependencies" && Array.isArray(sub)) map[name] = sub;
          else map[name] = visit(sub, `${at}/${name}`, depth + 1, owner);
        }
        out[key] = map;
      } else out[key] = value;
    }
    return out;
  };

  refsOf.set("#", []);
  const schema = visit(rootObject, "", 0, "#") as JsonSchema;
  for (const bucket of ["$defs", "definitions"] as const) {
    const defs = rootObject[bucket];
    if (typeof defs !== "object" || defs === null) continue;
    for (const [name, sub] of Object.entries(defs)) {
      const owner = `#/${bucket}/${name}`;
      refsOf.set(owner, []);
      (schema[bucket] as JsonSchema)[name] = visit(sub, owner.slice(1), 1, owner);
    }
  }

  // No cycles (a schema that refers back to itself), and a bounded size with references inlined.
  const expanded = new Map<string, number>();
  const state = new Map<string, "open" | "done">();
  const size = (owner: string): number => {
    if (state.get(owner) === "done") return expanded.get(owner)!;
    if (state.get(owner) === "open")
      throw new ModelSchemaError(`"${owner}" refers back to itself through $ref: recursive schemas are not allowed; write the nesting out to a fixed depth`);
    state.set(owner, "open");
    let total = ownNodes.get(owner) ?? 0;
    for (const ref of refsOf.get(owner) ?? []) {
      total += size(ref);
      if (total > L.maxExpandedNodes)
        throw new ModelSchemaError(`the schema has more than ${L.maxExpandedNodes} subschemas once its $refs are inlined: make it smaller`);
    }
    state.set(owner, "done");
    expanded.set(owner, total);
    return total;
  };
  for (const owner of refsOf.keys()) size(owner);
  return { schema, patterns, usesUniqueItems };
}

/** Every string of a JSON value, object keys included, and the longest array. */
function stringsOf(value: unknown, strings: Set<string>): number {
  let longest = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") strings.add(item);
    else if (Array.isArray(item)) {
      longest = Math.max(longest, item.length);
      for (const inner of item) stack.push(inner);
    } else if (typeof item === "object" && item !== null) {
      for (const [key, inner] of Object.entries(item)) {
        strings.add(key);
        stack.push(inner);
      }
    }
  }
  return longest;
}

/**
 * The schema with each `pattern` replaced by what it decides for this value: the value's strings
 * that fail it, as `not: { enum: [...] }` (exact for this value, as `pattern` only looks at strings).
 */
function withPatternsDecided(node: unknown, failing: Map<string, string[]>): unknown {
  if (typeof node !== "object" || node === null) return node;
  if (Array.isArray(node)) return node.map((item) => withPatternsDecided(item, failing));
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "enum" || key === "const" || key === "default" || key === "examples") out[key] = value;
    else if (key !== "pattern" || typeof value !== "string") out[key] = withPatternsDecided(value, failing);
  }
  const pattern = (node as JsonSchema).pattern;
  const misses = typeof pattern === "string" ? failing.get(pattern) : undefined;
  if (misses && misses.length > 0) {
    const allOf = Array.isArray(out.allOf) ? (out.allOf as unknown[]) : [];
    out.allOf = [...allOf, { not: { enum: misses } }];
  }
  return out;
}

const MAX_REPORTED = 8;

function pointerGet(value: unknown, pointer: string): unknown {
  let at = value;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/**
 * A validator for a JSON Schema the model supplied, with bounded cost (see
 * {@link MODEL_SCHEMA_LIMITS}): the schema is at most 16 KB, 32 levels deep and 5,000 subschemas
 * with `$ref`s inlined; `$ref`s are local (`#/$defs/<name>`, `#/definitions/<name>`), resolve,
 * and never form a cycle; `$id`, anchors, dynamic and recursive references and
 * `patternProperties` are refused; `format` is an annotation (not checked); `pattern`s are run by
 * a linear-time engine (no backreferences or lookaround), with a step budget per value; values
 * over `maxValueBytes`, and arrays over 2,000 items under `uniqueItems`, are refused.
 *
 * Throws {@link ModelSchemaError} with a message the model can act on when the schema breaks a
 * rule. Host schemas do not come here: they are trusted and validated as written.
 */
export function createModelSchemaValidator(schema: unknown, options: ModelSchemaValidatorOptions): ValueValidator {
  const compiled = compile(schema);
  const draft = draftOf(compiled.schema);
  const plain = new Validator(compiled.schema, draft, false);
  const L = MODEL_SCHEMA_LIMITS;
  return (value) => {
    let bytes: number;
    try {
      bytes = jsonBytes(value);
    } catch {
      return { ok: false, message: "the result is not plain JSON" };
    }
    if (bytes > options.maxValueBytes)
      return { ok: false, message: `the result is ${bytes} bytes of JSON; at most ${options.maxValueBytes} are allowed: make it smaller` };
    const strings = new Set<string>();
    const longest = stringsOf(value, strings);
    if (compiled.usesUniqueItems && longest > L.maxUniqueItems) {
      return { ok: false, message: `an array has ${longest} items; uniqueItems is checked on at most ${L.maxUniqueItems}` };
    }
    let validator = plain;
    const failed = new Set<string>();
    if (compiled.patterns.size > 0) {
      const budget = { steps: L.maxRegexSteps };
      const failing = new Map<string, string[]>();
      for (const [source, regex] of compiled.patterns) {
        const misses: string[] = [];
        for (const text of strings) {
          const matched = regex.test(text, budget);
          if (matched === undefined) return { ok: false, message: "the result's strings are too long to check against the schema's patterns: shorten them" };
          if (!matched) {
            misses.push(text);
            failed.add(text);
          }
        }
        failing.set(source, misses);
      }
      validator = new Validator(withPatternsDecided(compiled.schema, failing) as JsonSchema, draft, false);
    }
    const result = validator.validate(value);
    if (result.valid) return { ok: true, value };
    const leaves = result.errors.filter((e) => !result.errors.some((other) => other !== e && other.instanceLocation.startsWith(e.instanceLocation + "/")));
    const shown = (leaves.length > 0 ? leaves : result.errors).slice(0, MAX_REPORTED);
    const describe = (e: (typeof shown)[number]): string => {
      if (e.keyword === "false") return "not allowed here (unexpected property or item)";
      if (e.keyword === "not") {
        const at = pointerGet(value, e.instanceLocation);
        if (typeof at === "string" && failed.has(at)) return "does not match the pattern required here";
      }
      return e.error;
    };
    return { ok: false, message: shown.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${describe(e)}`).join("; ") };
  };
}
