// Ad-hoc: per-step cost of each no-op hook on the 50-step echo loop (built dist).
import { z } from "zod";
const core = await import("../dist/index.js");
const { createFakeProvider } = await import("../dist/testing.js");
const { defineTool, runUnifiedAgentLoop, createTurnBudget } = core;
const STEPS = 50;
const echo = defineTool({
  name: "echo",
  description: "e",
  input: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
});
const usage = { inputTokens: 10, outputTokens: 5 };
const turn = (i) =>
  i < STEPS - 1 ? { toolCalls: [{ id: `c${i}`, name: "echo", args: { text: "x" } }], usage } : { text: "done", usage };
async function once(hooks) {
  const run = runUnifiedAgentLoop({
    provider: createFakeProvider((_r, i) => turn(i), { record: false }),
    model: "m",
    systemPrompt: "s",
    history: [{ role: "user", content: "go" }],
    tools: [echo],
    budget: createTurnBudget({ maxIterationsPerLevel: 100, maxTotalLlmCalls: 100 }),
    ...(hooks ? { hooks } : {}),
  });
  let n = await run.next();
  while (!n.done) n = await run.next();
}
const variants = {
  none: undefined,
  prepareStep: { prepareStep: () => undefined },
  stopWhen: { stopWhen: () => false },
  beforeToolCall: { beforeToolCall: () => undefined },
  afterToolCall: { afterToolCall: () => undefined },
  all: {
    prepareStep: () => undefined,
    stopWhen: () => false,
    beforeToolCall: () => undefined,
    afterToolCall: () => undefined,
  },
};
for (let round = 0; round < 3; round++) {
  for (const [name, hooks] of Object.entries(variants)) {
    for (let i = 0; i < 50; i++) await once(hooks);
    const t = performance.now();
    const N = 300;
    for (let i = 0; i < N; i++) await once(hooks);
    console.log(round, name, (((performance.now() - t) * 1000) / N / STEPS).toFixed(2), "µs/step");
  }
}
