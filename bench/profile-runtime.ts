/**
 * Where a step's time goes: a CPU profile of the loop and of the runtime, every feature on, summed
 * by cost centre (model call plumbing, planning, policy and scope checks, event emission, tree
 * bookkeeping, audit, ...). Each sample is charged to the nearest frame in `src/` on its stack (so
 * promise machinery, zod and V8 builtins count for the code that called them); the file decides
 * the centre (table CENTRES below). Runs on the sources, in-process (node:inspector).
 *
 *   npx tsx --expose-gc bench/profile-runtime.ts [--target=loop|runtime|both] [--runs=400] [--interval=100]
 *
 * `loop`: the comparative bench's 50-step echo loop (bench/sdks/agentry.ts: shared budget with
 * limits set, defaultPolicy, zod tool, execution tree, every event read). `runtime`: turns of 2
 * model calls and 1 tool call through createAgentRuntime on MemorySessionStore, a new session
 * every 10 turns. Sampling slows the code: read the shares, not the absolute µs.
 *
 * For a flame graph instead: npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-runtime.ts,
 * then node bench/lib/profile-top.mjs /tmp/prof/<file>.cpuprofile.
 */
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  createTurnBudget,
  defaultPolicy,
  defineTool,
  MemorySessionStore,
  runUnifiedAgentLoop,
  type LoopEvent,
  type LoopResult,
  type Message,
} from "../src/index.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const target = option("target", "both");
const runs = Number(option("runs", "400"));
const interval = Number(option("interval", "100"));
const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** Cost centres by source file (relative to src/), first match wins. */
const CENTRES: [string, RegExp][] = [
  ["model call plumbing (call-model, fake provider)", /^(loop\/call-model|testing\/|providers\/)/],
  ["planning (plan per call, argument validation)", /^(loop\/plan-call|loop\/tool-call-args|tools\/|schema\/)/],
  ["policy and scope checks", /^(policy\/|internal\/toolbelt-scope|internal\/scope-filter|internal\/glob)/],
  ["event emission", /^(loop\/event-sink|runtime\/event-stream|runtime\/emit-isolated|delivery\/)/],
  ["tree bookkeeping", /^loop\/execution-tree/],
  ["audit", /^(runtime\/audit-trail|internal\/sha256|internal\/canonical-json)/],
  ["budget and context estimate", /^(loop\/budget|context\/)/],
  ["tool execution and results", /^(loop\/execute-plan|loop\/run-batch|loop\/tool-result)/],
  ["session store", /^(sessions\/|internal\/session-records|internal\/plain-json)/],
  ["runtime (admission, session state, leases, turn records)", /^runtime\//],
  ["loop driver (levels, signals, generator)", /^(loop\/|internal\/)/],
  ["other core code", /./],
];
const GC = "garbage collection";
const PROGRAM = "V8 native without a JS caller (microtask queue, promise jobs)";
const OUTSIDE = "outside the core (bench driver)";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Self time per cost centre, in µs. */
function centresOf(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node);
  }
  const centreOfNode = new Map<number, string>();
  const centreOf = (node: ProfileNode): string => {
    const known = centreOfNode.get(node.id);
    if (known !== undefined) return known;
    let centre: string;
    if (node.callFrame.functionName === "(garbage collector)") centre = GC;
    else if (node.callFrame.functionName === "(program)") centre = PROGRAM;
    else {
      let frame: ProfileNode | undefined = node;
      let path: string | undefined;
      for (; frame !== undefined && path === undefined; frame = parent.get(frame.id)) {
        const url = frame.callFrame.url.startsWith("file:") ? fileURLToPath(frame.callFrame.url) : frame.callFrame.url;
        if (url.startsWith(SRC)) path = url.slice(SRC.length);
      }
      centre = path === undefined ? OUTSIDE : CENTRES.find(([, pattern]) => pattern.test(path))![0];
    }
    centreOfNode.set(node.id, centre);
    return centre;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const centre = centreOf(byId.get(id)!);
    totals.set(centre, (totals.get(centre) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return totals;
}

const echo = defineTool({
  name: "echo",
  description: "Echo",
  input: z.object({ text: z.string() }),
  execute: async ({ text }) => text,
});
const usage = { inputTokens: 10, outputTokens: 5 };
const STEPS = 50;
const echoTurn = (callIndex: number): FakeTurn =>
  callIndex < STEPS - 1
    ? { toolCalls: [{ id: `call_${callIndex}`, name: "echo", args: { text: `ping ${callIndex}` } }], usage }
    : { text: "done", usage };
const policy = defaultPolicy();
const history: Message[] = [{ role: "user", content: "go" }];

/** One 50-step run of the comparative bench's loop, every event read. */
async function loopRun(): Promise<void> {
  const run = runUnifiedAgentLoop({
    provider: createFakeProvider((_request, callIndex) => echoTurn(callIndex), { record: false }),
    model: "fake-model",
    systemPrompt: "You are a benchmark.",
    history,
    tools: [echo],
    budget: createTurnBudget({
      maxParallelPerTurn: 32,
      maxIterationsPerLevel: STEPS + 10,
      maxTotalLlmCalls: STEPS + 10,
      maxTotalToolCalls: STEPS + 32,
      maxTotalTokens: 1_000_000_000,
      maxTotalResultBytes: 1_000_000_000,
    }),
    policy,
  });
  let origin = 0;
  let next: IteratorResult<LoopEvent, LoopResult>;
  while (!(next = await run.next()).done) origin += next.value.depth + (next.value.parentId === null ? 0 : 1);
  if (next.value.status !== "complete" || origin !== 0) throw new Error(`loop ended ${next.value.status}`);
}

const script = (request: { messages: Message[] }): FakeTurn =>
  request.messages[request.messages.length - 1]!.role === "tool"
    ? { text: "done", usage }
    : { toolCalls: [{ name: "echo", args: { text: "hi" } }], usage };
const runtime = createAgentRuntime({
  registry: createAgentRegistry([{ agentId: "bench", displayName: "Bench", systemPrompt: "You are a benchmark." }]),
  store: new MemorySessionStore(),
  providers: { fake: createFakeProvider(script, { record: false }) },
  defaultModel: "fake",
  tools: [echo],
});
let turns = 0;
/** One runtime turn (2 model calls, 1 tool call); a new session every 10 turns. */
async function runtimeTurn(): Promise<void> {
  const result = await runtime.send({
    agentId: "bench",
    content: "go",
    ...(turns++ % 10 === 0 ? { session: "create" as const } : {}),
  });
  if (result.status !== "complete") throw new Error(`turn ended ${result.status}`);
}

async function profileOf(
  name: string,
  task: () => Promise<void>,
  count: number,
  stepsPerRun: number,
  session: Session,
): Promise<void> {
  for (let i = 0; i < Math.min(50, count); i++) await task(); // warm-up (JIT)
  (globalThis as { gc?: () => void }).gc?.();
  await session.post("Profiler.setSamplingInterval", { interval });
  await session.post("Profiler.start");
  const start = performance.now();
  for (let i = 0; i < count; i++) await task();
  const wallMs = performance.now() - start;
  const { profile } = await session.post("Profiler.stop");
  const totals = centresOf(profile as unknown as Parameters<typeof centresOf>[0]);
  const sampled = [...totals.values()].reduce((a, b) => a + b, 0);
  const steps = count * stepsPerRun;
  console.log(
    `\n### ${name}: ${count} runs × ${stepsPerRun} steps, ${((wallMs * 1000) / steps).toFixed(2)} µs/step under the profiler\n`,
  );
  console.log("| cost centre | share | µs/step |\n| --- | ---: | ---: |");
  const order = [...CENTRES.map(([centre]) => centre), GC, PROGRAM, OUTSIDE];
  for (const centre of order) {
    const us = totals.get(centre) ?? 0;
    if (us === 0) continue;
    console.log(`| ${centre} | ${((100 * us) / sampled).toFixed(1)} % | ${(us / steps).toFixed(2)} |`);
  }
}

const session = new Session();
session.connect();
await session.post("Profiler.enable");
console.log(`## Per-step cost breakdown (Node ${process.version}, sampling every ${interval} µs)`);
if (target === "loop" || target === "both")
  await profileOf("loop, 50-step echo, events read", loopRun, runs, STEPS, session);
// A runtime turn is 2 model calls: counted as 2 steps.
if (target === "runtime" || target === "both")
  await profileOf("runtime turns (2 model calls, 1 tool call)", runtimeTurn, runs * 25, 2, session);
session.disconnect();
