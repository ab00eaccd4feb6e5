// src/modes/parse-plan.ts for the core, with the calls of its parsePlan counted in
// globalThis.agentryParsePlanCalls (see shape-hooks.mjs and shape-checks.ts).
import * as actual from "../../src/modes/parse-plan.ts";

export * from "../../src/modes/parse-plan.ts";

export function parsePlan(content) {
  globalThis.agentryParsePlanCalls = (globalThis.agentryParsePlanCalls ?? 0) + 1;
  return actual.parsePlan(content);
}
