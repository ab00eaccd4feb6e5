/** A JSON Schema (draft 2020-12 or draft 7) as a plain object. */
export type JsonSchema = { [keyword: string]: unknown };

/** A zod schema of either major version (zod 3.25+ classic, or zod 4 / `zod/v4`). */
export interface AnyZodSchema {
  safeParse(data: unknown): { success: true; data: unknown } | { success: false; error: unknown };
}

/** A JSON value: what survives `JSON.stringify` and `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
