import { describe, expect, it } from "vitest";
import {
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  createAgentRegistry,
  createAgentRuntime,
  MemorySessionStore,
  type HistoryRecord,
  type ModelRequest,
} from "@agentry/core";
import { createFakeProvider, historyProblems, type FakeTurn } from "@agentry/core/testing";
import { agents, makeRuntime, textOf, todoTools } from "./helpers.js";

/** The todo agent deletes "milk" (approval needed), then reports what the tool said. */
function deleteScript(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content.map((r) => r.result))}` };
  return { toolCalls: [{ name: "todo_delete", args: { item: textOf(last).includes("eggs") ? "eggs" : "milk" } }] };
}

describe("durable approvals", () => {
  it("suspends without a handler, lists the approval from the store, and resumes on resolve", async () => {
    const { runtime, todo, store } = makeRuntime(deleteScript);
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    expect(suspended.status).toBe("suspended");
    expect(todo.items).toEqual(["milk"]);
    const pending = await runtime.pendingApprovals();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({
      sessionId: suspended.sessionId,
      agentId: "todo",
      runId: suspended.runId,
      request: { name: "todo_delete", args: { item: "milk" } },
    });
    expect(await runtime.pendingApprovals({ sessionId: suspended.sessionId })).toHaveLength(1);

    const resumed = await runtime.resolveApproval(pending[0]!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(resumed.text).toBe('tool said: ["deleted milk"]');
    expect(todo.items).toEqual([]);
    expect(await runtime.pendingApprovals()).toEqual([]);
    const records = await store.load(suspended.sessionId);
    const approvals = records.filter((r): r is Extract<HistoryRecord, { kind: "approval" }> => r.kind === "approval");
    expect(approvals.map((a) => a.decision ?? "pending")).toEqual(["pending", "approved"]);
    const roots = records.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []));
    expect(historyProblems(roots)).toEqual([]);
  });

  it("applies a decision once: resolving twice is a typed error and nothing runs twice", async () => {
    const { runtime, todo } = makeRuntime(deleteScript);
    todo.items.push("milk", "milk");
    await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const [a, b] = await Promise.allSettled([
      runtime.resolveApproval(pending!.requestId, { approved: true }),
      runtime.resolveApproval(pending!.requestId, { approved: true }),
    ]);
    expect(a.status).toBe("fulfilled");
    expect(b.status === "rejected" && ApprovalAlreadyResolvedError.isInstance(b.reason)).toBe(true);
    expect(todo.items).toEqual(["milk"]);
    await expect(runtime.resolveApproval("nope", { approved: true })).rejects.toSatisfy((e) =>
      ApprovalNotFoundError.isInstance(e),
    );
  });

  it("resumes from another runtime on the same store (a new process), with a denial the model sees", async () => {
    const first = makeRuntime(deleteScript);
    const suspended = await first.runtime.send({ agentId: "todo", content: "delete milk" });
    const todo = todoTools();
    const second = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store: first.store,
      providers: { fake: first.provider },
      defaultModel: "fake-model",
      tools: todo.tools,
    });
    const [pending] = await second.pendingApprovals();
    const result = await second.resolveApproval(pending!.requestId, { approved: false, reason: "keep it" });
    expect(result).toMatchObject({ status: "complete", sessionId: suspended.sessionId });
    expect(result.text).toMatch(/not approved \(keep it\)/);
  });

  it("resumes a pending call inside a sub-task at its depth", async () => {
    const { runtime, todo } = makeRuntime((request) => {
      const last = request.messages.at(-1)!;
      if (request.system.startsWith("You are a sub-agent")) {
        return last.role === "user"
          ? { toolCalls: [{ id: "del", name: "todo_delete", args: { item: "milk" } }] }
          : { text: "child deleted it" };
      }
      return last.role === "user"
        ? { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "Clean", instructions: "delete milk" } }] }
        : { text: "root: done" };
    });
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "clean up" });
    expect(suspended.status).toBe("suspended");
    const [pending] = await runtime.pendingApprovals();
    expect(pending!.request).toMatchObject({ toolCallId: "del", depth: 1, parentId: "sub" });
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed).toMatchObject({ status: "complete", text: "root: done" });
    expect(todo.items).toEqual([]);
  });

  it("a new message supersedes a suspended turn: pending approvals denied, calls answered, then the new turn runs", async () => {
    const { runtime, todo, provider, events } = makeRuntime((request) =>
      textOf(request.messages.at(-1)) === "never mind" ? { text: "ok, left it" } : deleteScript(request),
    );
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const next = await runtime.send({
      agentId: "todo",
      content: "never mind",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    expect(next).toMatchObject({ status: "complete", text: "ok, left it" });
    expect(todo.items).toEqual(["milk"]);
    expect(await runtime.pendingApprovals()).toEqual([]);
    await expect(runtime.resolveApproval(pending!.requestId, { approved: true })).rejects.toSatisfy((e) =>
      ApprovalAlreadyResolvedError.isInstance(e),
    );
    const sent = provider.calls.at(-1)!.messages;
    expect(historyProblems(sent)).toEqual([]);
    expect(JSON.stringify(sent)).toMatch(/superseded/);
    expect(events.some((e) => e.type === "approval_resolved" && !e.approved && e.reason === "superseded")).toBe(true);
  });

  it("records decisions of an approval handler", async () => {
    const { runtime, store, todo } = makeRuntime(deleteScript, { approve: async () => ({ approved: true }) });
    todo.items.push("milk");
    const result = await runtime.send({ agentId: "todo", content: "delete milk" });
    expect(result.status).toBe("complete");
    const decisions = (await store.load(result.sessionId))
      .filter((r) => r.kind === "approval")
      .map((r) => (r as { decision?: string }).decision ?? "pending");
    expect(decisions).toEqual(["pending", "approved"]);
  });

  it("waits for every approval of a batch before resuming", async () => {
    const { runtime, todo } = makeRuntime((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: "both handled" };
      return {
        toolCalls: [
          { name: "todo_delete", args: { item: "milk" } },
          { name: "todo_delete", args: { item: "eggs" } },
        ],
      };
    });
    todo.items.push("milk", "eggs");
    await runtime.send({ agentId: "todo", content: "delete both" });
    const pending = await runtime.pendingApprovals();
    expect(pending).toHaveLength(2);
    const partial = await runtime.resolveApproval(pending[0]!.requestId, { approved: true });
    expect(partial.status).toBe("suspended");
    expect(todo.items).toEqual(["milk", "eggs"]);
    const done = await runtime.resolveApproval(pending[1]!.requestId, { approved: false });
    expect(done).toMatchObject({ status: "complete", text: "both handled" });
    expect(todo.items).toEqual(["eggs"]);
  });
});

describe("approvals across runtimes and at scale", () => {
  it("two runtimes resolving one request at once (no lease): the decision is a compare-and-set, the tool runs once", async () => {
    const store = new MemorySessionStore();
    const first = makeRuntime(deleteScript, { store });
    first.todo.items.push("milk", "milk");
    await first.runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await first.runtime.pendingApprovals();
    const second = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store,
      providers: { fake: createFakeProvider(deleteScript) },
      defaultModel: "m",
      tools: first.todo.tools,
    });
    const outcomes = await Promise.allSettled([
      first.runtime.resolveApproval(pending!.requestId, { approved: true }),
      second.resolveApproval(pending!.requestId, { approved: true }),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(
      outcomes.filter((o) => o.status === "rejected" && ApprovalAlreadyResolvedError.isInstance(o.reason)),
    ).toHaveLength(1);
    expect(first.todo.items).toEqual(["milk"]);
  });

  it("with the store's approval index, pendingApprovals and resolveApproval read no other session", async () => {
    const inner = new MemorySessionStore();
    const loaded: string[] = [];
    const store = new Proxy(inner, {
      get(target, property) {
        if (property === "load")
          return (sessionId: string, options?: object) => (loaded.push(sessionId), target.load(sessionId, options));
        const value = Reflect.get(target, property) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const { runtime } = makeRuntime(deleteScript, { store });
    for (let i = 0; i < 30; i++) await inner.createSession({ agentId: "todo", scope: `user-${i}` });
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk", scope: "user-x" });
    loaded.length = 0;
    const pending = await runtime.pendingApprovals();
    expect(pending.map((p) => p.sessionId)).toEqual([suspended.sessionId]);
    expect(loaded).toEqual([]);
    // Another runtime (another process, empty cache) finds the request through the index.
    const other = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store,
      providers: { fake: createFakeProvider(deleteScript) },
      defaultModel: "m",
      tools: todoTools().tools,
    });
    expect((await other.resolveApproval(pending[0]!.requestId, { approved: true })).status).toBe("complete");
    expect(new Set(loaded)).toEqual(new Set([suspended.sessionId]));
  });
});
