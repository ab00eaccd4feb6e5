import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EventEmitter } from "eventemitter3";
import {
  createAgentRegistry,
  createEventLog,
  eventRecordOf,
  MemorySessionStore,
  type ModelRequest,
} from "@agentry/core";
import { MAX_PENDING_STORED_EVENTS, MAX_STORED_STREAM_CHARS } from "../../src/delivery/stored-events.js";
import type { RuntimeEvents } from "../../src/contracts/agent-runtime.js";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { JsonlSessionStore } from "@agentry/core/node";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "../runtime/helpers.js";
import { collect } from "./helpers.js";
import { restartScenario } from "./stored-events-scenario.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("createEventLog({ persist: true }): events kept in the session store", () => {
  it("after a restart (new runtime and log on the same SQLite file) replays the missed events in order", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentry-events-"));
    dirs.push(dir);
    const path = join(dir, "sessions.db");
    const opened: SqliteSessionStore[] = [];
    await restartScenario(() => {
      const store = new SqliteSessionStore({ path });
      opened.push(store);
      return store;
    });
    for (const store of opened) store.close();
  });

  it("the same on JSONL files (a new store on the same directory)", async () => {
    const root = await mkdtemp(join(tmpdir(), "agentry-events-jsonl-"));
    dirs.push(root);
    await restartScenario(() => new JsonlSessionStore({ root, fsync: false }));
  });

  it("works on the memory store too (a second runtime on the same store)", async () => {
    const store = new MemorySessionStore();
    await restartScenario(() => store);
  });

  it("stores the events as records of kind event, chunks coalesced, and nothing without persist", async () => {
    const { runtime, store } = makeRuntime(() => ({ text: "one two three" }));
    const log = createEventLog({ runtime, persist: true });
    const plain = createEventLog({ runtime });
    const result = await runtime.send({ agentId: "general", content: "go" });
    await log.settled();
    await plain.settled();
    const stored = (await store.load(result.sessionId)).flatMap((r) => eventRecordOf(r) ?? []);
    expect(stored.map((r) => r.event.type)).toEqual([
      "llm_call_start",
      "message_stream_started",
      "chunk",
      "message_stream_completed",
      "message",
      "done",
    ]);
    expect(
      stored.filter((r) => r.event.type === "chunk").map((r) => r.event.type === "chunk" && r.event.content),
    ).toEqual(["one two three"]);
    expect(stored.map((r) => r.id)).toEqual(stored.map((r) => `event:${r.eventId}`));
    log.close();
    // Only the persisting log wrote: a second turn with it closed stores nothing more.
    const count = stored.length;
    await runtime.send({ agentId: "general", content: "again", session: result.sessionId });
    await plain.settled();
    expect((await store.load(result.sessionId)).flatMap((r) => eventRecordOf(r) ?? [])).toHaveLength(count);
    plain.close();
  });

  it("stores at most MAX_STORED_STREAM_CHARS characters of one stream's text", async () => {
    const long = "y".repeat(MAX_STORED_STREAM_CHARS + 5_000);
    const { runtime, store } = makeRuntime(() => ({ text: `short ${long} tail` }));
    const log = createEventLog({ runtime, persist: true });
    const result = await runtime.send({ agentId: "general", content: "go" });
    await log.settled();
    const chunks = (await store.load(result.sessionId)).flatMap((r) => {
      const event = eventRecordOf(r)?.event;
      return event?.type === "chunk" ? [event.content] : [];
    });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toHaveLength(MAX_STORED_STREAM_CHARS);
    expect(chunks[0]!.startsWith("short y")).toBe(true);
    log.close();
  });

  it("holds at most MAX_PENDING_STORED_EVENTS events of a session for a store that has not taken them yet", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "general" });
    const events = new EventEmitter<RuntimeEvents>();
    const log = createEventLog({
      runtime: { events, store, pendingApprovals: () => Promise.resolve([]) },
      persist: true,
    });
    // Emitted at once: none is written before the first append starts.
    for (let seq = 1; seq <= MAX_PENDING_STORED_EVENTS + 50; seq++) {
      events.emit("event", {
        type: "warning",
        code: "w",
        message: `${seq}`,
        depth: 0,
        parentId: null,
        sessionId,
        agentId: "general",
        runId: "r",
        seq,
        ts: 0,
      });
    }
    await log.settled();
    const stored = (await store.load(sessionId)).flatMap((r) => eventRecordOf(r) ?? []);
    expect(stored).toHaveLength(MAX_PENDING_STORED_EVENTS);
    expect(stored.at(-1)?.event.seq).toBe(MAX_PENDING_STORED_EVENTS);
    log.close();
  });

  it("a snapshot includes the task's status, the session's role and its artifacts", async () => {
    const script = (request: ModelRequest): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "Plan submitted." }
        : {
            toolCalls: [
              {
                id: "a1",
                name: "create_artifact",
                args: { filename: "plan.md", kind: "plan", content: "Goal: g\n\n1. Look\n2. Do" },
              },
            ],
          };
    const { runtime } = makeRuntime(script, {
      registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
    });
    const log = createEventLog({ runtime, persist: true });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy", taskId: "t9" });
    const [snapshot] = await collect(log.resume({ sessionId: task.sessionId }));
    if (snapshot?.type !== "session_snapshot") throw new Error("expected a snapshot");
    expect(snapshot.task).toEqual({ taskId: "t9", status: "awaiting_review", planArtifactId: task.planArtifactId });
    expect(snapshot.role).toBe("planner");
    expect(snapshot.artifacts).toEqual([
      expect.objectContaining({
        artifactId: task.planArtifactId,
        sessionId: "t9",
        filename: "plan.md",
        kind: "plan",
        content: "Goal: g\n\n1. Look\n2. Do",
      }),
    ]);
    const plain = await runtime.send({ agentId: "dev", content: "hi", session: "create" });
    const [other] = await collect(log.resume({ sessionId: plain.sessionId }));
    expect(other).toMatchObject({ type: "session_snapshot", role: null, artifacts: [] });
    expect(other).not.toHaveProperty("task");
    log.close();
  });
});
