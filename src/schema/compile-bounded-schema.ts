import type { JsonSchema } from "../contracts/json-schema.js";
import { compilePattern, type CompiledPatterns } from "./pattern-decisions.js";
import { SCHEMA_ARRAY, SCHEMA_MAP, SINGLE_SCHEMA } from "./schema-keywords.js";
import { SchemaLimitError } from "./schema-limit-error.js";

/** The bounds a schema from outside the package (the model's, an MCP server's) must keep. */
export interface SchemaLimits {
  /** Longest schema, in bytes of JSON. */
  maxSchemaBytes: number;
  /** Deepest nesting of subschemas. */
  maxDepth: number;
  /** Most subschemas, counted with every `$ref` inlined (so a chain of `$defs` cannot double up). */
  maxExpandedNodes: number;
  /** Longest `pattern`, in characters. */
  maxPatternLength: number;
  /** Most different `pattern`s. */
  maxPatterns: number;
  /** Regex work allowed for one value (Pike-VM steps over all patterns and strings). */
  maxRegexSteps: number;
  /** Longest array checked against `uniqueItems` (the check is quadratic). */
  maxUniqueItems: number;
  /** Validation work allowed for one value: (subschema, value node) pairs a validator may visit. */
  maxValidationSteps: number;
}

/** A schema that passed {@link compileBoundedSchema}: the copy to validate with, and its patterns. */
export interface BoundedSchema {
  /** The schema as checked: `format` dropped (an annotation in 2020-12), otherwise as written. */
  schema: JsonSchema;
  patterns: CompiledPatterns;
  usesUniqueItems: boolean;
}

const FORBIDDEN: Record<string, string> = {
  $id: "$id is not supported: use $defs with local $refs",
  id: "id is not supported: use $defs with local $refs",
  $anchor: "$anchor is not supported: use $defs with local $refs",
  $dynamicRef: "$dynamicRef is not supported: use $refs to #/$defs/<name>",
  $dynamicAnchor: "$dynamicAnchor is not supported",
  $recursiveRef: "$recursiveRef is not supported (recursive schemas are not allowed)",
  $recursiveAnchor: "$recursiveAnchor is not supported",
  patternProperties: "patternProperties is not supported: list the properties, or use additionalProperties",
};
const TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);
const REF = /^#\/(\$defs|definitions)\/([A-Za-z0-9_.-]{1,64})$/;

/** JSON bytes of a JSON value (strings counted in UTF-8); throws for what JSON cannot hold. */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? "";
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

/** The subschema a local `$ref` (`#/$defs/<name>`, `#/definitions/<name>`) of a bounded schema names. */
export function resolveLocalRef(root: JsonSchema, node: JsonSchema): unknown {
  const match = typeof node.$ref === "string" ? REF.exec(node.$ref) : null;
  if (!match) return undefined;
  const defs = root[match[1]!];
  return typeof defs === "object" && defs !== null && Object.hasOwn(defs, match[2]!)
    ? (defs as JsonSchema)[match[2]!]
    : undefined;
}

/**
 * Checks a schema from outside against `limits` and compiles its patterns for the linear-time
 * engine. Rules besides the limits: `$ref`s are local (`#/$defs/<name>`, `#/definitions/<name>`),
 * resolve, and never form a cycle; `$id`, anchors, dynamic and recursive references and
 * `patternProperties` are refused; `format` is dropped (an annotation). Throws
 * {@link SchemaLimitError} naming the first rule broken and what to change.
 */
export function compileBoundedSchema(root: unknown, limits: SchemaLimits): BoundedSchema {
  const L = limits;
  if (typeof root !== "object" || root === null || Array.isArray(root))
    throw new SchemaLimitError("the schema must be a JSON object");
  let bytes: number;
  try {
    bytes = jsonBytes(root);
  } catch {
    throw new SchemaLimitError("the schema must be plain JSON");
  }
  if (bytes > L.maxSchemaBytes)
    throw new SchemaLimitError(
      `the schema is ${bytes} bytes; at most ${L.maxSchemaBytes} are allowed: make it smaller`,
    );
  const rootObject = root as JsonSchema;
  const patterns: CompiledPatterns = { values: new Map(), keys: new Map() };
  let usesUniqueItems = false;
  // Which definitions each definition (or the root, "#") references: for cycles and expansion.
  const refsOf = new Map<string, string[]>();
  // Subschemas of each definition (or the root) without its references inlined.
  const ownNodes = new Map<string, number>();
  const defined = (ref: string): boolean => resolveLocalRef(rootObject, { $ref: ref }) !== undefined;

  const visit = (node: unknown, path: string, depth: number, owner: string): unknown => {
    if (typeof node === "boolean") return node;
    if (typeof node !== "object" || node === null || Array.isArray(node))
      throw new SchemaLimitError(`${path || "/"}: a subschema must be an object or a boolean`);
    if (depth > L.maxDepth) throw new SchemaLimitError(`${path}: subschemas nest deeper than ${L.maxDepth} levels`);
    ownNodes.set(owner, (ownNodes.get(owner) ?? 0) + 1);
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      const at = `${path}/${key}`;
      if (key === "__proto__") throw new SchemaLimitError(`${at}: "__proto__" is not allowed as a keyword`);
      if (Object.hasOwn(FORBIDDEN, key) && (key !== "id" || typeof value === "string"))
        throw new SchemaLimitError(`${at}: ${FORBIDDEN[key]}`);
      if (key === "format") continue;
      if (key === "$ref") {
        if (typeof value !== "string" || !REF.test(value)) {
          throw new SchemaLimitError(
            `${at}: only local references of the form "#/$defs/<name>" are supported (got ${JSON.stringify(value).slice(0, 80)}); recursive schemas are not allowed`,
          );
        }
        if (!defined(value)) throw new SchemaLimitError(`${at}: "${value}" resolves to nothing: define it under $defs`);
        refsOf.get(owner)!.push(value);
        out[key] = value;
      } else if (key === "pattern") {
        if (typeof value !== "string") throw new SchemaLimitError(`${at}: must be a string`);
        if (value.length > L.maxPatternLength)
          throw new SchemaLimitError(`${at}: patterns may be at most ${L.maxPatternLength} characters`);
        if (!patterns.values.has(value)) {
          if (patterns.values.size >= L.maxPatterns)
            throw new SchemaLimitError(`${at}: at most ${L.maxPatterns} different patterns are allowed`);
          patterns.values.set(value, compilePattern(value, at));
        }
        out[key] = value;
      } else if (key === "type") {
        const types = Array.isArray(value) ? (value as unknown[]) : [value];
        const bad = types.find((t) => typeof t !== "string" || !TYPES.has(t));
        if (bad !== undefined || types.length === 0)
          throw new SchemaLimitError(
            `${at}: must be one of ${[...TYPES].join(", ")} (or an array of them), got ${JSON.stringify(bad ?? value).slice(0, 40)}`,
          );
        out[key] = value;
      } else if (key === "uniqueItems") {
        usesUniqueItems ||= value === true;
        out[key] = value;
      } else if (SCHEMA_ARRAY.has(key) && Array.isArray(value)) {
        out[key] = value.map((item, index) => visit(item, `${at}/${index}`, depth + 1, owner));
      } else if (SINGLE_SCHEMA.has(key)) {
        out[key] = visit(value, at, depth + 1, owner);
      } else if (SCHEMA_MAP.has(key)) {
        if (typeof value !== "object" || value === null || Array.isArray(value))
          throw new SchemaLimitError(`${at}: must be an object`);
        const map: JsonSchema = {};
        for (const [name, sub] of Object.entries(value)) {
          if (name === "__proto__") throw new SchemaLimitError(`${at}: "__proto__" is not allowed as a name`);
          // Definitions are walked on their own (below), each as an owner of its references.
          if ((key === "$defs" || key === "definitions") && depth === 0) map[name] = sub;
          else if (key === "dependencies" && Array.isArray(sub)) map[name] = sub;
          else map[name] = visit(sub, `${at}/${name}`, depth + 1, owner);
        }
        out[key] = map;
      } else out[key] = value;
    }
    return out;
  };

  refsOf.set("#", []);
  const schema = visit(rootObject, "", 0, "#") as JsonSchema;
  for (const bucket of ["$defs", "definitions"] as const) {
    const defs = rootObject[bucket];
    if (typeof defs !== "object" || defs === null) continue;
    for (const [name, sub] of Object.entries(defs)) {
      const owner = `#/${bucket}/${name}`;
      refsOf.set(owner, []);
      (schema[bucket] as JsonSchema)[name] = visit(sub, owner.slice(1), 1, owner);
    }
  }
  checkExpansion(refsOf, ownNodes, L.maxExpandedNodes);
  return { schema, patterns, usesUniqueItems };
}

/** No cycles (a schema that refers back to itself), and a bounded size with references inlined. */
function checkExpansion(refsOf: Map<string, string[]>, ownNodes: Map<string, number>, maxExpandedNodes: number): void {
  const expanded = new Map<string, number>();
  const state = new Map<string, "open" | "done">();
  const size = (owner: string): number => {
    if (state.get(owner) === "done") return expanded.get(owner)!;
    if (state.get(owner) === "open")
      throw new SchemaLimitError(
        `"${owner}" refers back to itself through $ref: recursive schemas are not allowed; write the nesting out to a fixed depth`,
      );
    state.set(owner, "open");
    let total = ownNodes.get(owner) ?? 0;
    for (const ref of refsOf.get(owner) ?? []) {
      total += size(ref);
      if (total > maxExpandedNodes)
        throw new SchemaLimitError(
          `the schema has more than ${maxExpandedNodes} subschemas once its $refs are inlined: make it smaller`,
        );
    }
    state.set(owner, "done");
    expanded.set(owner, total);
    return total;
  };
  for (const owner of refsOf.keys()) size(owner);
}
