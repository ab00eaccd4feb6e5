import type { SchemaLimits } from "./compile-bounded-schema.js";
import { createBoundedValidator } from "./bounded-validator.js";
import type { ValueValidator } from "./validate.js";

/**
 * The limits of a JSON Schema the model writes itself (`run_subtask`'s `output_schema`). A model
 * schema is hostile input: these keep compiling it and checking any value against it bounded
 * in time and memory, whatever it holds.
 */
export const MODEL_SCHEMA_LIMITS: Readonly<SchemaLimits> = Object.freeze({
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
  /** Validation work allowed for one value: (subschema, value node) pairs a validator may visit. */
  maxValidationSteps: 1_000_000,
});

/** Options of {@link createModelSchemaValidator}. */
export interface ModelSchemaValidatorOptions {
  /** Largest value accepted, in bytes of JSON (a larger one is an error to fix, not a check). */
  maxValueBytes: number;
}

/**
 * A validator for a JSON Schema the model supplied, with bounded cost (see
 * {@link MODEL_SCHEMA_LIMITS}): the schema is at most 16 KB, 32 levels deep and 5,000 subschemas
 * with `$ref`s inlined; `$ref`s are local (`#/$defs/<name>`, `#/definitions/<name>`), resolve,
 * and never form a cycle; `$id`, anchors, dynamic and recursive references and
 * `patternProperties` are refused; `format` is an annotation (not checked); `pattern`s are run by
 * a linear-time engine (no backreferences or lookaround), with a step budget per value; values
 * over `maxValueBytes`, values needing more than 1,000,000 validation steps, and arrays over
 * 2,000 items under `uniqueItems`, are refused.
 *
 * Throws `SchemaLimitError` with a message the model can act on when the schema breaks a rule.
 */
export function createModelSchemaValidator(schema: unknown, options: ModelSchemaValidatorOptions): ValueValidator {
  return createBoundedValidator(schema, {
    limits: MODEL_SCHEMA_LIMITS,
    maxValueBytes: options.maxValueBytes,
    subject: "the result",
  });
}
