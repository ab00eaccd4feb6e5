import { describe, expect, it } from "vitest";
import {
  ApprovalAlreadyResolvedError,
  InvalidArgumentError,
  MemorySessionStore,
  type HistoryRecord,
} from "@agentry/core";
import { storedTurnResult } from "../../src/runtime/session/stored-turn-result.js";
import { historyProblems } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

const turnsOf = (records: HistoryRecord[]) =>
  records
    .filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn")
    .map((t) => `${t.runId}:${t.phase}:${t.status ?? ""}`);

describe("SendInput.runId: a turn sent again under its run id runs nothing twice", () => {
  it("a turn that ended: the second send stores nothing and calls no model; it resolves with the stored outcome", async () => {
    const { runtime, provider, store, todo } = makeRuntime((request) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "added it" }
        : { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] },
    );
    const first = await runtime.send({ agentId: "todo", content: "add milk", runId: "job-1" });
    expect(first).toMatchObject({ status: "complete", text: "added it", runId: "job-1" });
    const records = await store.load(first.sessionId);
    const again = await runtime.send({
      agentId: "todo",
      content: "add milk",
      session: first.sessionId,
      runId: "job-1",
    });
    expect(again).toMatchObject({ status: "complete", text: "added it", runId: "job-1", sessionId: first.sessionId });
    // The stored outcome reports the turn's usage and execution tree, as the first run did.
    expect(again.usage).toEqual(first.usage);
    expect(again.usage.llmCalls).toBe(2);
    expect(again.executionTree.nodes.map((n) => n.name)).toEqual(["todo_add"]);
    expect(await store.load(first.sessionId)).toEqual(records);
    expect(provider.calls.length).toBe(2);
    expect(todo.items).toEqual(["milk"]);
  });

  it("a turn whose process died mid-turn is repaired and continued as <runId>:retry-1: a stored tool result is reused, the message is not stored twice", async () => {
    const store = new MemorySessionStore();
    const session = await store.createSession({ agentId: "todo" });
    // What a process that died after the first call's result was stored left behind.
    await store.append(session.sessionId, [
      { id: "job-2:0", frame: null, kind: "turn", runId: "job-2", phase: "start" },
      { id: "job-2:1", frame: null, kind: "message", message: { role: "user", content: "add milk" } },
      {
        id: "job-2:2",
        frame: null,
        kind: "message",
        message: {
          role: "assistant",
          content: [{ type: "tool_call", id: "c1", name: "todo_add", args: { item: "milk" } }],
        },
      },
      {
        id: "job-2:result:c1",
        frame: null,
        kind: "tool_result",
        runId: "job-2",
        toolCallId: "c1",
        result: { type: "tool_result", toolCallId: "c1", name: "todo_add", result: "added milk" },
      },
    ] as never);
    const { runtime, provider, todo } = makeRuntime(
      (request) => ({ text: `after: ${textOf(request.messages.at(-1))}` }),
      { store },
    );
    const result = await runtime.send({
      agentId: "todo",
      content: "add milk",
      session: session.sessionId,
      runId: "job-2",
    });
    expect(result).toMatchObject({ status: "complete", runId: "job-2:retry-1" });
    expect(result.text).toContain("added milk");
    expect(todo.items).toEqual([]); // never run again
    expect(provider.calls.length).toBe(1);
    const records = await store.load(session.sessionId);
    expect(records.filter((r) => r.kind === "message" && r.message.role === "user").length).toBe(1);
    expect(turnsOf(records)).toEqual([
      "job-2:start:",
      "job-2:end:error",
      "job-2:retry-1:start:",
      "job-2:retry-1:end:complete",
    ]);
    expect(historyProblems(records.flatMap((r) => (r.kind === "message" ? [r.message] : [])))).toEqual([]);
    // And once more: the continuation's outcome, nothing new.
    const again = await runtime.send({
      agentId: "todo",
      content: "add milk",
      session: session.sessionId,
      runId: "job-2",
    });
    expect(again).toMatchObject({ status: "complete", runId: "job-2:retry-1" });
    expect((await store.load(session.sessionId)).length).toBe(records.length);
  });

  it("a turn that died after its answer was stored is closed as complete with that answer (no model call)", async () => {
    const store = new MemorySessionStore();
    const session = await store.createSession({ agentId: "general" });
    await store.append(session.sessionId, [
      { id: "job-3:0", frame: null, kind: "turn", runId: "job-3", phase: "start" },
      { id: "job-3:1", frame: null, kind: "message", message: { role: "user", content: "hi" } },
      {
        id: "job-3:2",
        frame: null,
        kind: "message",
        message: { role: "assistant", content: [{ type: "text", text: "hello" }] },
      },
    ] as never);
    const { runtime, provider } = makeRuntime([], { store });
    const result = await runtime.send({
      agentId: "general",
      content: "hi",
      session: session.sessionId,
      runId: "job-3",
    });
    expect(result).toMatchObject({ status: "complete", text: "hello", runId: "job-3" });
    expect(provider.calls.length).toBe(0);
    expect(await storedTurnResult(store, session, "job-3", false)).toMatchObject({ status: "complete", text: "hello" });
  });

  it("rejects a malformed runId", async () => {
    const { runtime } = makeRuntime([]);
    await expect(runtime.send({ agentId: "general", content: "hi", runId: "has space" })).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e),
    );
  });
});

describe("resolveApproval decisionId: the same decider asking again gets the resumed turn, not an error", () => {
  it("a repeated call with the stored decision's decisionId resolves with the resumed turn's outcome; another decider still gets ApprovalAlreadyResolvedError", async () => {
    const { runtime } = makeRuntime((request) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "deleted" }
        : { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] },
    );
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const first = await runtime.resolveApproval(requestId, { approved: true, decisionId: "job-9" });
    expect(first).toMatchObject({ status: "complete", text: "deleted" });
    const again = await runtime.resolveApproval(requestId, { approved: true, decisionId: "job-9" });
    expect(again).toMatchObject({ status: "complete", text: "deleted", runId: first.runId });
    await expect(runtime.resolveApproval(requestId, { approved: true, decisionId: "job-10" })).rejects.toSatisfy(
      (e: unknown) => ApprovalAlreadyResolvedError.isInstance(e),
    );
    await expect(runtime.resolveApproval(requestId, { approved: true })).rejects.toSatisfy((e: unknown) =>
      ApprovalAlreadyResolvedError.isInstance(e),
    );
  });
});
