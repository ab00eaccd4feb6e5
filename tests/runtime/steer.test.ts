import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  SessionBusyError,
  SessionNotFoundError,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
  type TurnResult,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { historyProblems, type FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

/** A tool that waits until `release()` (or its abort signal), and remembers whether it was aborted. */
function gate(name = "wait") {
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

/** Calls `wait` for a first message; after a tool result answers with the last user text it sees. */
function waitThenAnswer(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "user" && request.messages.filter((m) => m.role === "tool").length === 0)
    return textOf(last).startsWith("go")
      ? { toolCalls: [{ name: "wait", args: {} }] }
      : { text: `re: ${textOf(last)}` };
  const users = request.messages.filter((m) => m.role === "user");
  return { text: `last user: ${textOf(users.at(-1))}` };
}

async function rootTranscript(store: SessionStore, sessionId: string): Promise<string[]> {
  return (await store.load(sessionId)).flatMap((r) =>
    r.kind === "message" && r.frame === null ? [`${r.message.role}: ${textOf(r.message)}`] : [],
  );
}

const sqlite = () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-steer-")), "s.db") });

describe.each([
  ["memory", () => new MemorySessionStore() as SessionStore],
  ["sqlite", sqlite as () => SessionStore],
])("ifBusy on a %s store", (_kind, makeStore) => {
  it('"steer": the running turn reads the message after its tool batch, before its next model call; send resolves with that turn\'s outcome', async () => {
    const wait = gate();
    const { runtime, provider, store, events } = makeRuntime(waitThenAnswer, {
      store: makeStore(),
      tools: [wait.tool],
    });
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const steering = runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "also check eggs",
      ifBusy: "steer",
    });
    // Stored before the running turn goes on; nothing runs yet.
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    wait.release();
    const [done, steered] = await Promise.all([first, steering]);

    expect(done.status).toBe("complete");
    expect(done.text).toBe("last user: also check eggs");
    // The steering send resolves with the running turn's outcome: one turn, one run id.
    expect(steered.runId).toBe(done.runId);
    expect(steered.text).toBe(done.text);
    // The model saw it after the tool results, as a user message.
    const second = provider.calls[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(textOf(second.at(-1))).toBe("also check eggs");
    expect(provider.calls).toHaveLength(2);
    const steeredEvents = events.filter((e) => e.type === "message_steered");
    expect(steeredEvents).toHaveLength(1);
    expect(steeredEvents[0]).toMatchObject({ runId: done.runId, depth: 0, message: { content: "also check eggs" } });
    expect(await rootTranscript(store, session!.sessionId)).toEqual([
      "user: go",
      expect.stringContaining("wait"),
      expect.stringContaining("waited"),
      "user: also check eggs",
      "assistant: last user: also check eggs",
    ]);
    // Only one turn ran, and the next message sees a valid history.
    const turns = (await store.load(session!.sessionId)).filter((r) => r.kind === "turn" && r.phase === "start");
    expect(turns).toHaveLength(1);
    await runtime.send({ agentId: "general", session: session!.sessionId, content: "thanks" });
    expect(historyProblems(provider.calls.at(-1)!.messages)).toEqual([]);
    await runtime.close();
  });

  it('"interrupt": the running turn stops (aborted, reason "interrupted", its tool aborted), then the message runs', async () => {
    const wait = gate();
    const { runtime, provider, store, events } = makeRuntime(waitThenAnswer, {
      store: makeStore(),
      tools: [wait.tool],
    });
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const next = await runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "never mind, hello",
      ifBusy: "interrupt",
    });
    const stopped = await first;
    expect(stopped).toMatchObject({ status: "aborted", reason: "interrupted" });
    expect(wait.state.aborted).toBe(true);
    expect(next.status).toBe("complete");
    expect(next.text).toBe("last user: never mind, hello");
    expect(events.filter((e) => e.type === "turn_stopped")).toEqual([
      expect.objectContaining({ reason: "interrupted", runId: stopped.runId }),
    ]);
    // The stopped call was answered in the log: the next request is valid for every provider.
    expect(historyProblems(provider.calls.at(-1)!.messages)).toEqual([]);
    const ends = (await store.load(session!.sessionId)).filter((r) => r.kind === "turn" && r.phase === "end");
    expect(ends.map((r) => (r as { status?: string }).status)).toEqual(["aborted", "complete"]);
    await runtime.close();
  });

  it('"reject": SessionBusyError naming the running turn, and nothing is stored', async () => {
    const wait = gate();
    const { runtime, store } = makeRuntime(waitThenAnswer, { store: makeStore(), tools: [wait.tool] });
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const before = (await store.load(session!.sessionId)).length;
    const error = await runtime
      .send({ agentId: "general", session: session!.sessionId, content: "again", ifBusy: "reject" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionBusyError);
    wait.release();
    const done = await first;
    expect((error as SessionBusyError).runId).toBe(done.runId);
    const after = await store.load(session!.sessionId);
    expect(after.some((r) => r.kind === "message" && textOf(r.message) === "again")).toBe(false);
    expect(after.filter((r) => r.kind === "turn" && r.phase === "start")).toHaveLength(1);
    expect(before).toBeGreaterThan(0);
    await runtime.close();
  });

  it("with no turn running, every ifBusy mode sends the message as a queued one", async () => {
    const { runtime, store } = makeRuntime(waitThenAnswer, { store: makeStore() });
    const first = await runtime.send({ agentId: "general", content: "hi" });
    for (const ifBusy of ["steer", "interrupt", "reject", "queue"] as const) {
      const result = await runtime.send({ agentId: "general", session: first.sessionId, content: ifBusy, ifBusy });
      expect(result).toMatchObject({ status: "complete", text: `re: ${ifBusy}` });
    }
    expect((await store.load(first.sessionId)).some((r) => r.kind === "steer" || r.kind === "stop")).toBe(false);
    await runtime.close();
  });
});

describe("ifBusy: steer", () => {
  it("a message the running turn had no step left to read runs next as its own turn: nothing is lost", async () => {
    let answer!: () => void;
    const answering = new Promise<void>((resolve) => (answer = resolve));
    let calls = 0;
    const { runtime, provider, store, events } = makeRuntime(async (request) => {
      calls++;
      // The first turn's only model call answers once the steering message is stored.
      if (calls === 1) await answering;
      return { text: `re: ${textOf(request.messages.at(-1))}` };
    });
    const first = runtime.send({ agentId: "general", content: "hello" });
    await expect.poll(() => calls).toBe(1);
    const [session] = await store.listSessions();
    const steering = runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "and eggs",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    answer();
    const [done, steered] = await Promise.all([first, steering]);
    expect(done.text).toBe("re: hello");
    expect(steered.runId).not.toBe(done.runId);
    expect(steered).toMatchObject({ status: "complete", text: "re: and eggs" });
    expect(events.some((e) => e.type === "message_steered")).toBe(false);
    expect(provider.calls).toHaveLength(2);
    expect(await rootTranscript(store, session!.sessionId)).toEqual([
      "user: hello",
      "assistant: re: hello",
      "user: and eggs",
      "assistant: re: and eggs",
    ]);
    await runtime.close();
  });

  it("a steered message whose sender is gone runs once, when the turn that left it unread ends", async () => {
    let answer!: () => void;
    const answering = new Promise<void>((resolve) => (answer = resolve));
    let calls = 0;
    const { runtime, provider, store } = makeRuntime(async (request) => {
      calls++;
      if (calls === 1) await answering;
      return { text: `re: ${textOf(request.messages.at(-1))}` };
    });
    const first = runtime.send({ agentId: "general", content: "hello" });
    await expect.poll(() => calls).toBe(1);
    const [session] = await store.listSessions();
    // What a sender stores before it dies (no signal, no follow-up of its own).
    await store.append(session!.sessionId, [
      {
        id: "steer:lost",
        frame: null,
        kind: "steer",
        message: { role: "user", content: "from a dead sender" },
        messageId: "steer:lost:message",
        runId: "lost",
      },
    ]);
    answer();
    await first;
    await expect.poll(() => provider.calls.length).toBe(2);
    await expect
      .poll(async () =>
        (await store.load(session!.sessionId)).some(
          (r) => r.kind === "turn" && r.phase === "end" && r.runId === "lost",
        ),
      )
      .toBe(true);
    expect(textOf(provider.calls[1]!.messages.at(-1))).toBe("from a dead sender");
    // Another message later does not run it again.
    await runtime.send({ agentId: "general", session: session!.sessionId, content: "more" });
    expect(provider.calls).toHaveLength(3);
    await runtime.close();
  });

  it("a sub-task never sees a steered message: only the root level reads it, after the run_subtask batch", async () => {
    const wait = gate();
    const { runtime, provider, store } = makeRuntime(
      (request) => {
        const inSubtask = request.caller?.depth === 1;
        const last = request.messages.at(-1)!;
        if (!inSubtask) {
          if (last.role === "user" && textOf(last) === "go")
            return { toolCalls: [{ name: "run_subtask", args: { title: "child", instructions: "wait twice" } }] };
          return { text: `root saw: ${textOf(request.messages.filter((m) => m.role === "user").at(-1))}` };
        }
        const waited = request.messages.filter((m) => m.role === "tool").length;
        return waited < 2 ? { toolCalls: [{ name: "wait", args: {} }] } : { text: "child done" };
      },
      { tools: [wait.tool] },
    );
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const steering = runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "steer me",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    wait.release();
    const [done, steered] = await Promise.all([first, steering]);
    expect(steered.runId).toBe(done.runId);
    expect(done.text).toBe("root saw: steer me");
    const childRequests = provider.calls.filter((r) => r.caller?.depth === 1);
    expect(childRequests.length).toBeGreaterThanOrEqual(2);
    for (const request of childRequests)
      expect(request.messages.some((m) => textOf(m).includes("steer me"))).toBe(false);
    const records = await store.load(session!.sessionId);
    expect(records.filter((r) => r.kind === "message" && textOf(r.message) === "steer me").map((r) => r.frame)).toEqual(
      [null],
    );
    await runtime.close();
  });

  it("a steered turn keeps its budget: the steered step counts in the same maxTotalLlmCalls", async () => {
    const wait = gate();
    // Every call asks for the tool again: only the budget ends the turn.
    const { runtime, provider, store } = makeRuntime(() => ({ toolCalls: [{ name: "wait", args: {} }] }), {
      tools: [wait.tool],
      budget: { maxTotalLlmCalls: 2 },
    });
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const steering = runtime.send({
      agentId: "general",
      session: session!.sessionId,
      content: "more",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    wait.release();
    const [done, steered] = await Promise.all([first, steering]);
    expect(done.status).toBe("budget_exceeded");
    expect(done.usage.llmCalls).toBe(2);
    expect(provider.calls).toHaveLength(2);
    expect(textOf(provider.calls[1]!.messages.at(-1))).toBe("more");
    expect(steered.runId).toBe(done.runId);
    await runtime.close();
  });

  it("a stream that steers follows the running turn's events and ends with its done", async () => {
    const wait = gate();
    const { runtime, store } = makeRuntime(waitThenAnswer, { tools: [wait.tool] });
    const first = runtime.send({ agentId: "general", content: "go" });
    await wait.state.running;
    const [session] = await store.listSessions();
    const seen: RuntimeEvent[] = [];
    const streaming = (async () => {
      for await (const event of runtime.stream({
        agentId: "general",
        session: session!.sessionId,
        content: "and this",
        ifBusy: "steer",
      }))
        seen.push(event);
    })();
    await expect.poll(async () => (await store.load(session!.sessionId)).some((r) => r.kind === "steer")).toBe(true);
    wait.release();
    const done = await first;
    await streaming;
    expect(seen.map((e) => e.type)).toContain("message_steered");
    expect(seen.filter((e) => e.type === "done")).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({ type: "done", runId: done.runId, result: { text: "last user: and this" } });
    await runtime.close();
  });

  it("a steer outside the sender's tenant is not found, and nothing is stored", async () => {
    const wait = gate();
    const { runtime, store } = makeRuntime(waitThenAnswer, { tools: [wait.tool] });
    const first = runtime.send({ agentId: "general", content: "go", scope: "acme" });
    await wait.state.running;
    const [session] = await store.listSessions();
    await expect(
      runtime.send({ agentId: "general", session: session!.sessionId, content: "x", scope: "evil", ifBusy: "steer" }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(
      runtime.send({
        agentId: "general",
        session: session!.sessionId,
        content: "x",
        scope: "evil",
        ifBusy: "interrupt",
      }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
    wait.release();
    expect((await first).status).toBe("complete");
    expect((await store.load(session!.sessionId)).some((r) => r.kind === "steer" || r.kind === "stop")).toBe(false);
    await runtime.close();
  });

  it("an ifBusy that is not a mode throws InvalidArgumentError before anything is stored", async () => {
    const { runtime, store } = makeRuntime(waitThenAnswer);
    await expect(runtime.send({ agentId: "general", content: "x", ifBusy: "shove" as never })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(await store.listSessions()).toEqual([]);
  });
});

export type { TurnResult };
