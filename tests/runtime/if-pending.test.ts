import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  MemorySessionStore,
  createAgentRegistry,
  ApprovalAlreadyResolvedError,
  ApprovalSupersededError,
  InvalidArgumentError,
  PendingDecisionError,
  type ModelRequest,
  type RuntimeEvent,
  type TurnResult,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import type { ApprovalRecord } from "../../src/contracts/session-store.js";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

/** Deletes "milk" (approval needed) when asked to; answers anything else with what it saw last. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content.map((r) => r.result))}` };
  const text = textOf(last);
  return text.includes("delete")
    ? { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] }
    : { text: `re: ${text}` };
}

/** The root conversation of a session as `role: text` lines. */
async function transcript(
  store: { load: (id: string) => Promise<{ kind: string; frame: string | null; message?: { role: string } }[]> },
  sessionId: string,
) {
  return (await store.load(sessionId)).flatMap((r) =>
    r.kind === "message" && r.frame === null ? [`${r.message!.role}: ${textOf(r.message as never)}`] : [],
  );
}

/** Resolves with the `done` of each of `runIds` on `runtime.events` (listening from now on). */
function doneOf(
  runtime: { events: { on(type: "event", listener: (event: RuntimeEvent) => void): unknown } },
  runIds: string[],
): Promise<TurnResult[]> {
  const done = new Map<string, TurnResult>();
  return new Promise((resolve) =>
    runtime.events.on("event", (event) => {
      if (event.type !== "done" || event.depth !== 0 || !runIds.includes(event.runId)) return;
      done.set(event.runId, event.result as TurnResult);
      if (done.size === runIds.length) resolve(runIds.map((runId) => done.get(runId)!));
    }),
  );
}

describe("SendInput.ifPending", () => {
  it('"queue" (the default): the message is stored, send and stream return at once, and it runs after the resumed turn', async () => {
    const { runtime, store, todo } = makeRuntime(script);
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();

    const seen: RuntimeEvent[] = [];
    for await (const event of runtime.stream({ agentId: "todo", content: "any news?", session: suspended.sessionId }))
      seen.push(event);
    // The stream ends after message_queued: it does not wait for the decision.
    expect(seen.map((e) => e.type)).toEqual(["message_queued"]);
    expect(seen[0]).toMatchObject({
      sessionId: suspended.sessionId,
      pendingRequestIds: [pending!.requestId],
      queuedMessageId: `queued:${seen[0]!.runId}`,
    });
    const second = await runtime.send({ agentId: "todo", content: "hello?", session: suspended.sessionId });
    expect(second).toMatchObject({
      status: "queued",
      sessionId: suspended.sessionId,
      queuedMessageId: `queued:${second.runId}`,
      pendingApprovals: [expect.objectContaining({ requestId: pending!.requestId })],
      text: "",
      messages: [],
    });
    // Stored before send returned, not in the conversation yet.
    const queuedRecords = (await store.load(suspended.sessionId)).filter((r) => r.kind === "queued");
    expect(queuedRecords.map((r) => r.id)).toEqual([`queued:${seen[0]!.runId}`, `queued:${second.runId}`]);
    expect(await transcript(store, suspended.sessionId)).not.toContain("user: hello?");
    // Nothing was discarded: the approval is still there for the approver.
    expect((await runtime.pendingApprovals()).map((p) => p.requestId)).toEqual([pending!.requestId]);

    const ran = doneOf(runtime, [seen[0]!.runId, second.runId]);
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed).toMatchObject({ status: "complete", text: 'tool said: ["deleted milk"]' });
    expect(await ran).toMatchObject([
      { status: "complete", text: "re: any news?" },
      { status: "complete", text: "re: hello?" },
    ]);
    expect(todo.items).toEqual([]);
    // Arrival order, each message once, and a history every provider takes.
    expect(await transcript(store, suspended.sessionId)).toEqual([
      "user: delete milk",
      expect.stringMatching(/^assistant/),
      expect.stringMatching(/^tool: .*deleted milk/),
      'assistant: tool said: ["deleted milk"]',
      "user: any news?",
      "assistant: re: any news?",
      "user: hello?",
      "assistant: re: hello?",
    ]);
  });

  it('"queue": a decision made by another runtime on the same store runs the queued message there', async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-queue-")), "s.db");
    const a = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const b = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const suspended = await a.runtime.send({ agentId: "todo", content: "delete milk" });
    const queued = await a.runtime.send({ agentId: "todo", content: "still there?", session: suspended.sessionId });
    expect(queued.status).toBe("queued");
    // The process that accepted it is gone; the message is not.
    await a.runtime.close();
    const [pending] = await b.runtime.pendingApprovals();
    const ran = doneOf(b.runtime, [queued.runId]);
    await b.runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(await ran).toMatchObject([{ status: "complete", text: "re: still there?" }]);
    expect(
      (await transcript(b.store, suspended.sessionId)).filter((line) => line === "user: still there?"),
    ).toHaveLength(1);
  });

  it('"queue": a send retried under the same runId while it waits stores nothing twice, and runs once', async () => {
    const { runtime, store } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const send = () =>
      runtime.send({ agentId: "todo", content: "once?", session: suspended.sessionId, runId: "job-7" });
    expect(await send()).toMatchObject({ status: "queued", runId: "job-7", queuedMessageId: "queued:job-7" });
    expect(await send()).toMatchObject({ status: "queued", runId: "job-7" });
    expect((await store.load(suspended.sessionId)).filter((r) => r.kind === "queued")).toHaveLength(1);
    const ran = doneOf(runtime, ["job-7"]);
    const [pending] = await runtime.pendingApprovals();
    await runtime.resolveApproval(pending!.requestId, { approved: true });
    await ran;
    // Sent again after it ran: its stored outcome, nothing runs.
    expect(await send()).toMatchObject({ status: "complete", text: "re: once?", runId: "job-7" });
    expect((await transcript(store, suspended.sessionId)).filter((line) => line === "user: once?")).toHaveLength(1);
  });

  it('"queue": postSystemMessage to a waiting session resolves once the message is stored, and it runs after the decision', async () => {
    const { runtime, store } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    await runtime.postSystemMessage({ sessionId: suspended.sessionId }, "the build is green", { origin: "ci" });
    const stored = (await store.load(suspended.sessionId)).filter((r) => r.kind === "queued");
    expect(stored).toHaveLength(1);
    const ran = doneOf(runtime, [(stored[0] as { runId: string }).runId]);
    const [pending] = await runtime.pendingApprovals();
    await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect((await ran)[0]!.text).toContain("the build is green");
  });

  it('"reject": throws PendingDecisionError naming the pending requests, and stores nothing', async () => {
    const { runtime, store } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const before = (await store.load(suspended.sessionId)).length;
    const [pending] = await runtime.pendingApprovals();
    const error = await runtime
      .send({ agentId: "todo", content: "hi", session: suspended.sessionId, ifPending: "reject" })
      .catch((e: unknown) => e);
    expect(PendingDecisionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ sessionId: suspended.sessionId, requestIds: [pending!.requestId] });
    expect((await store.load(suspended.sessionId)).length).toBe(before);
    expect((await runtime.resolveApproval(pending!.requestId, { approved: true })).status).toBe("complete");
  });

  it('"supersede": denies the pending decisions as superseded, says so, and a late decision gets ApprovalSupersededError', async () => {
    const { runtime, store, todo, events } = makeRuntime(script);
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const next = await runtime.send({
      agentId: "todo",
      content: "never mind",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    expect(next).toMatchObject({ status: "complete", text: "re: never mind" });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "approval_resolved",
        requestId: pending!.requestId,
        approved: false,
        reason: "superseded",
      }),
    );
    const late = await runtime.resolveApproval(pending!.requestId, { approved: true }).catch((e: unknown) => e);
    expect(ApprovalSupersededError.isInstance(late)).toBe(true);
    // Still an "already resolved" for hosts that catch that.
    expect(ApprovalAlreadyResolvedError.isInstance(late)).toBe(true);
    expect(todo.items).toEqual(["milk"]);
    const messages = (await store.load(suspended.sessionId)).flatMap((r) =>
      r.kind === "message" && r.frame === null ? [r.message] : [],
    );
    expect(historyProblems(messages)).toEqual([]);
  });

  it("a question waits the same way, and an answer releases the queue", async () => {
    const { runtime } = makeRuntime(
      (request) => {
        const last = request.messages.at(-1)!;
        if (last.role === "tool") return { text: `answered ${JSON.stringify(last.content[0]!.result)}` };
        if (textOf(last) === "plan it")
          return {
            toolCalls: [
              {
                name: "ask_user",
                args: { question: "Which day?", severity: "major", options: [{ label: "Mon", value: "mon" }] },
              },
            ],
          };
        return { text: `re: ${textOf(last)}` };
      },
      { tools: [], registry: createAgentRegistry([{ agentId: "general", displayName: "General", role: "actor" }]) },
    );
    const asked = await runtime.send({ agentId: "general", content: "plan it" });
    expect(asked.status).toBe("suspended");
    const queued = await runtime.send({ agentId: "general", content: "and then?", session: asked.sessionId });
    const [question] = await runtime.pendingQuestions();
    expect(queued).toMatchObject({ status: "queued", pendingApprovals: [{ requestId: question!.questionId }] });
    const ran = doneOf(runtime, [queued.runId]);
    await runtime.answerQuestion(question!.questionId, { value: "mon" });
    expect(await ran).toMatchObject([{ text: "re: and then?" }]);
  });

  it("messages queue in arrival order, also one sent after the decision while others wait", async () => {
    const { runtime, store } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const send = (content: string) => runtime.send({ agentId: "todo", content, session: suspended.sessionId });
    const first = await send("one");
    const second = await send("two");
    expect([first.status, second.status]).toEqual(["queued", "queued"]);
    const ran = doneOf(runtime, [first.runId, second.runId]);
    const resolved = runtime.resolveApproval(pending!.requestId, { approved: true });
    // Sent after the decision: it runs after the messages stored before it.
    const third = await send("three");
    expect(third).toMatchObject({ status: "complete", text: "re: three" });
    await Promise.all([ran, resolved]);
    expect((await transcript(store, suspended.sessionId)).filter((line) => line.startsWith("user:"))).toEqual([
      "user: delete milk",
      "user: one",
      "user: two",
      "user: three",
    ]);
  });

  it("messages still queued when an emergency context reset happens stay queued after it, and run", async () => {
    // Every turn resets: the limit is below any context.
    const { runtime, store } = makeRuntime(script, { emergencyContextLimit: 1 });
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const first = await runtime.send({ agentId: "todo", content: "one", session: suspended.sessionId });
    const second = await runtime.send({ agentId: "todo", content: "two", session: suspended.sessionId });
    const ran = doneOf(runtime, [first.runId, second.runId]);
    const [pending] = await runtime.pendingApprovals();
    await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(await ran).toMatchObject([{ text: "re: one" }, { text: "re: two" }]);
    expect((await store.load(suspended.sessionId)).filter((r) => r.kind === "reset").length).toBeGreaterThan(0);
  });

  it("a message that waited behind a decision made by a process that died runs when a listing of its session touches it", async () => {
    const store = new MemorySessionStore();
    const first = makeRuntime(script, { store });
    const suspended = await first.runtime.send({ agentId: "todo", content: "delete milk" });
    const queued = await first.runtime.send({ agentId: "todo", content: "late?", session: suspended.sessionId });
    const [pending] = await first.runtime.pendingApprovals();
    await first.runtime.close();
    // What a process that died between storing a decision and resuming the turn leaves behind.
    const request = (await store.load(suspended.sessionId)).find(
      (r) => r.kind === "approval" && r.request.requestId === pending!.requestId,
    ) as ApprovalRecord;
    await store.append(suspended.sessionId, [
      {
        id: `${pending!.requestId}:decision`,
        frame: null,
        kind: "approval",
        request: request.request,
        decision: "approved",
      },
    ]);
    const next = makeRuntime(script, { store });
    const ran = doneOf(next.runtime, [queued.runId]);
    expect(await next.runtime.pendingApprovals({ sessionId: suspended.sessionId })).toEqual([]);
    expect(await ran).toMatchObject([{ status: "complete", text: "re: late?" }]);
    expect((await transcript(store, suspended.sessionId)).filter((line) => line.startsWith("user:"))).toEqual([
      "user: delete milk",
      "user: late?",
    ]);
  });

  it("a decided turn whose process died mid-resume is continued first, then the messages queued behind its decision run", async () => {
    const store = new MemorySessionStore();
    const first = makeRuntime(script, { store });
    const suspended = await first.runtime.send({ agentId: "todo", content: "delete milk" });
    const queued = await first.runtime.send({ agentId: "todo", content: "later", session: suspended.sessionId });
    const [pending] = await first.runtime.pendingApprovals();
    await first.runtime.close();
    // What a process that stored the decision and started the resumed turn, then died, leaves behind.
    const request = (await store.load(suspended.sessionId)).find(
      (r) => r.kind === "approval" && r.request.requestId === pending!.requestId,
    ) as ApprovalRecord;
    await store.append(suspended.sessionId, [
      {
        id: `${pending!.requestId}:decision`,
        frame: null,
        kind: "approval",
        request: request.request,
        decision: "approved",
        decisionId: "job-1",
      },
      {
        id: "resumed-1:0",
        frame: null,
        kind: "turn",
        runId: "resumed-1",
        phase: "start",
        resumeOf: suspended.runId,
      } as never,
    ]);
    const next = makeRuntime(script, { store });
    const ran = doneOf(next.runtime, [queued.runId]);
    // The decision retried under its id: the resumed turn is continued, not closed by the queued message's turn.
    const resumed = await next.runtime.resolveApproval(pending!.requestId, { approved: true, decisionId: "job-1" });
    expect(resumed).toMatchObject({ status: "complete", runId: "resumed-1:retry-1" });
    expect(await ran).toMatchObject([{ status: "complete", text: "re: later" }]);
    expect((await transcript(store, suspended.sessionId)).slice(-3)).toEqual([
      expect.stringMatching(/^assistant: tool said/),
      "user: later",
      "assistant: re: later",
    ]);
  });

  it("a listing guarded by another tenant does not touch the session", async () => {
    const store = new MemorySessionStore();
    const first = makeRuntime(script, { store });
    const suspended = await first.runtime.send({ agentId: "todo", content: "delete milk", scope: "acme" });
    await first.runtime.send({ agentId: "todo", content: "late?", session: suspended.sessionId, scope: "acme" });
    const [pending] = await first.runtime.pendingApprovals();
    await first.runtime.close();
    const request = (await store.load(suspended.sessionId)).find(
      (r) => r.kind === "approval" && r.request.requestId === pending!.requestId,
    ) as ApprovalRecord;
    await store.append(suspended.sessionId, [
      {
        id: `${pending!.requestId}:decision`,
        frame: null,
        kind: "approval",
        request: request.request,
        decision: "approved",
      },
    ]);
    const next = makeRuntime(script, { store });
    const events: RuntimeEvent[] = [];
    next.runtime.events.on("event", (event) => events.push(event));
    expect(await next.runtime.pendingApprovals({ sessionId: suspended.sessionId, scope: "globex" })).toEqual([]);
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([]);
    expect(
      (await store.load(suspended.sessionId)).some(
        (r) => r.kind === "turn" && r.phase === "start" && r.runId !== suspended.runId,
      ),
    ).toBe(false);
  });

  it("rejects an unknown ifPending before anything happens", async () => {
    const { runtime } = makeRuntime(script);
    await expect(runtime.send({ agentId: "todo", content: "hi", ifPending: "later" as never })).rejects.toThrow(
      InvalidArgumentError,
    );
  });
});
