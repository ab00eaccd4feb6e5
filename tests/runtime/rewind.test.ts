import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  InvalidArgumentError,
  MemorySessionStore,
  PendingDecisionError,
  SessionBusyError,
  SessionNotFoundError,
  type HistoryRecord,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { toUIMessageStream, type UiMessageChunk } from "@agentry/core/ui";
import { createEventLog, type EventLog, type SessionSnapshotEvent } from "@agentry/core";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import type { RewindRecord } from "../../src/contracts/session-store.js";
import { makeRuntime, textOf } from "./helpers.js";

/**
 * "add X" calls todo_add; "delete X" calls todo_delete (approval needed); "wait" waits for the
 * abort; anything else is answered with the user messages the model saw, in order.
 */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `done: ${JSON.stringify(last.content.map((r) => r.result))}` };
  const text = textOf(last);
  const add = /^add (\w+)/.exec(text);
  if (add) return { toolCalls: [{ name: "todo_add", args: { item: add[1] } }] };
  const remove = /^delete (\w+)/.exec(text);
  if (remove) return { toolCalls: [{ name: "todo_delete", args: { item: remove[1] } }] };
  if (text === "wait") return { text: "never", delayMs: Infinity };
  const users = request.messages.filter((m) => m.role === "user").map((m) => textOf(m));
  return { text: `saw: ${users.join(" | ")}` };
}

const rewinds = (records: HistoryRecord[]) =>
  records.filter((r): r is RewindRecord & HistoryRecord => r.kind === "rewind");
const userTexts = (records: HistoryRecord[]) =>
  records.flatMap((r) => (r.kind === "message" && r.message.role === "user" ? [textOf(r.message)] : []));

const stores: [string, () => SessionStore][] = [
  ["memory", () => new MemorySessionStore()],
  ["SQLite", () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-rewind-")), "s.db") })],
];

describe.each(stores)("rewind, edit, regenerate, fork (%s)", (_, makeStore) => {
  it("messageId is stored with the message; a turn's first answer is stored under its run id, as its message event says", async () => {
    const { runtime, store, events } = makeRuntime(script, { store: makeStore() });
    const first = await runtime.send({ agentId: "todo", content: "hello", messageId: "ui-1" });
    const records = await store.load(first.sessionId);
    const user = records.find((r) => r.kind === "message" && r.message.role === "user");
    expect(user).toMatchObject({ kind: "message", messageId: "ui-1" });
    const answer = records.find((r) => r.kind === "message" && r.message.role === "assistant");
    expect(answer?.id).toBe(first.runId);
    const messageEvents = events.filter((e): e is RuntimeEvent & { type: "message" } => e.type === "message");
    expect(messageEvents.map((e) => e.messageId)).toEqual([first.runId]);
    // A second answer of the same turn (after a tool call) gets an id of its own.
    const tools = await runtime.send({ agentId: "todo", content: "add milk", session: first.sessionId });
    const ids = events.flatMap((e) => (e.type === "message" && e.runId === tools.runId ? [e.messageId] : []));
    expect(ids[0]).toBe(tools.runId);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = (await store.load(first.sessionId)).map((r) => r.id);
    for (const id of ids) expect(stored).toContain(id);
  });

  it("rewind: the model's context resumes before the message; the log keeps everything and names the calls that ran", async () => {
    const { runtime, store, todo } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const session = one.sessionId;
    await runtime.send({ agentId: "todo", content: "add milk", messageId: "m2", session });
    await runtime.send({ agentId: "todo", content: "three", messageId: "m3", session });
    const before = (await store.load(session)).length;

    await runtime.rewind(session, { before: "m2" });
    const next = await runtime.send({ agentId: "todo", content: "four", session });
    expect(next.text).toBe("saw: one | four");

    const records = await store.load(session);
    expect(records.length).toBeGreaterThan(before);
    // Nothing deleted: every message is still in the log, and the audit entry of the call stays.
    expect(userTexts(records)).toEqual(["one", "add milk", "three", "four"]);
    expect((await runtime.auditLog(session)).map((r) => r.entry.tool)).toEqual(["todo_add"]);
    const [rewind] = rewinds(records);
    expect(rewind).toMatchObject({ before: "m2", cause: "rewind" });
    expect(rewind!.toolCalls.map((c) => c.tool)).toEqual(["todo_add"]);
    // Side effects are not undone.
    expect(todo.items).toEqual(["milk"]);
    expect(historyProblems(next.messages)).toEqual([]);
  });

  it("rewind before an assistant message keeps the user message before it; snapshots and ids follow", async () => {
    const { runtime, store } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const session = one.sessionId;
    await runtime.rewind(session, { before: one.runId });
    const again = await runtime.send({ agentId: "todo", content: "two", session });
    expect(again.text).toBe("saw: one | two");
    const state = await import("../../src/runtime/records/session-state.js").then(async ({ readSessionState }) =>
      readSessionState(await store.load(session, { sinceLastReset: true })),
    );
    expect(state.messageRefs.map((r) => r.id)).toEqual(["m1", expect.any(String), again.runId]);
  });

  it("editOf sends new content in place of a user message (keeping its id when asked); regenerate runs the last one again", async () => {
    const { runtime, store, provider } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const session = one.sessionId;
    await runtime.send({ agentId: "todo", content: "two", messageId: "m2", session });

    const edited = await runtime.send({ agentId: "todo", content: "TWO", editOf: "m2", messageId: "m2", session });
    expect(edited.text).toBe("saw: one | TWO");
    const calls = provider.calls.length;
    const regenerated = await runtime.send({ agentId: "todo", session, regenerate: true });
    expect(regenerated.text).toBe("saw: one | TWO");
    expect(provider.calls.length).toBe(calls + 1);
    expect(provider.calls.at(-1)!.messages.map((m) => textOf(m))).toEqual(["one", "saw: one", "TWO"]);

    const records = await store.load(session);
    expect(rewinds(records).map((r) => [r.before, r.cause])).toEqual([
      ["m2", "edit"],
      ["m2", "regenerate"],
    ]);
    // The regenerated message keeps its id: it can be edited again by it.
    const again = await runtime.send({ agentId: "todo", content: "zwei", editOf: "m2", session });
    expect(again.text).toBe("saw: one | zwei");
    expect(userTexts(records)).toEqual(["one", "two", "TWO", "TWO"]);
  });

  it("the same messageId with the same content is a retry that runs nothing twice; other content is refused", async () => {
    const { runtime, provider } = makeRuntime(script, { store: makeStore() });
    const first = await runtime.send({ agentId: "todo", content: "hello", messageId: "ui-1" });
    const calls = provider.calls.length;
    const retry = await runtime.send({
      agentId: "todo",
      content: "hello",
      messageId: "ui-1",
      session: first.sessionId,
    });
    expect(retry).toMatchObject({ runId: first.runId, text: first.text, status: "complete" });
    expect(provider.calls.length).toBe(calls);
    await expect(
      runtime.send({ agentId: "todo", content: "other", messageId: "ui-1", session: first.sessionId }),
    ).rejects.toThrow(InvalidArgumentError);
    // A message a rewind took out of the context frees its id.
    await runtime.rewind(first.sessionId, { before: "ui-1" });
    const reused = await runtime.send({
      agentId: "todo",
      content: "other",
      messageId: "ui-1",
      session: first.sessionId,
    });
    expect(reused.text).toBe("saw: other");
  });

  it("rewind and fork are refused while a turn runs or a decision is pending, and outside the tenant", async () => {
    const { runtime, todo } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1", scope: "alice" });
    const session = one.sessionId;
    const controller = new AbortController();
    const running = runtime.send({
      agentId: "todo",
      content: "wait",
      session,
      scope: "alice",
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(runtime.rewind(session, { before: "m1" })).rejects.toThrow(SessionBusyError);
    await expect(runtime.forkSession(session)).rejects.toThrow(SessionBusyError);
    controller.abort();
    expect((await running).status).toBe("aborted");

    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk", session, scope: "alice" });
    expect(suspended.status).toBe("suspended");
    const error = await runtime.rewind(session, { before: "m1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PendingDecisionError);
    expect((error as PendingDecisionError).requestIds).toEqual(suspended.pendingApprovals!.map((p) => p.requestId));
    await expect(runtime.forkSession(session)).rejects.toThrow(PendingDecisionError);
    await expect(
      runtime.send({ agentId: "todo", content: "x", editOf: "m1", session, scope: "alice", ifPending: "reject" }),
    ).rejects.toThrow(PendingDecisionError);
    await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });

    await expect(runtime.rewind(session, { before: "m1", scope: "bob" })).rejects.toThrow(SessionNotFoundError);
    await expect(runtime.forkSession(session, { scope: "bob" })).rejects.toThrow(SessionNotFoundError);
    await expect(runtime.forkSession(session, { scopePrefix: "bo" })).rejects.toThrow(SessionNotFoundError);
    await expect(runtime.rewind("nope", { before: "m1" })).rejects.toThrow(SessionNotFoundError);
    await runtime.rewind(session, { before: "m1", scope: "alice" });
  });

  it("names that are not messages of the current context, and malformed ids, are typed errors", async () => {
    const { runtime, store } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "add milk", messageId: "m1" });
    const session = one.sessionId;
    const tool = (await store.load(session)).find((r) => r.kind === "message" && r.message.role === "tool")!;
    for (const before of ["unknown", tool.id, "", "x".repeat(257), "a\nb", "\ud800"])
      await expect(runtime.rewind(session, { before })).rejects.toThrow(InvalidArgumentError);
    await expect(runtime.forkSession(session, { before: "unknown" })).rejects.toThrow(InvalidArgumentError);
    await expect(runtime.send({ agentId: "todo", content: "x", editOf: one.runId, session })).rejects.toThrow(
      /not a user message/,
    );
    await expect(runtime.send({ agentId: "todo", content: "x", editOf: "unknown", session })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(runtime.send({ agentId: "todo", content: "x", messageId: "\udc00" })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(runtime.send({ agentId: "todo", content: "x", regenerate: true, session })).rejects.toThrow(
      InvalidArgumentError,
    );
    await expect(runtime.send({ agentId: "todo", session })).rejects.toThrow(InvalidArgumentError);
    const empty = await store.createSession({ agentId: "todo" });
    await expect(runtime.send({ agentId: "todo", regenerate: true, session: empty.sessionId })).rejects.toThrow(
      /no user message/,
    );
    // Nothing was stored by the refused calls.
    expect(rewinds(await store.load(session))).toEqual([]);
  });

  it("forkSession copies the context up to a message into a new session of the same scope, independent of the source", async () => {
    const { runtime, store } = makeRuntime(script, { store: makeStore() });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1", scope: "alice" });
    const source = one.sessionId;
    await runtime.send({ agentId: "todo", content: "two", messageId: "m2", session: source, scope: "alice" });
    await store.updateSession(source, { name: "Chat" });

    const fork = await runtime.forkSession(source, { before: "m2", scope: "alice" });
    expect(fork).toMatchObject({
      agentId: "todo",
      scope: "alice",
      name: "Chat",
      attributes: { forkedFrom: { sessionId: source, before: "m2" } },
    });
    expect(fork.sessionId).not.toBe(source);
    await runtime.send({ agentId: "todo", content: "source goes on", session: source, scope: "alice" });
    const forked = await runtime.send({
      agentId: "todo",
      content: "fork goes on",
      session: fork.sessionId,
      scope: "alice",
    });
    expect(forked.text).toBe("saw: one | fork goes on");
    // The copy keeps the messages' ids: the fork can be rewound and edited by them.
    await runtime.rewind(fork.sessionId, { before: one.runId });
    const whole = await runtime.forkSession(source, { name: "Copy" });
    expect(whole.name).toBe("Copy");
    expect(userTexts(await store.load(whole.sessionId))).toEqual(["one", "two", "source goes on"]);
    expect(userTexts(await store.load(source))).toEqual(["one", "two", "source goes on"]);
  });
});

describe("rewind and fork keep the guarantees", () => {
  it("a fork of a session with a decided approval does not run it again; a rewound approval stays decided", async () => {
    const { runtime, todo } = makeRuntime(script);
    todo.items.push("milk", "eggs");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk", messageId: "m1" });
    const [request] = suspended.pendingApprovals!;
    await runtime.resolveApproval(request!.requestId, { approved: true });
    expect(todo.items).toEqual(["eggs"]);
    todo.items.push("milk");

    const fork = await runtime.forkSession(suspended.sessionId);
    expect(await runtime.pendingApprovals({ sessionId: fork.sessionId })).toEqual([]);
    const goOn = await runtime.send({ agentId: "todo", content: "hi", session: fork.sessionId });
    expect(goOn.status).toBe("complete");
    expect(todo.items).toEqual(["eggs", "milk"]);
    await runtime.rewind(suspended.sessionId, { before: "m1" });
    await expect(runtime.resolveApproval(request!.requestId, { approved: true })).rejects.toThrow(/already resolved/);
    expect(todo.items).toEqual(["eggs", "milk"]);
  });

  it("the context's token estimate counts only what a rewind kept (no emergency reset for what it took out)", async () => {
    const { runtime, events } = makeRuntime(script, { emergencyContextLimit: 2_000 });
    const big = "word ".repeat(1_000);
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const session = one.sessionId;
    await runtime.send({ agentId: "todo", content: big, messageId: "big", session });
    await runtime.rewind(session, { before: "big" });
    const next = await runtime.send({ agentId: "todo", content: "two", session });
    expect(next.text).toBe("saw: one | two");
    expect(events.filter((e) => e.type === "warning" && e.code === "context_reset")).toEqual([]);
  });

  it("a turn a crash left open is closed by the next turn, which sees only what the rewind kept", async () => {
    const store = new MemorySessionStore();
    const { runtime, provider } = makeRuntime(script, { store });
    const one = await runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const session = one.sessionId;
    // A turn whose process died after the model asked for a tool.
    await store.append(session, [
      { id: "crash:0", frame: null, kind: "turn", runId: "crash", phase: "start" },
      { id: "crash:1", frame: null, kind: "message", message: { role: "user", content: "add eggs" }, messageId: "m2" },
      {
        id: "crash",
        frame: null,
        kind: "message",
        message: {
          role: "assistant",
          content: [{ type: "tool_call", id: "c1", name: "todo_add", args: { item: "x" } }],
        },
      },
    ]);
    await runtime.rewind(session, { before: "m2" });
    const next = await runtime.send({ agentId: "todo", content: "two", session });
    expect(next.text).toBe("saw: one | two");
    const seen = provider.calls.at(-1)!.messages;
    expect(seen.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(historyProblems(seen)).toEqual([]);
    // The open turn was closed (as an error) by the turn that followed.
    const ends = (await store.load(session)).filter((r) => r.kind === "turn" && r.runId === "crash");
    expect(ends.map((r) => r.kind === "turn" && [r.phase, r.status])).toEqual([
      ["start", undefined],
      ["end", "error"],
    ]);
  });
});

describe("a retried message whose turn crashed", () => {
  it("continues that turn (its message is not stored twice)", async () => {
    const store = new MemorySessionStore();
    const { runtime } = makeRuntime(script, { store });
    const { sessionId } = await store.createSession({ agentId: "todo" });
    await store.append(sessionId, [
      { id: "crash:0", frame: null, kind: "turn", runId: "crash", phase: "start" },
      { id: "crash:1", frame: null, kind: "message", message: { role: "user", content: "add eggs" }, messageId: "m1" },
      {
        id: "crash",
        frame: null,
        kind: "message",
        message: {
          role: "assistant",
          content: [{ type: "tool_call", id: "c1", name: "todo_add", args: { item: "x" } }],
        },
      },
    ]);
    const retry = await runtime.send({ agentId: "todo", content: "add eggs", messageId: "m1", session: sessionId });
    expect(retry.runId).toBe("crash:retry-1");
    expect(retry.status).toBe("complete");
    expect(userTexts(await store.load(sessionId))).toEqual(["add eggs"]);
  });
});

describe("rewind across runtimes on one SQLite file", () => {
  it("a turn running in another runtime refuses the rewind (SessionBusyError), and it works once the turn ended", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-rewind-")), "s.db");
    const a = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const b = makeRuntime(script, { store: new SqliteSessionStore({ path }) });
    const one = await a.runtime.send({ agentId: "todo", content: "one", messageId: "m1" });
    const controller = new AbortController();
    const running = a.runtime.send({
      agentId: "todo",
      content: "wait",
      session: one.sessionId,
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(b.runtime.rewind(one.sessionId, { before: "m1" })).rejects.toThrow(SessionBusyError);
    controller.abort();
    await running;
    await b.runtime.rewind(one.sessionId, { before: "m1" });
    const next = await a.runtime.send({ agentId: "todo", content: "two", session: one.sessionId });
    expect(next.text).toBe("saw: two");
  });
});

/** The snapshot a client with no last event id gets first. */
async function snapshotOf(log: EventLog, sessionId: string): Promise<SessionSnapshotEvent> {
  const iterator = log.resume({ sessionId })[Symbol.asyncIterator]();
  const first = (await iterator.next()).value as SessionSnapshotEvent;
  await iterator.return?.();
  return first;
}

describe("the ids a UI holds name the stored messages", () => {
  it("the AI SDK UI stream's message id and the snapshot's message ids are what rewind, editOf and regenerate take", async () => {
    const { runtime, store } = makeRuntime(script);
    const chunks: UiMessageChunk[] = [];
    const reader = toUIMessageStream(
      runtime.stream({ agentId: "todo", content: "add milk", messageId: "u1" }),
    ).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const start = chunks[0] as Extract<UiMessageChunk, { type: "start" }>;
    const sessionId = start.messageMetadata!.sessionId as string;
    const stored = (await store.load(sessionId)).find((r) => r.kind === "message" && r.message.role === "assistant");
    expect(start.messageId).toBe(stored!.id);

    await runtime.send({ agentId: "todo", content: "two", messageId: "u2", session: sessionId });
    const log = createEventLog({ runtime });
    const snapshot = await snapshotOf(log, sessionId);
    expect(snapshot.messageIds).toHaveLength(snapshot.messages.length);
    expect(snapshot.messageIds[0]).toBe("u1");
    expect(snapshot.messageIds[1]).toBe(start.messageId);
    expect(snapshot.messageIds.at(-2)).toBe("u2");

    // useChat's regenerate of the assistant message the stream built: rewind to it, then regenerate.
    await runtime.rewind(sessionId, { before: start.messageId! });
    const again = await runtime.send({ agentId: "todo", session: sessionId, regenerate: true });
    expect(again.text).toBe('done: ["added milk"]');
    const after = await snapshotOf(log, sessionId);
    expect(after.messageIds[0]).toBe("u1");
    expect(after.messageIds).not.toContain("u2");
    expect(after.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
  });
});
