/**
 * Runtime overhead (issue 3): the same turns through `createAgentRuntime` (MemorySessionStore,
 * registry, prompt, toolbelt, persistence at every step) and through the bare loop, plus
 * 100 sessions × 10 turns through one runtime concurrently.
 *
 *   npx tsx --expose-gc bench/runtime.ts        (from the project root; imports ../src)
 *   npx tsx --expose-gc bench/runtime.ts --ratio   (only the runtime turn vs the loop with the same writes, interleaved)
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
  runUnifiedAgentLoop,
  type Message,
  type NewRecord,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const echo = defineTool({
  name: "echo",
  description: "Echo",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
/** A turn: the model calls echo once, then answers (2 model calls, 1 tool call, 3 messages stored + the user's). */
const script = (request: { messages: Message[] }): FakeTurn =>
  request.messages[request.messages.length - 1]!.role === "tool"
    ? { text: "done", usage: { inputTokens: 10, outputTokens: 2 } }
    : { toolCalls: [{ name: "echo", args: { text: "hi" } }], usage: { inputTokens: 10, outputTokens: 2 } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function timeIt(label: string, turns: number, run: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await run(i); // warm up
  const samples: number[] = [];
  for (let round = 0; round < 7; round++) {
    const t0 = performance.now();
    for (let i = 0; i < turns; i++) await run(i);
    samples.push(((performance.now() - t0) * 1000) / turns);
  }
  const us = median(samples);
  console.error(`${label}: ${us.toFixed(1)} µs/turn`);
  return us;
}

/**
 * `--ratio`: the runtime turn over the bare loop with every record it writes, in CPU time per turn,
 * interleaved (rounds of 100 turns each, order alternating) so that the machine's load falls on both alike.
 */
async function ratio(baseline: (i: number) => Promise<unknown>, runtimeTurn: () => Promise<unknown>): Promise<void> {
  // CPU time (user + system) of the process, not wall time: on a shared machine the wall clock
  // also counts the time other processes held the cores.
  const per = async (run: (i: number) => Promise<unknown>): Promise<number> => {
    const before = process.cpuUsage();
    for (let i = 0; i < 100; i++) await run(i);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 100;
  };
  for (let i = 0; i < 500; i++) await Promise.all([baseline(-1 - i), runtimeTurn()]); // warm up
  const ratios: number[] = [];
  const base: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round < 61; round++) {
    const b = round % 2 === 0 ? await per(baseline) : 0;
    const r = await per(runtimeTurn);
    const b2 = round % 2 === 0 ? b : await per(baseline);
    ratios.push(r / b2);
    base.push(b2);
    ours.push(r);
  }
  const q = (xs: number[], f: number) => [...xs].sort((x, y) => x - y)[Math.floor(f * (xs.length - 1))]!;
  console.log(
    `runtime turn / bare loop + every record it writes: ${q(ratios, 0.5).toFixed(3)}x (quartiles ${q(ratios, 0.25).toFixed(3)}-${q(ratios, 0.75).toFixed(3)}, ` +
      `61 rounds × 100 turns); CPU medians ${q(ours, 0.5).toFixed(1)} vs ${q(base, 0.5).toFixed(1)} µs/turn`,
  );
}

async function main() {
  const provider = createFakeProvider(script, { record: false });
  const registry = createAgentRegistry([
    { agentId: "bench", displayName: "Bench", systemPrompt: "You are a benchmark." },
  ]);

  // Bare loop: a fresh history per turn, like a new session's first turn.
  const bare = await timeIt("bare loop", 2_000, async () => {
    for await (const _ of runUnifiedAgentLoop({
      provider,
      model: "fake",
      systemPrompt: "You are a benchmark.",
      history: [{ role: "user", content: "go" }],
      tools: [echo],
    }))
      void _;
  });

  // Bare loop + the same persistence by hand: the records the runtime writes for such a turn
  // (turn start + user message, each message as it happens, turn end, the snippet), into a new
  // MemorySessionStore session. What the runtime adds beyond this is its own machinery.
  const handStore = new MemorySessionStore();
  const persisted = await timeIt("bare loop + the same store writes", 2_000, async (i) => {
    const { sessionId } = await handStore.createSession({ agentId: "bench" });
    const runId = `run-${i}`;
    let n = 0;
    const user: Message = { role: "user", content: "go" };
    await handStore.append(sessionId, [
      { id: `${runId}:${n++}`, frame: null, kind: "turn", runId, phase: "start" },
      { id: `${runId}:${n++}`, frame: null, kind: "message", message: user },
    ]);
    let text = "";
    for await (const event of runUnifiedAgentLoop({
      provider,
      model: "fake",
      systemPrompt: "You are a benchmark.",
      history: [user],
      tools: [echo],
    })) {
      if (event.type === "message")
        await handStore.append(sessionId, [
          { id: `${runId}:${n++}`, frame: event.parentId, kind: "message", message: event.message },
        ]);
      else if (event.type === "done") text = event.result.text;
    }
    await handStore.append(sessionId, [
      { id: `${runId}:${n++}`, frame: null, kind: "turn", runId, phase: "end", status: "complete" },
    ]);
    await handStore.updateSession(sessionId, { lastSnippet: text });
  });

  // The same, plus what the runtime writes today beyond that: each ended call's result record and
  // its audit record (one append, after a SHA-256 of the arguments), as for crash safety and audit;
  // and each model call's record with the assistant message it produced, after the session's first
  // `prompt` records (system prompt and tool list, by SHA-256 digest, hashed once per process as the
  // runtime does), as the inspector reads them. A host builds the call's record from the events.
  const fullStore = new MemorySessionStore();
  const encoder = new TextEncoder();
  const hex = (buffer: ArrayBuffer): string => {
    let out = "";
    for (const byte of new Uint8Array(buffer)) out += byte.toString(16).padStart(2, "0");
    return out;
  };
  const benchTools = [{ name: echo.name, description: echo.description, inputSchema: echo.inputSchema }];
  const promptDigests = Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode("You are a benchmark.")),
    crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(benchTools))),
  ]).then((digests) => digests.map(hex));
  const everyRecord = async (i: number): Promise<void> => {
    const [systemDigest, toolsDigest] = await promptDigests;
    const { sessionId } = await fullStore.createSession({ agentId: "bench" });
    const runId = `run-${i}`;
    let n = 0;
    const user: Message = { role: "user", content: "go" };
    await fullStore.append(sessionId, [
      { id: `${runId}:${n++}`, frame: null, kind: "turn", runId, phase: "start" },
      { id: `${runId}:${n++}`, frame: null, kind: "message", message: user },
    ]);
    let text = "";
    const started = new Map<string, { at: number; digest: Promise<ArrayBuffer> }>();
    let call: { at: number; count: number; usage?: { inputTokens: number; outputTokens: number } } = {
      at: 0,
      count: 0,
    };
    let promptsStored = false;
    let history = 1;
    for await (const event of runUnifiedAgentLoop({
      provider,
      model: "fake",
      systemPrompt: "You are a benchmark.",
      history: [user],
      tools: [echo],
    })) {
      if (event.type === "llm_call_start") call = { at: Date.now(), count: call.count + 1 };
      else if (event.type === "usage")
        call.usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
      else if (event.type === "message" && event.message.role === "assistant") {
        const messageId = `${runId}:${n++}`;
        const records: NewRecord[] = [
          { id: messageId, frame: event.parentId, kind: "message", message: event.message },
        ];
        if (!promptsStored) {
          promptsStored = true;
          records.push(
            {
              id: `prompt:${systemDigest}`,
              frame: null,
              kind: "prompt",
              digest: systemDigest!,
              system: "You are a benchmark.",
            },
            { id: `prompt:${toolsDigest}`, frame: null, kind: "prompt", digest: toolsDigest!, tools: benchTools },
          );
        }
        records.push({
          id: `${runId}:model:${call.count}`,
          frame: event.parentId,
          kind: "model_call",
          runId,
          callId: `${runId}:${call.count}`,
          messageId,
          model: "fake",
          provider: provider.id,
          startedAt: new Date(call.at).toISOString(),
          durationMs: Date.now() - call.at,
          messagesCount: history,
          systemDigest: systemDigest!,
          toolsDigest: toolsDigest!,
          ...(call.usage && { usage: call.usage }),
        });
        history++;
        await fullStore.append(sessionId, records);
      } else if (event.type === "message") {
        history++;
        await fullStore.append(sessionId, [
          { id: `${runId}:${n++}`, frame: event.parentId, kind: "message", message: event.message },
        ]);
      } else if (event.type === "tool_call_update" && event.status === "start")
        started.set(event.toolCallId, {
          at: Date.now(),
          digest: crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(event.args))),
        });
      else if (event.type === "tool_call_update" && event.status === "end") {
        const start = started.get(event.toolCallId)!;
        const argsDigest = hex(await start.digest);
        const result = {
          type: "tool_result" as const,
          toolCallId: event.toolCallId,
          name: event.name,
          result: event.result,
        };
        await fullStore.append(sessionId, [
          {
            id: `${runId}:result:${event.toolCallId}`,
            frame: event.parentId,
            kind: "tool_result",
            runId,
            toolCallId: event.toolCallId,
            result,
          },
          {
            id: `${runId}:audit:${event.toolCallId}`,
            frame: event.parentId,
            kind: "audit",
            entry: {
              entryId: `${runId}:${event.toolCallId}`,
              sessionId,
              agentId: "bench",
              runId,
              toolCallId: event.toolCallId,
              tool: event.name,
              depth: event.depth,
              parentId: event.parentId,
              argsDigest,
              decision: "allowed",
              startedAt: new Date(start.at).toISOString(),
              durationMs: Date.now() - start.at,
              isError: false,
            },
          },
        ]);
      } else if (event.type === "done") text = event.result.text;
    }
    await fullStore.append(sessionId, [
      { id: `${runId}:${n++}`, frame: null, kind: "turn", runId, phase: "end", status: "complete" },
    ]);
    await fullStore.updateSession(sessionId, { lastSnippet: text });
  };

  // Runtime, one new session per turn (same history length as the bare loop).
  const store = new MemorySessionStore();
  const runtime = createAgentRuntime({
    registry,
    store,
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [echo],
  });
  const freshTurn = () => runtime.send({ agentId: "bench", content: "go", session: "create" });
  if (process.argv.includes("--ratio")) return ratio(everyRecord, freshTurn);
  const persistedAll = await timeIt("bare loop + every record the runtime writes", 2_000, everyRecord);
  const fresh = await timeIt("runtime, new session per turn", 2_000, freshTurn);

  // Runtime, 10 turns in one session (history grows, as in a conversation).
  const convo = createAgentRuntime({
    registry,
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [echo],
  });
  const inSession = await timeIt("runtime, 10th turn of a session", 1_000, async (i) => {
    if (i % 10 === 0) await convo.send({ agentId: "bench", content: "go", session: "create" });
    else await convo.send({ agentId: "bench", content: "go" });
  });

  // 100 sessions × 10 turns concurrently through one runtime.
  const many = createAgentRuntime({
    registry,
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [echo],
  });
  const sessions = await Promise.all(
    Array.from({ length: 100 }, () => many.send({ agentId: "bench", content: "start", session: "create" })),
  );
  const t0 = performance.now();
  await Promise.all(
    sessions.map(async (s) => {
      for (let i = 0; i < 10; i++) await many.send({ agentId: "bench", content: `turn ${i}`, session: s.sessionId });
    }),
  );
  const turnsPerSec = 1000 / ((performance.now() - t0) / 1000);

  // One turn on a long session (2,000 stored messages), with the runtime's session cache (the
  // default) and without it (sessionCacheSize: 0: the whole history is loaded every turn).
  const longRows: string[][] = [];
  const dir = mkdtempSync(join(tmpdir(), "agentry-bench-"));
  const stores: [string, () => SessionStore][] = [
    ["MemorySessionStore", () => new MemorySessionStore()],
    [
      "SqliteSessionStore (file, WAL)",
      () => new SqliteSessionStore({ path: join(dir, `long-${longRows.length}-${Math.random()}.db`) }),
    ],
  ];
  for (const [name, makeStore] of stores) {
    const cells: string[] = [];
    for (const sessionCacheSize of [256, 0]) {
      const longStore = makeStore();
      const rt = createAgentRuntime({
        registry,
        store: longStore,
        providers: { fake: provider },
        defaultModel: "fake",
        tools: [echo],
        sessionCacheSize,
      });
      const { sessionId } = await longStore.createSession({ agentId: "bench" });
      for (let i = 0; i < 2_000; i += 100) {
        await longStore.append(
          sessionId,
          Array.from({ length: 100 }, (_, j): NewRecord => ({
            id: `pre-${i + j}`,
            frame: null,
            kind: "message",
            message:
              (i + j) % 2 === 0
                ? { role: "user", content: `question ${i + j}` }
                : { role: "assistant", content: [{ type: "text", text: `answer ${i + j}` }] },
          })),
        );
      }
      cells.push(
        (
          await timeIt(`${name}, 2,000-message session, cache ${sessionCacheSize}`, 100, () =>
            rt.send({ agentId: "bench", content: "go", session: sessionId }),
          )
        ).toFixed(0),
      );
    }
    longRows.push([
      `runtime, a turn on a 2,000-message session, ${name}`,
      `${cells[0]} µs/turn`,
      `${cells[1]} µs/turn without the session cache (sessionCacheSize: 0)`,
    ]);
  }
  rmSync(dir, { recursive: true, force: true });

  const rows = [
    ["bare loop (2 model calls, 1 tool call)", `${bare.toFixed(1)} µs/turn`, ""],
    [
      "bare loop + the same store writes by hand (new session per turn)",
      `${persisted.toFixed(1)} µs/turn`,
      `+${(((persisted - bare) / bare) * 100).toFixed(0)}% over the bare loop`,
    ],
    [
      "bare loop + every record the runtime writes (adds each call's result and audit record)",
      `${persistedAll.toFixed(1)} µs/turn`,
      `+${(((persistedAll - bare) / bare) * 100).toFixed(0)}% over the bare loop`,
    ],
    [
      "runtime, new session per turn",
      `${fresh.toFixed(1)} µs/turn`,
      `+${(((fresh - bare) / bare) * 100).toFixed(0)}% over the bare loop, ${(fresh / persisted).toFixed(2)}x the loop with the same writes, ${(fresh / persistedAll).toFixed(2)}x the loop with every record`,
    ],
    [
      "runtime, turns in a growing session (avg of turns 1-10)",
      `${inSession.toFixed(1)} µs/turn`,
      `+${(((inSession - bare) / bare) * 100).toFixed(0)}%`,
    ],
    ...longRows,
    ["100 sessions × 10 turns, concurrent, one runtime", `${Math.round(turnsPerSec).toLocaleString("en")} turns/s`, ""],
  ];
  console.log("| measure | value | note |\n| --- | --- | --- |");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

await main();
