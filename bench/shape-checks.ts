/**
 * Shape checks: what the core does, counted, where a test could only see it by mocking modules.
 *
 *   npx tsx bench/shape-checks.ts          (also the first step of `npm run bench`)
 *
 * - Cold start: importing `@agentry/core` builds no zod schema (zod 4 compiles each kind of schema
 *   on first use: the plan, question and agent definition schemas cost about 20 ms at import). The
 *   exported schemas are `z.lazy` wrappers whose schema is built on first use.
 * - A `create_artifact` call's plan is parsed once: for the message's type, the tool's check and
 *   `plan_ready`; a second call with the same content is parsed again (nothing is kept).
 *
 * Runs the sources (tsx), in one fresh process: lib/shape-hooks.mjs hands the core a zod that
 * records every `z.<function>()` call and a parse-plan module that counts `parsePlan` calls.
 * Prints a table; exits 1 when a check fails.
 */
import { register } from "node:module";

declare global {
  var agentryZodCalls: string[] | undefined;
  var agentryParsePlanCalls: number | undefined;
}

register("./lib/shape-hooks.mjs", import.meta.url);

interface Check {
  name: string;
  observed: number;
  limit: string;
  pass: boolean;
}
const checks: Check[] = [];
const check = (name: string, observed: number, limit: string, pass: (value: number) => boolean) =>
  checks.push({ name, observed, limit, pass: pass(observed) });

// --- cold start ---------------------------------------------------------------------------------

globalThis.agentryZodCalls = [];
const zodCalls = globalThis.agentryZodCalls;
const built = () => zodCalls.filter((name) => name !== "lazy").length;
const core = await import("../src/index.ts");
check("zod schemas built while importing @agentry/core", built(), "0", (n) => n === 0);

// First use builds them (so the counter sees the core's zod), and they behave like eager schemas.
const plan = { type: "plan", format_version: "1.0", goal: "g", steps: [{ step_number: 1, action: "a" }] };
const accepted = core.PlanSchema.safeParse(plan).success;
const refused = !core.PlanSchema.safeParse({ ...plan, steps: [{ step_number: 2, action: "a" }] }).success;
check("zod calls on first use of PlanSchema (the counter works)", built(), "> 0", (n) => n > 0 && accepted && refused);

// --- a plan is parsed once ----------------------------------------------------------------------

const { createFakeProvider } = await import("../src/entries/testing.ts");
const planner = { agentId: "planner", displayName: "Planner", role: "planner" };
const planText = "Goal: tidy the notes\n\n1. Read the notes\n2. Merge duplicates";

/** One turn in which the planner submits the same plan `submissions` times; parses counted. */
async function planTurn(submissions: number): Promise<{ parses: number; planReady: number; planMessages: number }> {
  let calls = 0;
  const provider = createFakeProvider((request) => {
    if (request.messages.at(-1)?.role === "tool" && calls >= submissions) return { text: "Submitted." };
    calls++;
    const args = { filename: "plan.md", kind: "plan", content: planText };
    return { toolCalls: [{ id: `c${calls}`, name: "create_artifact", args }] };
  });
  const runtime = core.createAgentRuntime({
    registry: core.createAgentRegistry([planner]),
    store: new core.MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake-model",
  });
  globalThis.agentryParsePlanCalls = 0;
  let planReady = 0;
  let planMessages = 0;
  for await (const event of runtime.stream({ agentId: "planner", content: "tidy" })) {
    if (event.type === "plan_ready" && event.plan.goal === "tidy the notes") planReady++;
    if (event.type === "message" && event.message.role === "assistant" && event.message.messageType === "plan")
      planMessages++;
  }
  const parses = globalThis.agentryParsePlanCalls;
  await runtime.close();
  return { parses, planReady, planMessages };
}

const once = await planTurn(1);
// All three uses happened (the message's type, the tool's check, plan_ready), on one parse.
check("parsePlan calls for one create_artifact plan", once.parses, "1", (n) => n === 1 && once.planReady === 1);
const twice = await planTurn(2);
check(
  "parsePlan calls for two calls with the same plan",
  twice.parses,
  "2",
  (n) => n === 2 && twice.planReady === 2 && twice.planMessages === 2,
);

// --- report -------------------------------------------------------------------------------------

console.log("| shape check | observed | limit | |");
console.log("| --- | --- | --- | --- |");
for (const c of checks) console.log(`| ${c.name} | ${c.observed} | ${c.limit} | ${c.pass ? "PASS" : "FAIL"} |`);
process.exitCode = checks.every((c) => c.pass) ? 0 : 1;
