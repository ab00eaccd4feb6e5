import { describe, expect, it } from "vitest";
import { InvalidArgumentError, MemorySessionStore } from "@agentry/core";
import { runSessionStoreContract } from "@agentry/core/testing";

runSessionStoreContract("MemorySessionStore", () => new MemorySessionStore());

describe("MemorySessionStore", () => {
  it("rejects records that are not plain data, storing nothing", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const records = [
      { id: "ok", kind: "message", frame: null, message: { role: "user", content: "fine" } },
      { id: "fn", kind: "message", frame: null, message: { role: "tool", content: [{ type: "tool_result", toolCallId: "c", name: "t", result: () => 1 }] } },
    ] as const;
    await expect(store.append(sessionId, records as never)).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    expect(await store.load(sessionId)).toEqual([]);
  });

  it("names every problem of an invalid batch", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const error = await store.append(sessionId, [{ id: "", kind: "turn", frame: undefined, runId: "r", phase: "middle" } as never]).catch((e: unknown) => e);
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/records\[0\]\.id/);
    expect((error as Error).message).toMatch(/records\[0\]\.frame/);
    expect((error as Error).message).toMatch(/records\[0\]\.phase/);
  });

  it("keeps touch order for sessions updated within the same millisecond", async () => {
    const store = new MemorySessionStore();
    const sessions = [];
    for (let n = 0; n < 200; n++) sessions.push((await store.createSession({ agentId: "a" })).sessionId);
    await store.updateSession(sessions[0]!, { name: "first" });
    const listed = await store.listSessions();
    expect(listed[0]!.sessionId).toBe(sessions[0]);
    expect(listed.slice(1).map((s) => s.sessionId)).toEqual(sessions.slice(1).reverse());
    for (let n = 1; n < listed.length; n++) expect(listed[n - 1]!.updatedAt >= listed[n]!.updatedAt).toBe(true);
  });

  it("rejects an unknown patch key and a malformed list query", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    await expect(store.updateSession(sessionId, { agentId: "b" } as never)).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    await expect(store.listSessions({ limit: -1 })).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    await expect(store.prune({ olderThan: "yesterday" })).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
  });
});
