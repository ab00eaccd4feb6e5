import { expect } from "vitest";
import { z } from "zod";
import {
  createEventLog,
  defineTool,
  SessionNotFoundError,
  type ModelRequest,
  type ResumedEvent,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "../runtime/helpers.js";
import { collect } from "./helpers.js";

const progress = defineTool({
  name: "progress",
  description: "Works a while, logging its progress",
  input: z.object({}),
  execute: (_args, ctx) => {
    ctx.log?.("info", "half way");
    return "worked";
  },
});

/** Streams a preamble, calls `progress`, then streams its answer. */
const script = (request: ModelRequest): FakeTurn =>
  request.messages.at(-1)!.role === "tool"
    ? { text: "Done now, all of it." }
    : { text: "Working on it.", toolCalls: [{ id: "p1", name: "progress", args: {} }] };

/** The events as the log stores them: each run of a stream's chunks as one chunk (text joined, last seq); no thinking. */
export function coalesced(events: RuntimeEvent[]): RuntimeEvent[] {
  const out: RuntimeEvent[] = [];
  for (const event of events) {
    if (event.type === "thinking") continue;
    const previous = out.at(-1);
    if (event.type === "chunk" && previous?.type === "chunk" && previous.streamId === event.streamId) {
      out[out.length - 1] = { ...previous, content: previous.content + event.content, seq: event.seq, ts: event.ts };
    } else out.push(event);
  }
  return out;
}

const shape = (event: ResumedEvent) => `${event.type}:${event.type === "chunk" ? event.content : ""}`;

/**
 * A turn runs in a first "process" (runtime and persisting log on `openStore()`); the client saw it
 * up to its first stream's start. A second process (a new runtime and log on a store opened again
 * on the same database) replays the rest of that turn from the store, in order, with the ids the
 * client saw; after a turn of its own, both turns; another tenant gets "not found".
 */
export async function restartScenario(openStore: () => SessionStore | Promise<SessionStore>): Promise<void> {
  const storeA = await openStore();
  const a = makeRuntime(script, { store: storeA, tools: [progress] });
  const logA = createEventLog({ runtime: a.runtime, persist: true });
  const first = await a.runtime.send({ agentId: "general", content: "go", scope: "acme" });
  const sessionId = first.sessionId;
  const lastSeen = a.events.find((e) => e.type === "message_stream_started")!;
  const lastSeenId = logA.eventId(lastSeen);
  await logA.settled();
  logA.close();
  await a.runtime.close();

  const storeB = await openStore();
  const b = makeRuntime(script, { store: storeB, tools: [progress] });
  const logB = createEventLog({ runtime: b.runtime, persist: true });
  const missed = coalesced(a.events.filter((e) => e.sessionId === sessionId && e.seq > lastSeen.seq));
  expect(missed.map((e) => e.type)).toEqual(expect.arrayContaining(["chunk", "tool_call_update", "tool_log", "done"]));
  const got = await collect(logB.resume({ sessionId, lastEventId: lastSeenId, scope: "acme" }));
  expect(got.map(shape)).toEqual(missed.map(shape));
  expect(got.find((e) => e.type === "chunk")).toMatchObject({ content: "Working on it." });
  // The ids the client gets are those the events had in the first process: it can resume from any.
  expect(got.map((e) => logB.eventId(e))).toEqual(missed.map((e) => logA.eventId(e)));

  // A turn in the second process: a resume from the old id gets both turns, in order, once each.
  await b.runtime.send({ agentId: "general", content: "again", session: sessionId, scope: "acme" });
  await logB.settled();
  const both = await collect(logB.resume({ sessionId, lastEventId: lastSeenId, scope: "acme" }));
  const second = coalesced(b.events.filter((e) => e.sessionId === sessionId));
  expect(both.map(shape)).toEqual([...missed, ...second].map(shape));
  const fromTheSecond = await collect(
    logB.resume({ sessionId, lastEventId: logB.eventId(both.at(-3)!), scope: "acme" }),
  );
  expect(fromTheSecond.map(shape)).toEqual(both.slice(-2).map(shape));

  // The tenant guard holds on a resume from the store.
  const seen: ResumedEvent[] = [];
  const outside = (async () => {
    for await (const event of logB.resume({ sessionId, lastEventId: lastSeenId, scope: "globex" })) seen.push(event);
  })();
  await expect(outside).rejects.toSatisfy((error: unknown) => SessionNotFoundError.isInstance(error));
  expect(seen).toEqual([]);
  logB.close();
  await b.runtime.close();
}
