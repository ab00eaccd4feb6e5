/**
 * Profile target for the runtime's per-turn cost: turns in growing sessions through
 * createAgentRuntime with MemorySessionStore and the fake provider.
 *
 *   npx tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-runtime.ts
 *   node bench/lib/profile-top.mjs /tmp/prof/<file>.cpuprofile
 */
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, MemorySessionStore, type Message } from "../src/index.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const echo = defineTool({ name: "echo", description: "Echo", input: z.object({ text: z.string() }), execute: ({ text }) => text });
const script = (request: { messages: Message[] }): FakeTurn =>
  request.messages[request.messages.length - 1]!.role === "tool"
    ? { text: "done", usage: { inputTokens: 10, outputTokens: 2 } }
    : { toolCalls: [{ name: "echo", args: { text: "hi" } }], usage: { inputTokens: 10, outputTokens: 2 } };
const provider = createFakeProvider(script, { record: false });
const registry = createAgentRegistry([{ agentId: "bench", displayName: "Bench", systemPrompt: "You are a benchmark." }]);
const runtime = createAgentRuntime({ registry, store: new MemorySessionStore(), providers: { fake: provider }, defaultModel: "fake", tools: [echo] });
const turns = Number(process.argv[2] ?? 30_000);
const t0 = performance.now();
for (let i = 0; i < turns; i++) {
  if (i % 10 === 0) await runtime.send({ agentId: "bench", content: "go", session: "create" });
  else await runtime.send({ agentId: "bench", content: "go" });
}
console.log(`${(((performance.now() - t0) * 1000) / turns).toFixed(1)} µs/turn`);
