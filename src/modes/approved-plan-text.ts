import type { Plan, PlanStep } from "../contracts/plan.js";

/** Characters that could open or close a tag around the plan, or end a line in a JSON-in-script reader. */
const UNSAFE = /[<>&\u2028\u2029]/g;

const escape = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * The plan as the actor gets it on approval: exactly the parsed plan a reviewer was shown
 * (unknown fields were dropped by the parse), as JSON with a fixed key order, and with `<`, `>`,
 * `&`, U+2028 and U+2029 written as `\u` escapes. The text stays valid JSON for the same plan,
 * and nothing the planner wrote can close the runtime's `<approved_plan>` wrapper.
 */
export function approvedPlanText(plan: Plan): string {
  const canonical = {
    type: plan.type,
    format_version: plan.format_version,
    goal: plan.goal,
    steps: plan.steps.map(canonicalStep),
    ...(plan.estimated_total_time !== undefined && { estimated_total_time: plan.estimated_total_time }),
    ...(plan.risks !== undefined && { risks: plan.risks }),
    ...(plan.prerequisites !== undefined && { prerequisites: plan.prerequisites }),
    ...(plan.completion_criteria !== undefined && { completion_criteria: plan.completion_criteria }),
  };
  return wrappableJson(canonical);
}

/**
 * `value` as indented JSON with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes: still
 * the same JSON, and nothing inside can close a tag the runtime wraps it in.
 */
export function wrappableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE, escape);
}

function canonicalStep(step: PlanStep): PlanStep {
  return {
    step_number: step.step_number,
    action: step.action,
    ...(step.reason !== undefined && { reason: step.reason }),
    ...(step.tools_needed !== undefined && { tools_needed: step.tools_needed }),
    ...(step.estimated_time !== undefined && { estimated_time: step.estimated_time }),
  };
}
