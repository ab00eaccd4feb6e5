// Module resolve hooks for shape-checks.ts (registered with node:module's register()): the core's
// imports of "zod" get lib/counting-zod.mjs, and every import of src/modes/parse-plan.ts gets
// lib/counting-parse-plan.mjs. Each wrapper imports the real module itself (passed through here).
import { URL } from "node:url";

const srcURL = new URL("../../src/", import.meta.url).href;
const countingZod = new URL("./counting-zod.mjs", import.meta.url).href;
const countingParsePlan = new URL("./counting-parse-plan.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? "";
  if (specifier === "zod" && parent.startsWith(srcURL)) return { url: countingZod, shortCircuit: true };
  // The real zod, resolved as the core resolves it (not bench/node_modules' copy).
  if (specifier === "zod" && parent === countingZod) return next(specifier, { ...context, parentURL: srcURL });
  const resolved = await next(specifier, context);
  if (resolved.url.endsWith("/src/modes/parse-plan.ts") && parent !== countingParsePlan) {
    return { url: countingParsePlan, shortCircuit: true };
  }
  return resolved;
}
