import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  createEventLog,
  type ResumedEvent,
  type SessionStore,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const runtimeOn = (store: SessionStore, text: string) =>
  createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "a", displayName: "A" }]),
    store,
    providers: { fake: createFakeProvider(() => ({ text })) },
    defaultModel: "fake",
  });

/** Reads `iterator` until a `done` (or 10 s). */
async function toDone(iterator: AsyncIterator<ResumedEvent>): Promise<ResumedEvent[]> {
  const got: ResumedEvent[] = [];
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const next = await iterator.next();
    if (next.done) break;
    got.push(next.value);
    if (next.value.type === "done") break;
  }
  return got;
}

describe("createEventLog on a store that carries signals", () => {
  it("delivers its own runtime's events once (their signals coming back are skipped), and another runtime's on the same file too", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-log-signals-")), "s.db");
    const mine = new SqliteSessionStore({ path });
    const theirs = new SqliteSessionStore({ path });
    const here = runtimeOn(mine, "answer from here, in words");
    const there = runtimeOn(theirs, "answer from there, in words");
    const log = createEventLog({ runtime: here });
    const ownSession = await mine.createSession({ agentId: "a" });
    const otherSession = await mine.createSession({ agentId: "a" });
    const own = log.resume({ sessionId: ownSession.sessionId, follow: "session" })[Symbol.asyncIterator]();
    const other = log.resume({ sessionId: otherSession.sessionId, follow: "session" })[Symbol.asyncIterator]();
    await own.next();
    await other.next();
    await here.send({ agentId: "a", session: ownSession.sessionId, content: "hi" });
    const ownEvents = (await toDone(own)).map((event) => `${event.type}:${(event as { seq: number }).seq}`);
    // Each event once, in order: no copy from the signal the runtime sent.
    expect(new Set(ownEvents).size).toBe(ownEvents.length);
    expect(ownEvents.at(-1)).toMatch(/^done:/);
    // Wait a moment for any echo, then nothing more is queued for the client.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const echo = await Promise.race([own.next(), new Promise((resolve) => setTimeout(() => resolve("quiet"), 100))]);
    expect(echo).toBe("quiet");
    // A runtime of its own on another store object: its events reach this log through the file.
    await there.send({ agentId: "a", session: otherSession.sessionId, content: "hi" });
    const otherEvents = await toDone(other);
    expect(otherEvents.map((event) => event.type)).toContain("chunk");
    expect(otherEvents.at(-1)?.type).toBe("done");
    expect(log.eventId(otherEvents.at(-1) as { seq: number })).toMatch(/^[0-9a-f]{16}:\d+$/);
    // Ends every open resume (the pending read above included).
    log.close();
    await here.close();
    await there.close();
    mine.close();
    theirs.close();
  });
});
