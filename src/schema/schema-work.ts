import type { JsonSchema } from "../contracts/json-schema.js";

/** Finds the subschema a `$ref` node points to, or `undefined` when it cannot be followed. */
export type RefResolver = (node: JsonSchema) => unknown;

/**
 * What a value asks of a schema's patterns: the strings each `pattern` and each `patternProperties` name is tested on.
 */
export interface PatternInputs {
  /** `pattern` source → the strings it applies to. */
  values: Map<string, Set<string>>;
  /** `patternProperties` name → the property names it is tested on. */
  keys: Map<string, Set<string>>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function add(map: Map<string, Set<string>>, source: string, text: string): void {
  let set = map.get(source);
  if (!set) map.set(source, (set = new Set()));
  set.add(text);
}

/**
 * Walks `value` through `schema` the way a validator can apply it, without checking anything:
 * every (subschema, value node) pair a validator may visit costs one step (an `enum` one step
 * per entry, `uniqueItems` n²/2). Returns the strings each pattern applies to, or `undefined` when
 * the walk needs more than `maxSteps`: an upper bound of the validator's work, so a `$defs` chain
 * that doubles at each level, a huge value or a `$ref` cycle that does not descend into the value
 * is refused before the validator runs. Iterative: deep values and schemas cannot overflow the stack.
 */
export function walkSchema(
  schema: unknown,
  value: unknown,
  resolve: RefResolver,
  maxSteps: number,
): PatternInputs | undefined {
  const inputs: PatternInputs = { values: new Map(), keys: new Map() };
  let steps = 0;
  const stack: [unknown, unknown][] = [[schema, value]];
  while (stack.length > 0) {
    const [node, instance] = stack.pop()!;
    if (!isObject(node)) continue;
    steps += 1 + (Array.isArray(node.enum) ? node.enum.length : 0);
    if (steps > maxSteps) return undefined;
    const same = (sub: unknown) => stack.push([sub, instance]);
    if (typeof node.$ref === "string" || typeof node.$recursiveRef === "string") same(resolve(node));
    for (const key of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach(same);
    for (const key of ["not", "if", "then", "else"]) if (node[key] !== undefined) same(node[key]);
    if (typeof instance === "string") {
      if (typeof node.pattern === "string") add(inputs.values, node.pattern, instance);
    } else if (Array.isArray(instance)) {
      if (node.uniqueItems === true) steps += (instance.length * instance.length) / 2;
      if (steps > maxSteps) return undefined;
      const each = (sub: unknown) => {
        if (sub !== undefined) for (const item of instance) stack.push([sub, item]);
      };
      const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
      (tuple as unknown[]).forEach((sub, index) => index < instance.length && stack.push([sub, instance[index]]));
      if (!Array.isArray(node.items)) each(node.items);
      each(node.additionalItems);
      each(node.unevaluatedItems);
      each(node.contains);
    } else if (isObject(instance)) {
      const keys = Object.keys(instance);
      steps += keys.length;
      if (steps > maxSteps) return undefined;
      if (isObject(node.properties))
        for (const [name, sub] of Object.entries(node.properties))
          if (Object.hasOwn(instance, name)) stack.push([sub, instance[name]]);
      for (const key of ["additionalProperties", "unevaluatedProperties"])
        if (node[key] !== undefined) for (const name of keys) stack.push([node[key], instance[name]]);
      if (isObject(node.patternProperties)) {
        for (const [source, sub] of Object.entries(node.patternProperties)) {
          for (const name of keys) {
            add(inputs.keys, source, name);
            stack.push([sub, instance[name]]);
          }
        }
      }
      if (node.propertyNames !== undefined) for (const name of keys) stack.push([node.propertyNames, name]);
      for (const key of ["dependentSchemas", "dependencies"]) {
        const map = node[key];
        if (isObject(map))
          for (const [name, sub] of Object.entries(map))
            if (Object.hasOwn(instance, name) && !Array.isArray(sub)) same(sub);
      }
    }
    if (steps > maxSteps) return undefined;
  }
  return inputs;
}
