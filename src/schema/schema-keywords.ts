/** Keywords whose value is one subschema. */
export const SINGLE_SCHEMA = new Set([
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
/** Keywords whose value is an array of subschemas. */
export const SCHEMA_ARRAY = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP = new Set([
  "$defs",
  "definitions",
  "properties",
  "patternProperties",
  "dependentSchemas",
  "dependencies",
]);
/** Keywords whose value is data, never a schema. */
export const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

/**
 * Calls `visit` for every subschema directly under `node` (one level), with its key path; a
 * `dependencies` entry that is an array of names is not a schema and is skipped.
 */
export function forEachChildSchema(
  node: Record<string, unknown>,
  visit: (child: unknown, key: string, name?: string) => void,
): void {
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_ARRAY.has(key) && Array.isArray(value)) value.forEach((item, index) => visit(item, key, String(index)));
    else if (SINGLE_SCHEMA.has(key)) visit(value, key);
    else if (SCHEMA_MAP.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      for (const [name, sub] of Object.entries(value))
        if (!(key === "dependencies" && Array.isArray(sub))) visit(sub, key, name);
    }
  }
}
