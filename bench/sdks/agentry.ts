/**
 * Agentry, from the BUILT package (`npm run build` at the project root first): `runUnifiedAgentLoop`
 * with every feature on — a shared `createTurnBudget` budget (token and byte limits set, so those
 * checks run too), the default tool policy enforced at dispatch, a zod `defineTool` (argument
 * validation), the execution tree, events read with their `depth`/`parentId` — on
 * `createFakeProvider(script, { record: false })` with a function script that builds each turn on demand.
 */
import type * as Core from "../../src/index.ts";
import type * as Testing from "../../src/entries/testing.ts";
import type { FakeTurn } from "../../src/entries/testing.ts";
import type { LoopEvent, LoopResult, Message, Tool } from "../../src/index.ts";
import { z } from "zod";
import {
  check,
  DELTA_TEXT,
  ECHO_STEPS,
  FANOUT_CALLS,
  FANOUT_SLEEP_MS,
  FINAL_TEXT,
  MESSAGES_PER_SESSION,
  sessionText,
  sleep,
  STREAM_DELTAS,
  type BenchSdk,
  type EchoMode,
} from "../lib/contract.js";

// The BUILT package is what is measured; its types are the sources'. The specifier is a variable so
// that type-checking the benchmark needs no build. AGENTRY_DIST (a path ending in "/", relative to this file or
// absolute) measures another build, e.g. a copy of the previous one for a before/after.
const dist = process.env.AGENTRY_DIST ?? "../../dist/";
const core = (await import(`${dist}index.js`)) as typeof Core;
const { createFakeProvider } = (await import(`${dist}testing.js`)) as typeof Testing;

const { createTurnBudget, defineTool, runUnifiedAgentLoop } = core;
const defaultPolicy = (core as { defaultPolicy?: () => unknown }).defaultPolicy;
const MemorySessionStore = (core as { MemorySessionStore?: new () => SessionStoreLike }).MemorySessionStore;

interface SessionStoreLike {
  createSession(init: { agentId: string; sessionId?: string }): Promise<{ sessionId: string }>;
  append(sessionId: string, records: { id: string; frame: null; kind: "message"; message: Message }[]): Promise<unknown>;
}

const usage = { inputTokens: 10, outputTokens: 5 };
const streamChunks: string[] = new Array<string>(STREAM_DELTAS).fill(DELTA_TEXT);

const echoTurn = (callIndex: number): FakeTurn =>
  callIndex < ECHO_STEPS - 1
    ? { toolCalls: [{ id: `call_${callIndex}`, name: "echo", args: { text: `ping ${callIndex}` } }], usage }
    : { text: FINAL_TEXT, usage };
const fanOutTurn = (callIndex: number): FakeTurn =>
  callIndex === 0
    ? { toolCalls: Array.from({ length: FANOUT_CALLS }, (_, i) => ({ id: `call_${i}`, name: "nap", args: { i } })), usage }
    : { text: FINAL_TEXT, usage };
const streamTurn = (): FakeTurn => ({ chunks: streamChunks, usage });

let echoCalls = 0;
const tools: Tool[] = [
  defineTool({
    name: "echo",
    description: "Echo the text back",
    input: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      echoCalls++;
      return text;
    },
  }),
  defineTool({
    name: "nap",
    description: "Sleep, then answer",
    input: z.object({ i: z.number() }),
    execute: async () => {
      await sleep(FANOUT_SLEEP_MS);
      return "rested";
    },
  }),
];
const history: Message[] = [{ role: "user", content: "go" }];
const policy = defaultPolicy?.();
// AGENTRY_HOOKS=1: the same runs with hooks that do nothing, to measure what having hooks costs.
const hooks = process.env.AGENTRY_HOOKS
  ? {
      prepareStep: () => undefined,
      stopWhen: () => false,
      beforeToolCall: () => undefined,
      afterToolCall: () => undefined,
    }
  : undefined;

function loop(turn: (callIndex: number) => FakeTurn): AsyncGenerator<LoopEvent, LoopResult> {
  return runUnifiedAgentLoop({
    provider: createFakeProvider((_request, callIndex) => turn(callIndex), { record: false }),
    model: "fake-model",
    systemPrompt: "You are a benchmark.",
    history,
    tools,
    budget: createTurnBudget({
      maxParallelPerTurn: FANOUT_CALLS,
      maxIterationsPerLevel: ECHO_STEPS + 10,
      maxTotalLlmCalls: ECHO_STEPS + 10,
      maxTotalToolCalls: ECHO_STEPS + FANOUT_CALLS,
      maxTotalTokens: 1_000_000_000,
      maxTotalResultBytes: 1_000_000_000,
    }),
    ...(policy ? { policy: policy as never } : {}),
    ...(hooks ? { hooks } : {}),
  });
}

/** Consumes every event, reading its origin; returns the result and per-type counts. */
async function consume(run: AsyncGenerator<LoopEvent, LoopResult>): Promise<{ result: LoopResult; toolEnds: number; chunks: number }> {
  let toolEnds = 0;
  let chunks = 0;
  let origin = 0;
  for (;;) {
    const next = await run.next();
    if (next.done) {
      check(origin === 0, "agentry events carry depth 0 / parentId null at the root");
      return { result: next.value, toolEnds, chunks };
    }
    const event = next.value;
    origin += event.depth + (event.parentId === null ? 0 : 1);
    if (event.type === "tool_call_update" && event.status === "end") toolEnds++;
    else if (event.type === "chunk" && !event.done) chunks++;
  }
}

const sdk: BenchSdk & { notes: string[] } = {
  name: "Agentry",
  coldImport: new URL("../../dist/index.js", import.meta.url).href,
  notes: [
    ...(policy ? [] : ["defaultPolicy is not exported: ran without a policy"]),
    ...(MemorySessionStore ? [] : ["MemorySessionStore is not exported yet: memory measured as plain Message[] arrays"]),
  ],
  async echoLoop(mode: EchoMode) {
    echoCalls = 0;
    let result: LoopResult;
    if (mode === "events") {
      const consumed = await consume(loop(echoTurn));
      result = consumed.result;
      check(consumed.toolEnds === ECHO_STEPS - 1, `agentry saw ${consumed.toolEnds} tool ends`);
    } else {
      // Agentry has one API, the generator: "result only" pulls it without looking at the events.
      const run = loop(echoTurn);
      let next = await run.next();
      while (!next.done) next = await run.next();
      result = next.value;
    }
    check(result.status === "complete" && result.text === FINAL_TEXT, `agentry echo: ${result.status} ${result.error?.message ?? ""}`);
    check(echoCalls === ECHO_STEPS - 1 && result.executionTree.nodes.length === ECHO_STEPS - 1, `agentry ran echo ${echoCalls} times`);
  },
  async fanOut() {
    const { result, toolEnds } = await consume(loop(fanOutTurn));
    check(result.status === "complete" && toolEnds === FANOUT_CALLS, `agentry fan-out: ${result.status} ${result.error?.message ?? ""}`);
  },
  async streamDeltas() {
    const { result, chunks } = await consume(loop(streamTurn));
    check(result.status === "complete" && chunks === STREAM_DELTAS, `agentry saw ${chunks} chunks (${result.status})`);
  },
  async buildSessions(sessions: number) {
    const message = (s: number, i: number): Message =>
      i % 2 === 0 ? { role: "user", content: sessionText(s, i) } : { role: "assistant", content: [{ type: "text", text: sessionText(s, i) }] };
    if (!MemorySessionStore) {
      const store = new Map<string, Message[]>();
      for (let s = 0; s < sessions; s++) {
        store.set(`session-${s}`, Array.from({ length: MESSAGES_PER_SESSION }, (_, i) => message(s, i)));
      }
      return store;
    }
    const store = new MemorySessionStore();
    for (let s = 0; s < sessions; s++) {
      const { sessionId } = await store.createSession({ agentId: "bench" });
      for (let i = 0; i < MESSAGES_PER_SESSION; i++) {
        await store.append(sessionId, [{ id: `m${i}`, frame: null, kind: "message", message: message(s, i) }]);
      }
    }
    return store;
  },
};
export default sdk;
