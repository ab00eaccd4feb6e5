import { toJSONSchema } from "zod/v4/core";
import { zodToJsonSchema } from "zod-to-json-schema";
import type { AnyZodSchema, JsonSchema } from "../contracts/json-schema.js";

/** True for zod 4 schemas (they carry `_zod`). */
export function isZod4Schema(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** True for any zod schema, zod 3 or zod 4. */
export function isZodSchema(value: unknown): value is AnyZodSchema {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { safeParse?: unknown }).safeParse === "function" &&
    ("_zod" in value || "_def" in value)
  );
}

/**
 * The JSON Schema of a zod schema (zod 3 through zod-to-json-schema, zod 4 through its own
 * converter), or a plain JSON Schema returned as is. Input side: fields with defaults are optional.
 */
export function toJsonSchema(schema: AnyZodSchema | JsonSchema): JsonSchema {
  if (!isZodSchema(schema)) return schema;
  if (isZod4Schema(schema)) {
    const out = toJSONSchema(schema as never, { io: "input", unrepresentable: "any" }) as JsonSchema;
    return out;
  }
  const out = zodToJsonSchema(schema as never, { target: "jsonSchema7", $refStrategy: "none" }) as JsonSchema;
  return out;
}
