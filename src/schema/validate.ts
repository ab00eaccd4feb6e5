import { Validator } from "@cfworker/json-schema";
import type { JsonSchema, AnyZodSchema } from "../contracts/json-schema.js";

/** The outcome of validating a value. `value` is the (possibly transformed) valid value. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; message: string };
/** A reusable validator. */
export type ValueValidator = (value: unknown) => ValidationResult;

const MAX_REPORTED = 8;

/** The JSON Schema draft a schema declares in `$schema` (2020-12 when it names none). */
export function draftOf(schema: JsonSchema): "2020-12" | "7" | "2019-09" | "4" {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-07")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  if (uri.includes("draft-04")) return "4";
  return "2020-12";
}

// A `false` subschema (additionalProperties: false, ...) reports "False boolean schema.", which
// tells a model nothing; say what it means.
const describeError = (e: { keyword: string; error: string }): string => (e.keyword === "false" ? "not allowed here (unexpected property or item)" : e.error);

/**
 * A validator for a JSON Schema. Interprets the schema (no code generation, no `eval`), so it runs
 * on edge runtimes with a strict CSP.
 */
export function createJsonSchemaValidator(schema: JsonSchema): ValueValidator {
  const validator = new Validator(schema, draftOf(schema), false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return { ok: true, value };
    // cfworker reports the parent keyword failure before the leaf cause; leaves are the useful part.
    const leaves = result.errors.filter((e) => !result.errors.some((other) => other !== e && other.instanceLocation.startsWith(e.instanceLocation + "/")));
    const shown = (leaves.length > 0 ? leaves : result.errors).slice(0, MAX_REPORTED);
    return {
      ok: false,
      message: shown.map((e) => `${e.instanceLocation.replace(/^#/, "") || "/"}: ${describeError(e)}`).join("; "),
    };
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

/** A validator backed by a zod schema (either major version); applies defaults and transforms. */
export function createZodValidator(schema: AnyZodSchema): ValueValidator {
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? { ok: true, value: parsed.data } : { ok: false, message: formatZodIssues(parsed.error) };
  };
}
