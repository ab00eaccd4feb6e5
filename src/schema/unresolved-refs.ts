import { dereference } from "@cfworker/json-schema";
import type { JsonSchema } from "../contracts/json-schema.js";

// Keywords whose values are data, not schemas: a "$ref" inside them is not a reference.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "example"]);

/**
 * The `$ref`s of a JSON Schema that do not resolve (as the validator resolves them: JSON pointers
 * into the schema, `$id`s and `$anchor`s), in document order. Such a schema validates until a
 * value reaches the reference, then throws; `defineTool` rejects it up front instead.
 */
export function unresolvedRefs(schema: JsonSchema): string[] {
  const lookup: Record<string, unknown> = dereference(schema);
  const found: string[] = [];
  const seen = new Set<object>();
  const walk = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    // The validator marks each reference it will follow with its absolute form.
    const absolute = (node as { __absolute_ref__?: unknown }).__absolute_ref__;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && typeof absolute === "string" && lookup[absolute] === undefined) found.push(ref);
    for (const [key, value] of Object.entries(node)) if (!DATA_KEYWORDS.has(key)) walk(value);
  };
  walk(schema);
  return found;
}
