/** A JSON Schema (draft 2020-12 or draft 7) as a plain object. */
export type JsonSchema = { [keyword: string]: unknown };
