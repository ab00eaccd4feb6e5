/**
 * Approvals through delegation: how long from `resolveApproval` of a request asked N agents down a
 * sync `agents_message` chain to the conversation's resumed answer (the root turn's result), next
 * to resolving the same approval asked by the conversation's own agent (N = 1). The model answers
 * at once (the scripted provider), so the figures are the runtime's own cost: storing the
 * decision, resuming each turn, handing each answer up, with every record written.
 *
 *   npx tsx bench/delegated-approval.ts [--quick]
 *
 * Memory and SQLite stores. Median of the runs, in ms. Prints a markdown table; not a test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const runs = process.argv.includes("--quick") ? 20 : 200;
const names = ["a0", "a1", "a2", "a3"];

function chainRuntime(store: SessionStore, depth: number) {
  const refund = defineTool({
    name: "refund",
    description: "refund",
    permissionClass: "safe",
    input: z.object({}),
    requiresApproval: true,
    execute: () => "refunded",
  });
  const script = (request: ModelRequest): FakeTurn => {
    const index = Number(/You are agent a(\d)\./.exec(request.system)?.[1] ?? 0);
    const last = request.messages.at(-1)!;
    if (last.role === "tool") return { text: `a${index} done` };
    if (index < depth - 1)
      return { toolCalls: [{ name: "agents_message", args: { agentId: `a${index + 1}`, content: "go" } }] };
    return { toolCalls: [{ name: "refund", args: {} }] };
  };
  return createAgentRuntime({
    registry: createAgentRegistry(
      names.map((agentId, i) => ({
        agentId,
        displayName: agentId,
        systemPrompt: `You are agent ${agentId}.`,
        agentAllowlist: i + 1 < names.length ? [names[i + 1]!] : [],
      })),
    ),
    store,
    providers: { fake: createFakeProvider(script) },
    defaultModel: "fake",
    tools: [refund],
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(makeStore: () => SessionStore, depth: number): Promise<number> {
  const runtime = chainRuntime(makeStore(), depth);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const suspended = await runtime.send({ agentId: "a0", content: "refund", session: "create" });
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const started = performance.now();
    const resumed = await runtime.resolveApproval(requestId, { approved: true });
    times.push(performance.now() - started);
    if (resumed.status !== "complete" || resumed.agentId !== "a0")
      throw new Error(`unexpected ${resumed.status} from ${resumed.agentId}`);
  }
  await runtime.close();
  return median(times);
}

const dir = mkdtempSync(join(tmpdir(), "agentry-bench-deleg-"));
const stores: [string, () => SessionStore][] = [
  ["memory", () => new MemorySessionStore()],
  ["SQLite", () => new SqliteSessionStore({ path: join(dir, `${globalThis.crypto.randomUUID()}.db`) })],
];
console.log(
  `| store | agents in the chain | resolve → conversation's answer (median ms, ${runs} runs) | vs. no delegation |`,
);
console.log("| --- | ---: | ---: | ---: |");
for (const [name, make] of stores) {
  const base = await measure(make, 1);
  for (const depth of [1, 2, 3]) {
    const ms = depth === 1 ? base : await measure(make, depth);
    console.log(`| ${name} | ${depth} | ${ms.toFixed(3)} | ${(ms / base).toFixed(2)}x |`);
  }
}
rmSync(dir, { recursive: true, force: true });
