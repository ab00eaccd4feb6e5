import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApprovalAlreadyResolvedError,
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  SessionNotFoundError,
  type ApprovalDecision,
  type ModelRequest,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import { storedTurnResult } from "../../src/runtime/create-agent-runtime.js";
import { makeRuntime, textOf } from "./helpers.js";

/** A tool that waits until `release()` or its abort signal; counts its runs and aborts. */
function gate(name = "wait", requiresApproval = false) {
  let open!: () => void;
  let started!: () => void;
  const state = {
    opened: new Promise<void>((resolve) => (open = resolve)),
    running: new Promise<void>((resolve) => (started = resolve)),
    aborted: false,
    runs: 0,
  };
  const tool = defineTool({
    name,
    description: "Waits",
    input: z.object({}),
    requiresApproval,
    execute: async (_input, ctx) => {
      state.runs++;
      started();
      await new Promise<void>((resolve) => {
        void state.opened.then(resolve);
        ctx.signal.addEventListener("abort", () => ((state.aborted = true), resolve()), { once: true });
      });
      return ctx.signal.aborted ? "stopped" : "waited";
    },
  });
  return { tool, state, release: () => open() };
}

/** Calls `wait` again after every result until told "enough"; answers anything else. */
function keepWaiting(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "user" && !textOf(last).startsWith("go")) return { text: `re: ${textOf(last)}` };
  return { toolCalls: [{ name: "wait", args: {} }] };
}

describe("runtime.stopTurn", () => {
  it("stops the turn running here: aborted with the reason, its tool aborted, a turn_stopped event; the session goes on", async () => {
    const wait = gate();
    const { runtime, provider, store, events } = makeRuntime(keepWaiting, { tools: [wait.tool] });
    const running = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    expect(await runtime.stopTurn(session!.sessionId, { reason: "user_pressed_stop" })).toBe(true);
    const result = await running;
    expect(result).toMatchObject({ status: "aborted", reason: "user_pressed_stop" });
    expect(wait.state.aborted).toBe(true);
    const stopped = events.filter((e) => e.type === "turn_stopped");
    expect(stopped).toEqual([expect.objectContaining({ reason: "user_pressed_stop", runId: result.runId, depth: 0 })]);
    // turn_stopped comes just before the turn's done.
    const types = events.filter((e) => e.runId === result.runId).map((e) => e.type);
    expect(types.slice(-2)).toEqual(["turn_stopped", "done"]);
    // The stored outcome says why too.
    expect(await storedTurnResult(store, session!, result.runId, false)).toMatchObject({
      status: "aborted",
      reason: "user_pressed_stop",
    });
    const next = await runtime.send({ agentId: "general", session: session!.sessionId, content: "hello" });
    expect(next.text).toBe("re: hello");
    expect(historyProblems(provider.calls.at(-1)!.messages)).toEqual([]);
    await runtime.close();
  });

  it('returns false when no turn runs, or the running turn is not `runId`; the default reason is "stopped"', async () => {
    const wait = gate();
    const { runtime, store } = makeRuntime(keepWaiting, { tools: [wait.tool] });
    const idle = await runtime.send({ agentId: "general", content: "hi" });
    expect(await runtime.stopTurn(idle.sessionId)).toBe(false);
    const running = runtime.send({ agentId: "general", session: idle.sessionId, content: "go" });
    await wait.state.running;
    expect(await runtime.stopTurn(idle.sessionId, { runId: idle.runId })).toBe(false);
    const records = await store.load(idle.sessionId);
    const starts = records.flatMap((r) => (r.kind === "turn" && r.phase === "start" ? [r.runId] : []));
    const runId = starts.at(-1)!;
    expect(await runtime.stopTurn(idle.sessionId, { runId })).toBe(true);
    expect(await running).toMatchObject({ status: "aborted", reason: "stopped", runId });
    expect(await runtime.stopTurn(idle.sessionId)).toBe(false);
    await runtime.close();
  });

  it("is tenant-guarded: a session outside the guard is not found and its turn goes on", async () => {
    const wait = gate();
    const { runtime, store } = makeRuntime(
      (request) =>
        request.messages.at(-1)!.role === "tool" ? { text: "done" } : { toolCalls: [{ name: "wait", args: {} }] },
      { tools: [wait.tool] },
    );
    const running = runtime.send({ agentId: "general", content: "go", scope: "acme/alice" });
    await wait.state.running;
    const [session] = await store.listSessions();
    await expect(runtime.stopTurn(session!.sessionId, { scope: "evil" })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.stopTurn(session!.sessionId, { scopePrefix: "other/" })).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
    await expect(runtime.stopTurn("no-such-session")).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(runtime.stopTurn(session!.sessionId, { reason: "" })).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(wait.state.aborted).toBe(false);
    wait.release();
    expect((await running).status).toBe("complete");
    expect((await store.load(session!.sessionId)).some((r) => r.kind === "stop")).toBe(false);
    await runtime.close();
  });

  it("reaches a turn of another runtime sharing the store object at once (a store signal): its tool is aborted", async () => {
    const wait = gate();
    const store = new MemorySessionStore();
    const a = makeRuntime(keepWaiting, { store, tools: [wait.tool] });
    const b = makeRuntime(keepWaiting, { store });
    const running = a.runtime.send({ agentId: "general", content: "go", scope: "acme" });
    await wait.state.running;
    const [session] = await store.listSessions();
    expect(await b.runtime.stopTurn(session!.sessionId, { reason: "from_b", scope: "acme" })).toBe(true);
    // Never released: only the stop ends the tool.
    expect(await running).toMatchObject({ status: "aborted", reason: "from_b" });
    expect(wait.state.aborted).toBe(true);
    await a.runtime.close();
    await b.runtime.close();
  });

  it("reaches a turn of another runtime on the same SQLite file with no signal between them, at its next step boundary", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-stop-")), "s.db");
    const wait = gate();
    const a = makeRuntime(keepWaiting, { store: new SqliteSessionStore({ path }), tools: [wait.tool] });
    const b = makeRuntime(keepWaiting, { store: new SqliteSessionStore({ path }) });
    const running = a.runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await a.store.listSessions();
    expect(await b.runtime.stopTurn(session!.sessionId, { reason: "from_b" })).toBe(true);
    expect(wait.state.aborted).toBe(false);
    // The tool finishes; the stop is found before the next model call.
    wait.release();
    const result = await running;
    expect(result).toMatchObject({ status: "aborted", reason: "from_b" });
    expect(a.provider.calls).toHaveLength(1);
    await a.runtime.close();
    await b.runtime.close();
  });
});

describe("stopTurn and decisions", () => {
  it("a session waiting for an approval has no turn running: stopTurn is false, the approval stays pending and resumes once", async () => {
    const { runtime, todo } = makeRuntime((request) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "deleted" }
        : { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] },
    );
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    expect(suspended.status).toBe("suspended");
    expect(await runtime.stopTurn(suspended.sessionId)).toBe(false);
    const [pending] = await runtime.pendingApprovals({ sessionId: suspended.sessionId });
    expect(pending).toBeDefined();
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    await expect(runtime.resolveApproval(pending!.requestId, { approved: true })).rejects.toBeInstanceOf(
      ApprovalAlreadyResolvedError,
    );
    expect(todo.items).toEqual([]);
    await runtime.close();
  });

  it("stopping the turn an approval resumed aborts the approved tool; the decision is not taken twice", async () => {
    const wait = gate("wait", true);
    const { runtime, provider } = makeRuntime(keepWaiting, { tools: [wait.tool] });
    const suspended = await runtime.send({ agentId: "general", content: "go" });
    const [pending] = await runtime.pendingApprovals({ sessionId: suspended.sessionId });
    const resuming = runtime.resolveApproval(pending!.requestId, { approved: true });
    await wait.state.running;
    expect(await runtime.stopTurn(suspended.sessionId, { runId: suspended.runId })).toBe(true);
    expect(await resuming).toMatchObject({ status: "aborted", reason: "stopped" });
    expect(wait.state.aborted).toBe(true);
    expect(wait.state.runs).toBe(1);
    await expect(runtime.resolveApproval(pending!.requestId, { approved: true })).rejects.toBeInstanceOf(
      ApprovalAlreadyResolvedError,
    );
    expect(await runtime.pendingApprovals({ sessionId: suspended.sessionId })).toEqual([]);
    const next = await runtime.send({ agentId: "general", session: suspended.sessionId, content: "hello" });
    expect(next.text).toBe("re: hello");
    expect(historyProblems(provider.calls.at(-1)!.messages)).toEqual([]);
    expect(wait.state.runs).toBe(1);
    await runtime.close();
  });

  it("stopping a turn while the host's approval handler decides: the call never runs, no decision is left open", async () => {
    const wait = gate("wait", true);
    let asked!: () => void;
    const asking = new Promise<void>((resolve) => (asked = resolve));
    const { runtime, provider, store } = makeRuntime(keepWaiting, {
      tools: [wait.tool],
      approve: (_request, _info) => {
        asked();
        return new Promise<ApprovalDecision>(() => undefined); // a person who never answers
      },
    });
    const running = runtime.send({ agentId: "general", content: "go" });
    await asking;
    const [session] = await store.listSessions();
    expect(await runtime.stopTurn(session!.sessionId)).toBe(true);
    expect((await running).status).toBe("aborted");
    expect(wait.state.runs).toBe(0);
    expect(await runtime.pendingApprovals({ sessionId: session!.sessionId })).toEqual([]);
    const next = await runtime.send({ agentId: "general", session: session!.sessionId, content: "hello" });
    expect(next.text).toBe("re: hello");
    expect(historyProblems(provider.calls.at(-1)!.messages)).toEqual([]);
    expect(wait.state.runs).toBe(0);
    await runtime.close();
  });
});
