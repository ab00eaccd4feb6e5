import type { SchemaLimits } from "./compile-bounded-schema.js";
import { createBoundedValidator } from "./bounded-validator.js";
import { MODEL_SCHEMA_LIMITS } from "./model-schema-validator.js";
import type { ValueValidator } from "./validate.js";

/**
 * The limits of a JSON Schema from outside the package other than the model's (an MCP server's
 * input and output schemas): the same as {@link MODEL_SCHEMA_LIMITS}, so 16 KB, 32 levels, 5,000
 * subschemas with `$ref`s inlined, 32 patterns of at most 1,000 characters, 5,000,000 regex steps
 * and 1,000,000 validation steps per value, `uniqueItems` on at most 2,000 items.
 */
export const OUTSIDE_SCHEMA_LIMITS: Readonly<SchemaLimits> = MODEL_SCHEMA_LIMITS;

/** Options of {@link createOutsideSchemaValidator}. */
export interface OutsideSchemaValidatorOptions {
  /** Longest schema, in bytes of JSON. @default 16_384 */
  maxSchemaBytes?: number;
  /** Largest value accepted, in bytes of JSON. */
  maxValueBytes: number;
  /** What the values are, for messages ("the arguments"). */
  subject: string;
}

/**
 * A validator for a schema the package did not write and the model did not write either (an MCP
 * server's): the rules and bounds of the model's schemas ({@link OUTSIDE_SCHEMA_LIMITS}, with
 * `maxSchemaBytes` from the options). Throws `SchemaLimitError` for a schema that breaks them;
 * never throws for a value.
 */
export function createOutsideSchemaValidator(schema: unknown, options: OutsideSchemaValidatorOptions): ValueValidator {
  const limits = {
    ...OUTSIDE_SCHEMA_LIMITS,
    maxSchemaBytes: options.maxSchemaBytes ?? OUTSIDE_SCHEMA_LIMITS.maxSchemaBytes,
  };
  return createBoundedValidator(schema, { limits, maxValueBytes: options.maxValueBytes, subject: options.subject });
}
