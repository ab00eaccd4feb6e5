import { describe, expect, it } from "vitest";
import {
  AgentNotFoundError,
  InvalidArgumentError,
  MemorySessionStore,
  SessionNotFoundError,
  SessionOwnershipError,
  SessionStoreError,
  type HistoryRecord,
  type RuntimeEvent,
} from "@agentry/core";
import { historyProblems } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

const kinds = (records: HistoryRecord[]) =>
  records.map((r) =>
    r.kind === "message"
      ? `${r.frame ?? "root"}:${r.message.role}`
      : r.kind === "turn"
        ? `turn:${r.phase}${r.status ? `:${r.status}` : ""}`
        : r.kind,
  );

describe("createAgentRuntime", () => {
  it("resolves the agent and session, runs the loop and persists every step inside turn markers", async () => {
    const { runtime, store } = makeRuntime([
      { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] },
      { text: "Added milk to your list." },
    ]);
    const result = await runtime.send({ agentId: "todo", content: "Add milk" });
    expect(result).toMatchObject({
      status: "complete",
      agentId: "todo",
      created: true,
      text: "Added milk to your list.",
    });
    const records = await store.load(result.sessionId);
    // Each assistant message is stored with its model call; the system prompt and tools the model saw once per session.
    expect(kinds(records)).toEqual([
      "turn:start",
      "root:user",
      "root:assistant",
      "prompt",
      "prompt",
      "model_call",
      "tool_result",
      "audit",
      "root:tool",
      "root:assistant",
      "model_call",
      "turn:end:complete",
    ]);
    const final = records.at(-3) as Extract<HistoryRecord, { kind: "message" }>;
    expect(final.message.role === "assistant" && final.message.executionTree?.nodes.map((n) => n.name)).toEqual([
      "todo_add",
    ]);
    const session = await store.getSession(result.sessionId);
    expect(session?.lastSnippet).toBe("Added milk to your list.");
    expect(records.every((r) => r.kind !== "turn" || r.runId === result.runId)).toBe(true);
  });

  it("routes to the latest session by default, and to a new one on request", async () => {
    const { runtime } = makeRuntime(() => ({ text: "ok" }));
    const first = await runtime.send({ agentId: "general", content: "one" });
    const second = await runtime.send({ agentId: "general", content: "two" });
    const third = await runtime.send({ agentId: "general", content: "three", session: "create" });
    const fourth = await runtime.send({ agentId: "general", content: "four", session: first.sessionId });
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ sessionId: first.sessionId, created: false });
    expect(third.created).toBe(true);
    expect(third.sessionId).not.toBe(first.sessionId);
    expect(fourth.sessionId).toBe(first.sessionId);
  });

  it("sends the whole session history, with sub-task frames kept out of it", async () => {
    const { runtime, provider, store } = makeRuntime((request) => {
      if (request.system.startsWith("You are a sub-agent")) return { text: "child answer" };
      const last = request.messages.at(-1)!;
      if (last.role === "user" && last.content === "first")
        return { toolCalls: [{ id: "sub1", name: "run_subtask", args: { title: "t", instructions: "look it up" } }] };
      return { text: `reply ${request.messages.length}` };
    });
    const a = await runtime.send({ agentId: "general", content: "first" });
    await runtime.send({ agentId: "general", content: "second" });
    const last = provider.calls.at(-1)!;
    expect(last.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(historyProblems(last.messages)).toEqual([]);
    const records = await store.load(a.sessionId, { frame: "sub1" });
    expect(records.map((r) => (r.kind === "message" ? r.message.role : r.kind))).toEqual([
      "user",
      "assistant",
      "model_call",
    ]);
  });

  it("stamps events with session, agent, run, a monotonic seq and ts; stream ends with done after the end record", async () => {
    const { runtime, store, events } = makeRuntime([{ text: "hello" }, { text: "again" }]);
    const streamed: RuntimeEvent[] = [];
    let endStoredAtDone = false;
    for await (const event of runtime.stream({ agentId: "general", content: "hi" })) {
      streamed.push(event);
      if (event.type === "done") {
        const records = await store.load(event.sessionId);
        endStoredAtDone = records.at(-1)?.kind === "turn";
      }
    }
    expect(streamed.at(-1)?.type).toBe("done");
    expect(endStoredAtDone).toBe(true);
    await runtime.send({ agentId: "general", content: "again" });
    expect(events.length).toBeGreaterThan(streamed.length);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    for (const e of streamed)
      expect(e).toMatchObject({ sessionId: streamed[0]!.sessionId, agentId: "general", runId: streamed[0]!.runId });
    expect(typeof streamed[0]!.ts).toBe("number");
    expect(JSON.parse(JSON.stringify(streamed))).toEqual(streamed);
  });

  it("processes one session's messages one at a time in arrival order, and sessions concurrently", async () => {
    const log: string[] = [];
    let b1Started!: () => void;
    const b1Running = new Promise<void>((resolve) => (b1Started = resolve));
    const { runtime } = makeRuntime(async (request) => {
      const text = textOf(request.messages.at(-1));
      log.push(`start ${text}`);
      if (text === "b1") b1Started();
      // a1 ends only once b1 has started: b1 must run while a1 runs (one queue for all would hang).
      // The others yield a few event-loop turns, time in which a broken per-session queue would start the next.
      if (text === "a1") await b1Running;
      else for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      log.push(`end ${text}`);
      return { text: `re ${text}` };
    });
    const a = await runtime.send({ agentId: "general", content: "a0" });
    const b = await runtime.send({ agentId: "todo", content: "b0" });
    log.length = 0;
    await Promise.all([
      runtime.send({ agentId: "general", content: "a1", session: a.sessionId }),
      runtime.send({ agentId: "general", content: "a2", session: a.sessionId }),
      runtime.send({ agentId: "todo", content: "b1", session: b.sessionId }),
      runtime.send({ agentId: "general", content: "a3", session: a.sessionId }),
    ]);
    const aOnly = log.filter((l) => l.includes(" a"));
    expect(aOnly).toEqual(["start a1", "end a1", "start a2", "end a2", "start a3", "end a3"]);
    // b1 ran while a1 was running.
    expect(log.indexOf("start b1")).toBeLessThan(log.indexOf("end a1"));
  });

  it("uses defaultPolicy of the chat context: editor-only tools appear only in the editor", async () => {
    const { defineTool } = await import("@agentry/core");
    const { z } = await import("zod");
    const build = defineTool({
      name: "build_workflow",
      description: "Build a workflow",
      input: z.object({ objective: z.string() }),
      permissionClass: "editor_mutate",
      contexts: ["editor"],
      execute: () => "built",
    });
    const { runtime, provider } = makeRuntime(() => ({ text: "ok" }), { tools: [build] });
    await runtime.send({ agentId: "general", content: "x" });
    await runtime.send({ agentId: "general", content: "y", chatContext: { kind: "editor", workflowId: "w1" } });
    expect(provider.calls[0]!.tools.map((t) => t.name)).not.toContain("build_workflow");
    expect(provider.calls[1]!.tools.map((t) => t.name)).toContain("build_workflow");
  });

  it("applies the agent's glob scope to the toolbelt and the prompt", async () => {
    const { runtime, provider } = makeRuntime(() => ({ text: "ok" }));
    await runtime.send({ agentId: "todo", content: "x" });
    const request = provider.calls[0]!;
    expect(request.tools.map((t) => t.name).sort()).toEqual(["run_subtask", "todo_add", "todo_delete"]);
    expect(request.system).toMatch(/^You are Todo Manager\. Tracks tasks\./);
    expect(request.system).toContain("todo_add");
  });

  it("names bad input with typed errors and writes nothing", async () => {
    const store = new MemorySessionStore();
    const { runtime } = makeRuntime(() => ({ text: "ok" }), { store });
    await expect(runtime.send({ agentId: "nobody", content: "x" })).rejects.toSatisfy(
      (e) => AgentNotFoundError.isInstance(e) && /nobody/.test((e as Error).message),
    );
    await expect(runtime.send({ agentId: "general", content: "x", session: "no-such-id" })).rejects.toSatisfy((e) =>
      SessionNotFoundError.isInstance(e),
    );
    const todoSession = await runtime.send({ agentId: "todo", content: "x" });
    await expect(runtime.send({ agentId: "general", content: "x", session: todoSession.sessionId })).rejects.toSatisfy(
      (e) => SessionOwnershipError.isInstance(e),
    );
    await expect(runtime.send({ agentId: "general", content: "" })).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    expect((await store.listSessions()).map((s) => s.agentId)).toEqual(["todo"]);

    const noModel = makeRuntime(() => ({ text: "ok" }), { store, defaultModel: undefined });
    await expect(noModel.runtime.send({ agentId: "general", content: "x" })).rejects.toThrow(/no model/);
    expect((await store.listSessions()).map((s) => s.agentId)).toEqual(["todo"]);
  });

  it("turns a failing store into a SessionStoreError", async () => {
    const store = new MemorySessionStore();
    const broken = new Proxy(store, {
      get(target, key) {
        if (key === "append") return () => Promise.reject(new Error("disk full"));
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { runtime } = makeRuntime(() => ({ text: "ok" }), { store: broken });
    await expect(runtime.send({ agentId: "general", content: "x" })).rejects.toSatisfy(
      (e) => SessionStoreError.isInstance(e) && /disk full/.test((e as Error).message),
    );
    // Nothing was half-written: the session exists (routing made it) but holds no records.
    const [session] = await store.listSessions();
    expect(await store.load(session!.sessionId)).toEqual([]);
  });

  it("close() drains queued turns and refuses new ones", async () => {
    let modelCalled!: () => void;
    const inModel = new Promise<void>((resolve) => (modelCalled = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const { runtime } = makeRuntime(async () => (modelCalled(), await answered, { text: "ok" }));
    const pending = runtime.send({ agentId: "general", content: "x" });
    const queued = runtime.send({ agentId: "general", content: "x2" });
    await inModel; // the first turn is running, the second waits behind it
    let closed = false;
    const closing = runtime.close().then(() => (closed = true));
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false); // close() waits for the turns
    answer();
    await closing;
    await expect(pending).resolves.toMatchObject({ status: "complete" });
    await expect(queued).resolves.toMatchObject({ status: "complete" });
    await expect(runtime.send({ agentId: "general", content: "y" })).rejects.toThrow(/closed/);
  });
});

describe("emergency context reset (seed 003)", () => {
  it("resets a session whose context reaches the limit: reset marker with summary, a note, and an event", async () => {
    // The estimate counts the system prompt and the offered tools' definitions too: the limit sits
    // between the second and the third turn for the general agent's toolbelt.
    const { runtime, store, provider, events } = makeRuntime(() => ({ text: "y".repeat(1_000) }), {
      emergencyContextLimit: 700,
    });
    const first = await runtime.send({ agentId: "general", content: "first question" });
    await runtime.send({ agentId: "general", content: "second question", session: first.sessionId });
    expect(events.filter((e) => e.type === "warning" && e.code === "context_reset")).toHaveLength(0);
    await runtime.send({ agentId: "general", content: "third question", session: first.sessionId });
    const warning = events.find((e) => e.type === "warning" && e.code === "context_reset");
    expect(warning?.type === "warning" && warning.message).toMatch(/reached the emergency limit \(700\)/);
    const sent = provider.calls.at(-1)!.messages;
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({ role: "user", origin: "agentry", silent: true });
    expect(JSON.stringify(sent[0])).toMatch(/The conversation was reset/);
    expect(JSON.stringify(sent[0])).toMatch(/first question/);
    expect(sent[1]).toEqual({ role: "user", content: "third question" });
    const all = await store.load(first.sessionId);
    const reset = all.find((r) => r.kind === "reset");
    expect(reset?.kind === "reset" && reset.summary).toMatch(/first question/);
    const context = await store.load(first.sessionId, { sinceLastReset: true });
    expect(
      context.filter((r) => r.kind === "message").map((r) => (r.kind === "message" ? r.message.role : "")),
    ).toEqual(["user", "user", "assistant"]);
  });
});

describe("policy per session", () => {
  it("calls a policy function with the real session and agent, on every turn", async () => {
    const { defaultPolicy } = await import("@agentry/core");
    const seen: string[] = [];
    const { runtime, provider } = makeRuntime(() => ({ text: "ok" }), {
      policy: (session, agent) => {
        seen.push(`${agent.agentId}:${session.sessionId}`);
        // A session whose name says "locked" gets no tools at all.
        return session.name === "locked" ? { ...defaultPolicy("thread"), classes: [] } : defaultPolicy("thread");
      },
    });
    const first = await runtime.send({ agentId: "todo", content: "a" });
    await runtime.store.updateSession(first.sessionId, { name: "locked" });
    await runtime.send({ agentId: "todo", content: "b", session: first.sessionId });
    expect(seen).toEqual([`todo:${first.sessionId}`, `todo:${first.sessionId}`]);
    expect(provider.calls[0]!.tools.map((t) => t.name)).toContain("todo_add");
    expect(provider.calls[1]!.tools).toEqual([]);
  });
});
