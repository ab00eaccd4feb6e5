import { describe, expect, it, vi } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  createEventLog,
  InvalidArgumentError,
  toServerSentEvents,
  type ResumedEvent,
  type RuntimeEvent,
} from "@agentry/core";
import { agents, makeRuntime } from "../runtime/helpers.js";
import { collect, gate, readSse } from "./helpers.js";

/** The root calls the gate tool, then answers. */
const gatedScript = (request: { messages: { role: string }[] }) =>
  request.messages.at(-1)!.role === "tool"
    ? { text: "All done." }
    : { toolCalls: [{ id: "g1", name: "wait_for_gate", args: {} }], text: "Waiting. " };

const seqs = (events: ResumedEvent[]) => events.map((e) => e.seq);

function gatedRuntime(maxEvents?: number) {
  const g = gate();
  const made = makeRuntime(gatedScript, { tools: [g.tool] });
  const log = createEventLog({ runtime: made.runtime, ...(maxEvents !== undefined && { maxEvents }) });
  return { ...made, gate: g, log };
}

describe("createEventLog", () => {
  it("gives a client that reconnects mid-turn exactly what it missed, then the live rest, once each", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    const turn = runtime.send({ agentId: "general", content: "go" });
    await g.reached;
    await vi.waitFor(() => expect(events.some((e) => e.type === "tool_call_update")).toBe(true));
    const sessionId = events[0]!.sessionId;
    expect(log.runningRunId(sessionId)).toBe(events[0]!.runId);
    // The client saw up to the tool call's start, then lost the connection.
    const lastSeen = events.find((e) => e.type === "tool_call_update")!;
    const resumed = collect(log.resume({ sessionId, lastEventId: log.eventId(lastSeen) }));
    g.open();
    await turn;
    const got = await resumed;
    const expected = events.filter((e) => e.seq > lastSeen.seq);
    expect(seqs(got)).toEqual(seqs(expected));
    expect(got.at(-1)?.type).toBe("done");
    expect(log.runningRunId(sessionId)).toBeNull();
  });

  it("never duplicates or drops an event, whichever event of a running turn the client saw last (every cut point)", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    const turn = runtime.send({ agentId: "general", content: "go" });
    await g.reached;
    await vi.waitFor(() => expect(events.some((e) => e.type === "tool_call_update")).toBe(true));
    const sessionId = events[0]!.sessionId;
    const cuts = events.map((e) => e.seq);
    const resumes = cuts.map((cut) => collect(log.resume({ sessionId, lastEventId: log.eventId({ seq: cut }) })));
    g.open();
    await turn;
    const all = await Promise.all(resumes);
    all.forEach((got, i) => expect(seqs(got)).toEqual(seqs(events.filter((e) => e.seq > cuts[i]!))));
  });

  it("replays a finished turn from memory when it still has the client's last event, and ends after done", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    g.open();
    const result = await runtime.send({ agentId: "general", content: "go" });
    for (const cut of events.slice(0, -1)) {
      const got = await collect(log.resume({ sessionId: result.sessionId, lastEventId: log.eventId(cut) }));
      expect(seqs(got)).toEqual(seqs(events.filter((e) => e.seq > cut.seq)));
    }
    // Seen everything: nothing to send, and the stream ends.
    expect(
      await collect(log.resume({ sessionId: result.sessionId, lastEventId: log.eventId(events.at(-1)!) })),
    ).toEqual([]);
  });

  it("sends the stored state of a finished turn when the events are gone (evicted or unknown id)", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime(3);
    g.open();
    const result = await runtime.send({ agentId: "general", content: "go" });
    for (const lastEventId of [log.eventId(events[0]!), undefined, "not-a-number"]) {
      const got = await collect(log.resume({ sessionId: result.sessionId, lastEventId }));
      expect(got).toHaveLength(1);
      const snapshot = got[0]!;
      if (snapshot.type !== "session_snapshot") throw new Error("expected a snapshot");
      expect(snapshot.seq).toBe(events.at(-1)!.seq);
      expect(snapshot.runningRunId).toBeNull();
      expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      const final = snapshot.messages.at(-1)!;
      expect(final.role === "assistant" && final.executionTree?.nodes.map((n) => [n.id, n.name])).toEqual([
        ["g1", "wait_for_gate"],
      ]);
    }
  });

  it("after a restart (new runtime and log on the same store) an old id gets the stored state, with sub-task frames and pending approvals", async () => {
    const first = makeRuntime((request) => {
      if (request.system.startsWith("You are a sub-agent"))
        return { toolCalls: [{ id: "del", name: "todo_delete", args: { item: "milk" } }] };
      return { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "Clean", instructions: "delete milk" } }] };
    });
    const firstLog = createEventLog({ runtime: first.runtime });
    const suspended = await first.runtime.send({ agentId: "todo", content: "clean up" });
    expect(suspended.status).toBe("suspended");
    const oldId = firstLog.eventId(first.events.at(-2)!);
    const second = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store: first.store,
      providers: { fake: first.provider },
      defaultModel: "fake-model",
    });
    const log = createEventLog({ runtime: second });
    const got = await collect(log.resume({ sessionId: suspended.sessionId, lastEventId: oldId }));
    expect(got).toHaveLength(1);
    const snapshot = got[0]!;
    if (snapshot.type !== "session_snapshot") throw new Error("expected a snapshot");
    expect(snapshot.frames.sub?.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(snapshot.pendingApprovals.map((p) => p.request.toolCallId)).toEqual(["del"]);
  });

  it("a snapshot lists the session's open questions (ask_user), which pendingApprovals does not", async () => {
    const { runtime, store } = makeRuntime((request) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Thanks." }
        : {
            toolCalls: [
              {
                id: "q1",
                name: "ask_user",
                args: { question: "Which one?", severity: "minor", options: [{ label: "A", value: "a" }] },
              },
            ],
          },
    );
    const session = await store.createSession({ agentId: "general" });
    await runtime.setRole(session.sessionId, "actor");
    const asked = await runtime.send({ agentId: "general", content: "go", session: session.sessionId });
    expect(asked.status).toBe("suspended");
    const log = createEventLog({ runtime });
    const [snapshot] = await collect(log.resume({ sessionId: session.sessionId }));
    if (snapshot?.type !== "session_snapshot") throw new Error("expected a snapshot");
    expect(snapshot.pendingApprovals).toEqual([]);
    expect(snapshot.pendingQuestions?.map((q) => q.question.question)).toEqual(["Which one?"]);
    await runtime.answerQuestion(snapshot.pendingQuestions![0]!.questionId, { value: "a" });
    const [after] = await collect(log.resume({ sessionId: session.sessionId }));
    expect(after?.type === "session_snapshot" && after.pendingQuestions).toEqual([]);
  });

  it("a snapshot taken mid-turn is followed by the rest of the turn", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    const turn = runtime.send({ agentId: "general", content: "go" });
    await g.reached;
    // The tool may start before the host has its start event (only messages hold the loop): wait for it.
    await vi.waitFor(() => expect(events.some((e) => e.type === "tool_call_update")).toBe(true));
    const sessionId = events[0]!.sessionId;
    const seenBefore = events.length;
    const resumed = collect(log.resume({ sessionId }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    g.open();
    await turn;
    const [snapshot, ...rest] = await resumed;
    if (snapshot?.type !== "session_snapshot") throw new Error("expected a snapshot");
    expect(snapshot.runningRunId).toBe(events[0]!.runId);
    expect(snapshot.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(seqs(rest)).toEqual(seqs(events.slice(seenBefore)));
    expect(rest.at(-1)?.type).toBe("done");
  });

  it("keeps other sessions' events out, and follow: 'session' stays open for later turns until closed", async () => {
    const { runtime, log } = makeRuntimeWithLog();
    const a = await runtime.send({ agentId: "general", content: "one", session: "create" });
    const seen: ResumedEvent[] = [];
    const following = (async () => {
      for await (const event of log.resume({ sessionId: a.sessionId, follow: "session" })) seen.push(event);
    })();
    await runtime.send({ agentId: "general", content: "other", session: "create" });
    await runtime.send({ agentId: "general", content: "two", session: a.sessionId });
    await runtime.send({ agentId: "general", content: "three", session: a.sessionId });
    log.close();
    await following;
    expect(seen[0]?.type).toBe("session_snapshot");
    const live = seen.slice(1) as RuntimeEvent[];
    expect(live.every((e) => e.sessionId === a.sessionId)).toBe(true);
    expect(live.filter((e) => e.type === "done")).toHaveLength(2);
  });

  it("resynchronises a reader that falls more than maxEvents behind with a fresh snapshot", async () => {
    const { runtime, log } = makeRuntimeWithLog(4);
    const a = await runtime.send({ agentId: "general", content: "one" });
    const iterator = log.resume({ sessionId: a.sessionId, follow: "session" })[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe("session_snapshot");
    // Not reading while two turns (well over 4 events) happen.
    await runtime.send({ agentId: "general", content: "two", session: a.sessionId });
    await runtime.send({ agentId: "general", content: "three", session: a.sessionId });
    const next = (await iterator.next()).value as ResumedEvent;
    expect(next.type).toBe("session_snapshot");
    if (next.type === "session_snapshot") expect(next.messages.filter((m) => m.role === "user")).toHaveLength(3);
    await iterator.return?.();
  });

  it("serves Last-Event-ID through toServerSentEvents, with the log's ids (epoch:seq)", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    g.open();
    const result = await runtime.send({ agentId: "general", content: "go" });
    const cut = events[2]!;
    const messages = await readSse(
      toServerSentEvents(log.resume({ sessionId: result.sessionId, lastEventId: log.eventId(cut) })),
    );
    const missed = events.filter((e) => e.seq > cut.seq);
    expect(messages.map((m) => m.id)).toEqual(missed.map((e) => log.eventId(e)));
    expect(messages.map((m) => m.id)).toEqual(
      missed.map((e) => expect.stringMatching(new RegExp(`^[0-9a-f]{8}:${e.seq}$`))),
    );
    // The id the browser sends back resumes from there.
    const again = await readSse(
      toServerSentEvents(log.resume({ sessionId: result.sessionId, lastEventId: messages[1]!.id })),
    );
    expect(again.map((m) => m.id)).toEqual(messages.slice(2).map((m) => m.id));
    // A bare seq in a string (not an id this log wrote) gets the stored state.
    const bare = await collect(log.resume({ sessionId: result.sessionId, lastEventId: String(cut.seq) }));
    expect(bare.map((e) => e.type)).toEqual(["session_snapshot"]);
  });

  it("after a restart, a browser's old Last-Event-ID gets the stored state even when the new process has given that seq to an event of the same session", async () => {
    // Process 1: the browser follows a turn over SSE and keeps the last id it saw.
    const first = gatedRuntime();
    const turn = first.runtime.send({ agentId: "general", content: "go" });
    await first.gate.reached;
    const sessionId = first.events[0]!.sessionId;
    const reading = readSse(toServerSentEvents(first.log.resume({ sessionId, follow: "turn" })));
    await new Promise((resolve) => setTimeout(resolve, 0));
    first.gate.open();
    await turn;
    const seen = await reading;
    const lastId = seen.at(-1)!.id!;
    expect(JSON.parse(seen.at(-1)!.data!).type).toBe("done");
    await first.runtime.close();
    first.log.close();

    // Process 2 on the same store: its seq starts again at 1, and a second turn of the session
    // reaches the old id's seq before the browser reconnects.
    const g = gate();
    g.open();
    const second = makeRuntime(gatedScript, { store: first.store, tools: [g.tool] });
    const log = createEventLog({ runtime: second.runtime });
    await second.runtime.send({ agentId: "general", content: "again", session: sessionId });
    const oldSeq = first.events.at(-1)!.seq;
    expect(second.events.some((e) => e.seq === oldSeq && e.sessionId === sessionId)).toBe(true);

    const got = await collect(log.resume({ sessionId, lastEventId: lastId }));
    expect(got.map((e) => e.type)).toEqual(["session_snapshot"]);
    const snapshot = got[0]!;
    if (snapshot.type !== "session_snapshot") throw new Error("expected a snapshot");
    expect(snapshot.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["go", "again"]);
  });

  it("rejects a bare seq number as lastEventId with an InvalidArgumentError, before reading anything", async () => {
    const { runtime, events, gate: g, log } = gatedRuntime();
    g.open();
    const result = await runtime.send({ agentId: "general", content: "go" });
    const load = vi.spyOn(runtime.store, "load");
    const messages: string[] = [];
    for (const bad of [events[1]!.seq, 0, { seq: 1 }]) {
      let caught: unknown;
      try {
        log.resume({ sessionId: result.sessionId, lastEventId: bad as never });
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
      messages.push((caught as Error).message);
    }
    expect(messages[0]).toContain("bare seq");
    expect(messages[2]).toContain("lastEventId");
    expect(load).not.toHaveBeenCalled();
    // null and undefined are "no id": a snapshot.
    for (const none of [null, undefined]) {
      const got = await collect(log.resume({ sessionId: result.sessionId, lastEventId: none }));
      expect(got.map((e) => e.type)).toEqual(["session_snapshot"]);
    }
  });

  it("rejects a bad maxEvents", () => {
    const { runtime } = makeRuntime([]);
    expect(() => createEventLog({ runtime, maxEvents: 0 })).toThrow(InvalidArgumentError);
  });
});

function makeRuntimeWithLog(maxEvents?: number) {
  const made = makeRuntime(() => ({ text: "ok" }));
  return { ...made, log: createEventLog({ runtime: made.runtime, ...(maxEvents !== undefined && { maxEvents }) }) };
}
