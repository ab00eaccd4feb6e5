import { Validator } from "@cfworker/json-schema";
import type { JsonSchema } from "../contracts/json-schema.js";
import { compileBoundedSchema, jsonBytes, resolveLocalRef, type SchemaLimits } from "./compile-bounded-schema.js";
import { decidePatterns } from "./pattern-decisions.js";
import { walkSchema } from "./schema-work.js";
import { draftOf, validationMessage, type ValueValidator } from "./validate.js";

/** Options of {@link createBoundedValidator}. */
export interface BoundedValidatorOptions {
  limits: SchemaLimits;
  /** Largest value accepted, in bytes of JSON (a larger one is an error to fix, not a check). */
  maxValueBytes: number;
  /** What the values are, for messages ("the result", "the arguments"). */
  subject: string;
}

/**
 * A validator for a schema from outside the package, with bounded cost: the schema keeps
 * `options.limits` (else {@link SchemaLimitError} at once); each value is refused, with a message
 * saying what to change, when it is over `maxValueBytes`, when walking it through the schema
 * needs more than `maxValidationSteps` (subschema, value node) pairs, or when its strings need
 * more than `maxRegexSteps` of the linear-time regex engine. Never throws for a value.
 */
export function createBoundedValidator(schema: unknown, options: BoundedValidatorOptions): ValueValidator {
  const compiled = compileBoundedSchema(schema, options.limits);
  const draft = draftOf(compiled.schema);
  const plain = new Validator(compiled.schema, draft, false);
  const { limits: L, subject } = options;
  const resolve = (node: JsonSchema) => resolveLocalRef(compiled.schema, node);
  return (value) => {
    let bytes: number;
    try {
      bytes = jsonBytes(value);
    } catch {
      return { ok: false, message: `${subject} is not plain JSON (or nests too deep)` };
    }
    if (bytes > options.maxValueBytes)
      return {
        ok: false,
        message: `${subject} is ${bytes} bytes of JSON; at most ${options.maxValueBytes} are allowed: make it smaller`,
      };
    if (compiled.usesUniqueItems) {
      const longest = longestArray(value);
      if (longest > L.maxUniqueItems)
        return {
          ok: false,
          message: `an array has ${longest} items; uniqueItems is checked on at most ${L.maxUniqueItems}`,
        };
    }
    const inputs = walkSchema(compiled.schema, value, resolve, L.maxValidationSteps);
    if (!inputs)
      return {
        ok: false,
        message: `${subject} is too large to check against this schema (over ${L.maxValidationSteps} steps): make it smaller`,
      };
    let validator = plain;
    const failed = new Set<string>();
    if (compiled.patterns.values.size > 0) {
      const decided = decidePatterns(compiled.schema, compiled.patterns, inputs, { steps: L.maxRegexSteps }, failed);
      if (decided === undefined)
        return {
          ok: false,
          message: `${subject}'s strings are too long to check against the schema's patterns: shorten them`,
        };
      validator = new Validator(decided as JsonSchema, draft, false);
    }
    try {
      return validationMessage(validator.validate(value), value, failed);
    } catch (error) {
      return {
        ok: false,
        message: `${subject} cannot be checked against this schema (${error instanceof Error ? error.message : String(error)})`,
      };
    }
  };
}

/** The length of the longest array in a JSON value (iterative: deep values are fine). */
function longestArray(value: unknown): number {
  let longest = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      longest = Math.max(longest, item.length);
      for (const inner of item) stack.push(inner);
    } else if (typeof item === "object" && item !== null) for (const inner of Object.values(item)) stack.push(inner);
  }
  return longest;
}
