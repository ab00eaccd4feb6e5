import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ApprovalAlreadyResolvedError,
  MemorySessionStore,
  SessionBusyError,
  SessionNotFoundError,
  type AgentRuntimeOptions,
  type HistoryRecord,
  type Message,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import { COMPACTION_SYSTEM_PROMPT } from "../../src/context/compaction-prompt.js";
import type { CompactionRecord } from "../../src/contracts/session-store.js";
import type { CompactionSummarizeInput } from "../../src/contracts/compaction.js";
import { makeRuntime, textOf } from "./helpers.js";

const stores: { name: string; make: () => SessionStore }[] = [
  { name: "memory", make: () => new MemorySessionStore() },
  {
    name: "sqlite",
    make: () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-compact-")), "s.db") }),
  },
];

/** A trigger a few turns reach, well above the system prompt (the estimate counts it). */
const TRIGGER = 1_500;
const SUMMARY = "## Goal\n- plan the week\n## Next steps\n- answer the next question";
/** An answer long enough that a few turns pass a small trigger (~125 estimated tokens). */
const PADDING = "y".repeat(480);

type Summarizer = (request: ModelRequest) => FakeTurn | Promise<FakeTurn>;

/**
 * The agent's model: a summary request (`caller.purpose: "compaction"`) gets `summarize`'s answer; "delete milk" calls
 * the approval-gated tool; a tool result is reported; anything else is echoed with padding.
 */
function model(summarize: Summarizer = () => ({ text: SUMMARY })) {
  return (request: ModelRequest): FakeTurn | Promise<FakeTurn> => {
    if (request.caller?.purpose === "compaction") return summarize(request);
    const last = request.messages.at(-1)!;
    if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content.map((r) => r.result))}` };
    const text = textOf(last);
    if (text.includes("delete milk")) return { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] };
    if (text.includes("add milk")) return { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] };
    return { text: `re: ${text} ${PADDING}` };
  };
}

const turnRequests = (calls: ModelRequest[]) => calls.filter((c) => c.caller?.purpose !== "compaction");
const summaryRequests = (calls: ModelRequest[]) => calls.filter((c) => c.caller?.purpose === "compaction");
const compactedEvents = (events: RuntimeEvent[]) =>
  events.filter((e): e is Extract<RuntimeEvent, { type: "context_compacted" }> => e.type === "context_compacted");
const userTexts = (messages: readonly Message[]) => messages.filter((m) => m.role === "user").map(textOf);

/** Sends "turn 1", "turn 2", ... to one session until a turn compacted it (at most 30 turns). */
async function sendUntilCompacted(
  runtime: ReturnType<typeof makeRuntime>["runtime"],
  events: RuntimeEvent[],
  options: { scope?: string } = {},
): Promise<{ sessionId: string; turns: number }> {
  let sessionId: string | undefined;
  for (let turn = 1; turn <= 30; turn++) {
    const result = await runtime.send({
      agentId: "general",
      content: `turn ${turn}`,
      ...(sessionId !== undefined && { session: sessionId }),
      ...(options.scope !== undefined && { scope: options.scope }),
    });
    expect(result.status).toBe("complete");
    sessionId = result.sessionId;
    if (compactedEvents(events).length > 0) return { sessionId, turns: turn };
  }
  throw new Error("no compaction within 30 turns");
}

function compactionRecords(records: HistoryRecord[]): CompactionRecord[] {
  return records.filter((r): r is CompactionRecord => r.kind === "compaction");
}

function runtimeOn(
  store: SessionStore,
  script: ReturnType<typeof model>,
  overrides: Partial<AgentRuntimeOptions> = {},
) {
  return makeRuntime(script, { store, compaction: { triggerTokens: TRIGGER }, ...overrides });
}

describe.each(stores)("compaction over the $name store", ({ make }) => {
  it("a turn past triggerTokens compacts before its first model call: summary, the kept turns verbatim, the new message", async () => {
    const store = make();
    const { runtime, provider, events } = runtimeOn(store, model());
    const { sessionId, turns } = await sendUntilCompacted(runtime, events);
    expect(turns).toBeGreaterThan(3);

    // One summary call, made by the compacting turn before its own model call, on the agent's own model.
    const summaries = summaryRequests(provider.calls);
    expect(summaries).toHaveLength(1);
    const summaryAt = provider.calls.indexOf(summaries[0]!);
    expect(provider.calls[summaryAt + 1]?.caller?.purpose).toBeUndefined();
    expect(summaries[0]).toMatchObject({ system: COMPACTION_SYSTEM_PROMPT, model: "fake-model", tools: [] });
    expect(summaries[0]!.caller).toMatchObject({ agentId: "general", sessionId, depth: 0 });
    const asked = textOf(summaries[0]!.messages[0]);
    expect(asked).toContain("[user]: turn 1");
    expect(asked).not.toContain(`turn ${turns - 2}`);
    expect(asked).toMatch(/<\/conversation>\n\nWrite the summary now\.$/);
    for (const heading of ["## Goal", "## Progress", "## Decisions", "## Open questions", "## Next steps"])
      expect(COMPACTION_SYSTEM_PROMPT).toContain(heading);

    // The compacting turn's request: the summary note, the 2 turns before it verbatim, then its message.
    const sent = turnRequests(provider.calls).at(-1)!.messages;
    expect(sent[0]).toMatchObject({ role: "user", origin: "agentry", silent: true });
    expect(textOf(sent[0])).toContain(SUMMARY);
    expect(userTexts(sent.slice(1))).toEqual([`turn ${turns - 2}`, `turn ${turns - 1}`, `turn ${turns}`]);
    expect(historyProblems(sent)).toEqual([]);

    const [event] = compactedEvents(events);
    expect(event).toMatchObject({ trigger: "auto", source: "model", summary: SUMMARY, sessionId });
    expect(event!.tokensAfter).toBeLessThan(event!.tokensBefore);
    expect(event!.tokensBefore).toBeGreaterThanOrEqual(TRIGGER);

    // The log keeps every message; the record says where the context starts.
    const records = await store.load(sessionId);
    const users = records.filter((r) => r.kind === "message" && r.message.role === "user");
    expect(users).toHaveLength(turns);
    const [record] = compactionRecords(records);
    expect(record).toMatchObject({ id: event!.recordId, summary: SUMMARY, source: "model", frame: null });
    const keptFrom = records.find((r) => r.seq === record!.keptFromSeq);
    expect(keptFrom).toMatchObject({ kind: "turn", phase: "start" });

    // The next turn, here and in a runtime that reads the store afresh, starts from the same context.
    await runtime.send({ agentId: "general", content: "next", session: sessionId });
    expect(compactedEvents(events)).toHaveLength(1);
    const again = turnRequests(provider.calls).at(-1)!.messages;
    expect(again.slice(0, sent.length)).toEqual(sent);
    const fresh = runtimeOn(store, model(), { sessionCacheSize: 0 });
    await fresh.runtime.send({ agentId: "general", content: "next", session: sessionId });
    const read = turnRequests(fresh.provider.calls).at(-1)!.messages;
    expect(read.slice(0, again.length - 1)).toEqual(again.slice(0, -1));
  });

  it("keepRecentTurns sets how many turns stay verbatim (0: only the summary and the new message), fewer when they leave no room", async () => {
    // With TRIGGER, three turns and the system prompt take more than half of it: two are kept.
    const cases = [
      { keepRecentTurns: 0, triggerTokens: TRIGGER, kept: 0 },
      { keepRecentTurns: 1, triggerTokens: TRIGGER, kept: 1 },
      { keepRecentTurns: 3, triggerTokens: 2_500, kept: 3 },
      { keepRecentTurns: 3, triggerTokens: TRIGGER, kept: 2 },
    ];
    for (const { keepRecentTurns, triggerTokens, kept } of cases) {
      const { runtime, provider, events } = runtimeOn(make(), model(), {
        compaction: { triggerTokens, keepRecentTurns },
      });
      const { turns } = await sendUntilCompacted(runtime, events);
      const sent = turnRequests(provider.calls).at(-1)!.messages;
      const verbatim = Array.from({ length: kept }, (_, i) => `turn ${turns - kept + i}`);
      expect(userTexts(sent.slice(1))).toEqual([...verbatim, `turn ${turns}`]);
      expect(compactedEvents(events)[0]!.summarizedMessages).toBe(2 * (turns - 1 - kept));
      // The compacted context has room to grow: the next turn does not compact again.
      await runtime.send({ agentId: "general", content: "again", session: compactedEvents(events)[0]!.sessionId });
      expect(compactedEvents(events)).toHaveLength(1);
    }
  });

  it("a host summarize writes the summary instead of the model, with the older messages, agent, scope and a signal", async () => {
    const seen: CompactionSummarizeInput[] = [];
    const { runtime, provider, events } = runtimeOn(make(), model(), {
      compaction: {
        triggerTokens: TRIGGER,
        keepRecentTurns: 1,
        summarize: async (input) => {
          seen.push(input);
          return `host summary of ${input.messages.length} messages`;
        },
      },
    });
    const { turns } = await sendUntilCompacted(runtime, events, { scope: "alice" });
    expect(summaryRequests(provider.calls)).toHaveLength(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ agentId: "general", scope: "alice" });
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);
    expect(userTexts(seen[0]!.messages)).toEqual(Array.from({ length: turns - 2 }, (_, i) => `turn ${i + 1}`));
    const [event] = compactedEvents(events);
    expect(event).toMatchObject({ source: "host", summary: `host summary of ${2 * (turns - 2)} messages` });
    expect(textOf(turnRequests(provider.calls).at(-1)!.messages[0])).toContain(event!.summary);
  });

  it("a summary that cannot be written falls back to the model-free note with a warning; the turn never fails", async () => {
    const cases: { name: string; why: RegExp; overrides: Partial<AgentRuntimeOptions>; script?: Summarizer }[] = [
      {
        name: "provider error",
        why: /model call failed: overloaded/,
        overrides: {},
        script: () => ({ error: new Error("overloaded") }),
      },
      { name: "empty", why: /summary was empty/, overrides: {}, script: () => ({ text: "   " }) },
      {
        name: "summarize throws",
        why: /summarize threw: nope/,
        overrides: { compaction: { triggerTokens: TRIGGER, summarize: () => Promise.reject(new Error("nope")) } },
      },
      {
        name: "timeout",
        why: /no answer within 50 ms/,
        overrides: {
          compaction: { triggerTokens: TRIGGER, timeoutMs: 50, summarize: () => new Promise(() => undefined) },
        },
      },
      {
        name: "provider that never answers",
        why: /no answer within 50 ms/,
        overrides: { compaction: { triggerTokens: TRIGGER, timeoutMs: 50 } },
        script: () => ({ text: "late", delayMs: Infinity }),
      },
    ];
    for (const { name, why, overrides, script } of cases) {
      const { runtime, provider, events } = runtimeOn(make(), model(script), overrides);
      const { sessionId } = await sendUntilCompacted(runtime, events);
      const warning = events.find((e) => e.type === "warning" && e.code === "compaction_failed");
      expect(warning?.type === "warning" && warning.message, name).toMatch(why);
      const [event] = compactedEvents(events);
      expect(event?.source, name).toBe("fallback");
      expect(event!.summary, name).toMatch(/^\[Compacted: .*not written by a model/);
      expect(event!.summary, name).toMatch(/First request: "turn 1"/);
      const sent = turnRequests(provider.calls).at(-1)!.messages;
      expect(textOf(sent[0]), name).toContain("not written by a model");
      const last = await runtime.send({ agentId: "general", content: "still there?", session: sessionId });
      expect(last.status, name).toBe("complete");
    }
  });

  it("the summary call is counted in the turn's budget: calls, tokens and cost, and it never takes the turn's last call", async () => {
    const pricing = { "fake-model": { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } };
    const priced = runtimeOn(
      make(),
      model(() => ({ text: SUMMARY, usage: { inputTokens: 1_000, outputTokens: 100 } })),
      {
        pricing,
      },
    );
    await sendUntilCompacted(priced.runtime, priced.events);
    const done = priced.events.filter((e) => e.type === "done").at(-1)!;
    const usage = done.type === "done" ? done.result.usage : undefined;
    expect(usage).toMatchObject({ llmCalls: 2, inputTokens: 1_000, outputTokens: 100 });
    expect(usage!.costUsd).toBeCloseTo(1_000 + 200);
    expect(compactedEvents(priced.events)[0]).toMatchObject({ source: "model" });

    // maxTotalLlmCalls 2: the summary takes one, the turn's tool call the other, its answer is refused.
    const tight = runtimeOn(make(), model(), { budget: { maxTotalLlmCalls: 2 } });
    const { sessionId } = await sendUntilCompacted(tight.runtime, tight.events);
    tight.events.length = 0;
    // A message big enough to compact again; the model adds milk (a tool call), then would answer.
    const big = await tight.runtime.send({
      agentId: "general",
      content: `add milk ${PADDING.repeat(12)}`,
      session: sessionId,
    });
    expect(big.status).toBe("budget_exceeded");
    expect(compactedEvents(tight.events)).toHaveLength(1);
    expect(big.usage.llmCalls).toBe(2);

    // maxTotalLlmCalls 1: no room for a summary beside the turn's call: the note, and the turn completes.
    const one = runtimeOn(make(), model(), { budget: { maxTotalLlmCalls: 1 } });
    await sendUntilCompacted(one.runtime, one.events);
    const warning = one.events.find((e) => e.type === "warning" && e.code === "compaction_failed");
    expect(warning?.type === "warning" && warning.message).toMatch(/budget has no room for the summary call/);
    expect(summaryRequests(one.provider.calls)).toHaveLength(0);
  });

  it("runtime.compact compacts on demand, with instructions that reach the summary request, even with compaction off", async () => {
    const store = make();
    const { runtime, provider, events } = runtimeOn(store, model(), { compaction: false });
    let sessionId = "";
    for (let turn = 1; turn <= 4; turn++) {
      const result = await runtime.send({
        agentId: "general",
        content: `turn ${turn}`,
        ...(sessionId && { session: sessionId }),
      });
      sessionId = result.sessionId;
    }
    expect(compactedEvents(events)).toHaveLength(0);
    const result = await runtime.compact(sessionId, { instructions: "Keep every file path." });
    expect(result).toMatchObject({ compacted: true, source: "model", summary: SUMMARY, summarizedMessages: 4 });
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    const [request] = summaryRequests(provider.calls);
    expect(textOf(request!.messages[0])).toMatch(/Additional instructions for this summary:\nKeep every file path\./);
    const [event] = compactedEvents(events);
    expect(event).toMatchObject({ trigger: "manual", recordId: result.recordId, sessionId });
    const [record] = compactionRecords(await store.load(sessionId));
    expect(record).toMatchObject({ id: result.recordId, instructions: "Keep every file path." });
    // Nothing older than the kept turns but the summary: nothing to do.
    const none = await runtime.compact(sessionId);
    expect(none).toMatchObject({ compacted: false, summarizedMessages: 0 });
    expect(none.tokensAfter).toBe(none.tokensBefore);
    expect(compactionRecords(await store.load(sessionId))).toHaveLength(1);

    await runtime.send({ agentId: "general", content: "turn 5", session: sessionId });
    const sent = turnRequests(provider.calls).at(-1)!.messages;
    expect(textOf(sent[0])).toContain(SUMMARY);
    expect(userTexts(sent.slice(1))).toEqual(["turn 3", "turn 4", "turn 5"]);
  });

  it("runtime.compact is tenant-guarded (not found outside the tenant) and refused while a turn runs", async () => {
    const store = make();
    const { runtime, provider } = runtimeOn(store, (request) =>
      textOf(request.messages.at(-1)).includes("slow") ? { text: "done", delayMs: 200 } : model()(request),
    );
    const first = await runtime.send({ agentId: "general", content: "hi", scope: "alice" });
    for (const guard of [{ scope: "bob" }, { scopePrefix: "b" }]) {
      await expect(runtime.compact(first.sessionId, guard)).rejects.toBeInstanceOf(SessionNotFoundError);
    }
    await expect(runtime.compact("no-such-session")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.compact(first.sessionId, { scope: "alice" })).resolves.toMatchObject({ compacted: false });

    const running = runtime.send({ agentId: "general", content: "slow", session: first.sessionId, scope: "alice" });
    while (turnRequests(provider.calls).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(runtime.compact(first.sessionId)).rejects.toBeInstanceOf(SessionBusyError);
    await running;
    expect(compactionRecords(await store.load(first.sessionId))).toHaveLength(0);
  });

  it("a session waiting on an approval compacts around it: approved, the tool runs once and the model sees the call", async () => {
    const store = make();
    const { runtime, provider, todo } = runtimeOn(store, model(), { compaction: { keepRecentTurns: 0 } });
    todo.items.push("milk");
    let sessionId = "";
    for (let turn = 1; turn <= 3; turn++) {
      const result = await runtime.send({
        agentId: "todo",
        content: `turn ${turn}`,
        ...(sessionId && { session: sessionId }),
      });
      sessionId = result.sessionId;
    }
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk", session: sessionId });
    expect(suspended.status).toBe("suspended");
    const result = await runtime.compact(sessionId);
    // keepRecentTurns 0, yet the waiting turn stays whole: its message and the assistant's pending call.
    expect(result).toMatchObject({ compacted: true, summarizedMessages: 6 });
    const [pending] = await runtime.pendingApprovals();
    expect(pending?.request.name).toBe("todo_delete");

    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(todo.items).toEqual([]);
    await expect(runtime.resolveApproval(pending!.requestId, { approved: true })).rejects.toBeInstanceOf(
      ApprovalAlreadyResolvedError,
    );
    const audit = await runtime.auditLog(sessionId);
    expect(audit.filter((r) => r.entry.tool === "todo_delete" && r.entry.decision === "approved")).toHaveLength(1);
    const sent = turnRequests(provider.calls).at(-1)!.messages;
    expect(textOf(sent[0])).toContain(SUMMARY);
    expect(userTexts(sent.slice(1))).toEqual(["delete milk"]);
    expect(sent.some((m) => m.role === "assistant" && m.content.some((p) => p.type === "tool_call"))).toBe(true);
    expect(sent.at(-1)).toMatchObject({ role: "tool" });
    expect(historyProblems(sent)).toEqual([]);
  });

  it("compaction comes before the emergency reset: a context it brings below the limit is never reset", async () => {
    const { runtime, events } = runtimeOn(make(), model(), {
      compaction: { triggerTokens: TRIGGER, keepRecentTurns: 1 },
      emergencyContextLimit: 2_000,
    });
    let sessionId = "";
    for (let turn = 1; turn <= 20; turn++) {
      const result = await runtime.send({
        agentId: "general",
        content: `turn ${turn}`,
        ...(sessionId && { session: sessionId }),
      });
      sessionId = result.sessionId;
    }
    expect(compactedEvents(events).length).toBeGreaterThan(1);
    expect(events.filter((e) => e.type === "warning" && e.code === "context_reset")).toHaveLength(0);

    // A trigger above the emergency limit never fires: the reset comes first.
    const late = runtimeOn(make(), model(), { compaction: { triggerTokens: 5_000 }, emergencyContextLimit: 2_000 });
    for (let turn = 1, id = ""; turn <= 20; turn++) {
      id = (await late.runtime.send({ agentId: "general", content: `turn ${turn}`, ...(id && { session: id }) }))
        .sessionId;
    }
    expect(compactedEvents(late.events)).toHaveLength(0);
    expect(late.events.filter((e) => e.type === "warning" && e.code === "context_reset").length).toBeGreaterThan(0);
  });
});

describe("runtime.compact across runtimes on one SQLite file", () => {
  it("is refused with SessionBusyError while another runtime runs a turn of the session (it holds the lease)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-compact-two-")), "s.db");
    const slow = (request: ModelRequest): FakeTurn | Promise<FakeTurn> =>
      textOf(request.messages.at(-1)).includes("slow") ? { text: "done", delayMs: 300 } : model()(request);
    const a = runtimeOn(new SqliteSessionStore({ path }), slow);
    const b = runtimeOn(new SqliteSessionStore({ path }), model());
    let sessionId = "";
    for (let turn = 1; turn <= 4; turn++) {
      const result = await a.runtime.send({
        agentId: "general",
        content: `turn ${turn}`,
        ...(sessionId && { session: sessionId }),
      });
      sessionId = result.sessionId;
    }
    const running = a.runtime.send({ agentId: "general", content: "slow", session: sessionId });
    while (turnRequests(a.provider.calls).length < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(b.runtime.compact(sessionId)).rejects.toBeInstanceOf(SessionBusyError);
    await running;
    // Once the turn ended, the other runtime compacts it.
    await expect(b.runtime.compact(sessionId)).resolves.toMatchObject({ compacted: true });
    await a.runtime.send({ agentId: "general", content: "after", session: sessionId });
    expect(textOf(turnRequests(a.provider.calls).at(-1)!.messages[0])).toContain(SUMMARY);
  });
});
