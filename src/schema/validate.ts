import { dereference, Validator, type OutputUnit } from "@cfworker/json-schema";
import type { JsonSchema, AnyZodSchema } from "../contracts/json-schema.js";
import { compilePattern, decidePatterns, withoutRegexKeywords, type CompiledPatterns } from "./pattern-decisions.js";
import { forEachChildSchema } from "./schema-keywords.js";
import { walkSchema, type RefResolver } from "./schema-work.js";

/** The outcome of validating a value. `value` is the (possibly transformed) valid value. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; message: string };
/** A reusable validator. */
export type ValueValidator = (value: unknown) => ValidationResult;

const MAX_REPORTED = 8;

/**
 * The bounds on checking a value (written by the model) against a host's schema: the schema is
 * trusted, the value is not.
 */
export const HOST_SCHEMA_LIMITS = Object.freeze({
  /** Regex work allowed for one value (steps of the linear-time engine over all patterns and strings). */
  maxRegexSteps: 5_000_000,
  /** Validation work allowed for one value: (subschema, value node) pairs a validator may visit. */
  maxValidationSteps: 1_000_000,
});

/** The JSON Schema draft a schema declares in `$schema` (2020-12 when it names none). */
export function draftOf(schema: JsonSchema): "2020-12" | "7" | "2019-09" | "4" {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-07")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  if (uri.includes("draft-04")) return "4";
  return "2020-12";
}

const pointerGet = (value: unknown, pointer: string): unknown => {
  let at = value;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
};

/**
 * A validator's outcome as a {@link ValidationResult}: the leaf causes (cfworker reports the
 * parent keyword failure first), at most eight, with `false` subschemas and decided patterns
 * (`failed`: strings that failed a pattern) described in words a model can act on.
 */
export function validationMessage(
  result: { valid: boolean; errors: OutputUnit[] },
  value: unknown,
  failed: Set<string>,
): ValidationResult {
  if (result.valid) return { ok: true, value };
  // An `allOf` failure is reported with its cause at the same place (a decided pattern is an `allOf` entry).
  const leaves = result.errors.filter(
    (e) =>
      !result.errors.some(
        (other) =>
          other !== e &&
          (other.instanceLocation.startsWith(e.instanceLocation + "/") ||
            (e.keyword === "allOf" && other.instanceLocation === e.instanceLocation)),
      ),
  );
  const shown = (leaves.length > 0 ? leaves : result.errors).slice(0, MAX_REPORTED);
  const describe = (e: OutputUnit): string => {
    if (e.keyword === "false") return "not allowed here (unexpected property or item)";
    if (e.keyword === "not" && failed.size > 0) {
      const at = pointerGet(value, e.instanceLocation);
      if (typeof at === "string" && failed.has(at)) return "does not match the pattern required here";
    }
    return e.error;
  };
  return {
    ok: false,
    message: shown.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${describe(e)}`).join("; "),
  };
}

/** Every `pattern` and `patternProperties` name of a (trusted) schema, compiled for the linear-time engine. */
function hostPatterns(schema: JsonSchema, onUnsupported: (node: JsonSchema, error: Error) => void): CompiledPatterns {
  const patterns: CompiledPatterns = { values: new Map(), keys: new Map() };
  const seen = new Set<object>();
  const visit = (node: unknown, path: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node) || seen.has(node)) return;
    seen.add(node);
    const { pattern, patternProperties } = node as JsonSchema;
    if (typeof pattern === "string" && !patterns.values.has(pattern)) {
      try {
        patterns.values.set(pattern, compilePattern(pattern, `${path}/pattern`));
      } catch (error) {
        onUnsupported(node as JsonSchema, error as Error);
      }
    }
    if (typeof patternProperties === "object" && patternProperties !== null)
      for (const name of Object.keys(patternProperties))
        patterns.keys.set(name, compilePattern(name, `${path}/patternProperties`));
    forEachChildSchema(node as Record<string, unknown>, (child, key, name) =>
      visit(child, `${path}/${key}${name === undefined ? "" : `/${name}`}`),
    );
  };
  visit(schema, "");
  return patterns;
}

/** Follows a `$ref` as the validator does (cfworker's lookup of absolute URIs). */
function refResolver(schema: JsonSchema): RefResolver {
  const lookup: Record<string, unknown> = dereference(schema);
  return (node) => {
    const absolute = node.__absolute_ref__ ?? node.__absolute_recursive_ref__;
    return typeof absolute === "string" ? lookup[absolute] : undefined;
  };
}

/**
 * A validator for a host's JSON Schema (a tool's input, an output schema), run on values the
 * model wrote. Interprets the schema (no code generation, no `eval`), so it runs on edge runtimes
 * with a strict CSP. The schema is trusted, the value is not, so the cost is bounded whatever the
 * value: every `pattern` (and `patternProperties` name) runs on the linear-time engine (a pattern
 * outside its subset, such as a backreference or lookaround, throws `SchemaLimitError` here, when
 * the validator is made), `format` is an annotation (not checked: the validator's format regexes
 * backtrack), and a value needing more than {@link HOST_SCHEMA_LIMITS} is refused with a message.
 */
export function createJsonSchemaValidator(schema: JsonSchema): ValueValidator {
  return hostValidator(schema, (_node, error) => {
    throw error;
  });
}

function hostValidator(schema: JsonSchema, onUnsupported: (node: JsonSchema, error: Error) => void): ValueValidator {
  const patterns = hostPatterns(schema, onUnsupported);
  const draft = draftOf(schema);
  const plain = new Validator(withoutRegexKeywords(schema) as JsonSchema, draft, false);
  // The walk reads the schema as written (it has the patterns); cfworker's validators already
  // annotate a schema's $refs in place, so this adds nothing new to the host's object.
  const resolve = refResolver(schema);
  const L = HOST_SCHEMA_LIMITS;
  return (value) => {
    const inputs = walkSchema(schema, value, resolve, L.maxValidationSteps);
    if (!inputs)
      return {
        ok: false,
        message: `the value is too large to check against this schema (over ${L.maxValidationSteps} steps): make it smaller`,
      };
    const failed = new Set<string>();
    let validator = plain;
    if (patterns.values.size > 0 || patterns.keys.size > 0) {
      const decided = decidePatterns(schema, patterns, inputs, { steps: L.maxRegexSteps }, failed);
      if (decided === undefined)
        return {
          ok: false,
          message: "the value's strings are too long to check against the schema's patterns: shorten them",
        };
      validator = new Validator(decided as JsonSchema, draft, false);
    }
    // Throws for a schema the validator cannot follow (a $ref to nothing): the host's mistake, reported by the caller.
    return validationMessage(validator.validate(value), value, failed);
  };
}

function formatZodIssues(error: unknown): string {
  const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues ?? [];
  if (issues.length === 0) return String((error as Error)?.message ?? error);
  return issues
    .slice(0, MAX_REPORTED)
    .map((i) => `/${i.path.map(String).join("/")}: ${i.message}`)
    .join("; ");
}

/**
 * A validator backed by a zod schema (either major version); applies defaults and transforms.
 *
 * zod runs its own regular expressions (a backtracking engine). So when `json` (the schema's
 * JSON Schema) has patterns, a value is first checked against `json` with the patterns on the
 * linear-time engine, and zod only sees values that pass: a string that fails a pattern never
 * reaches zod's `RegExp`. A pattern outside the linear subset throws `SchemaLimitError` here,
 * except zod's own string formats (a pattern beside `format`, e.g. `z.email()`), which are left to zod.
 */
export function createZodValidator(schema: AnyZodSchema, json?: JsonSchema): ValueValidator {
  const parse: ValueValidator = (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: formatZodIssues(parsed.error) };
  };
  if (json === undefined || !hasPattern(json)) return parse;
  // A copy: zod's own format patterns are dropped from the check, not from the schema the model sees.
  const precheck = hostValidator(structuredClone(json), (node, error) => {
    if (typeof node.format !== "string") throw error;
    delete node.pattern;
  });
  return (value) => {
    const checked = precheck(value);
    return checked.ok ? parse(value) : checked;
  };
}

function hasPattern(schema: JsonSchema): boolean {
  return /"pattern(Properties)?":/.test(JSON.stringify(schema) ?? "");
}
