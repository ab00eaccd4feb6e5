import { describe, expect, it } from "vitest";
import {
  InvalidArgumentError,
  MemorySessionStore,
  SessionNotFoundError,
  SessionOwnershipError,
  resolveSession,
} from "@agentry/core";

describe("resolveSession", () => {
  it("defaults to latest-or-create: creates once, then reuses the most recently updated session", async () => {
    const store = new MemorySessionStore();
    const first = await resolveSession(store, "todo");
    expect(first.created).toBe(true);
    expect(first.session.agentId).toBe("todo");
    const again = await resolveSession(store, "todo");
    expect(again).toEqual({ session: first.session, created: false });
  });

  it("latest ignores pinning: the most recently updated session wins", async () => {
    const store = new MemorySessionStore();
    const pinned = await store.createSession({ agentId: "todo" });
    await store.updateSession(pinned.sessionId, { pinnedAt: "2024-01-01T00:00:00.000Z" });
    const newer = await store.createSession({ agentId: "todo" });
    expect((await resolveSession(store, "todo", "latest")).session.sessionId).toBe(newer.sessionId);
  });

  it("latest for an agent with no session throws SessionNotFoundError naming the agent", async () => {
    const store = new MemorySessionStore();
    await store.createSession({ agentId: "other" });
    const error = await resolveSession(store, "todo", "latest").catch((e: unknown) => e);
    expect(SessionNotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ agentId: "todo", sessionId: undefined });
  });

  it("create always creates", async () => {
    const store = new MemorySessionStore();
    const a = await resolveSession(store, "todo", "create");
    const b = await resolveSession(store, "todo", "create");
    expect(a.created && b.created).toBe(true);
    expect(a.session.sessionId).not.toBe(b.session.sessionId);
    expect(await store.listSessions({ agentId: "todo" })).toHaveLength(2);
  });

  it("an explicit id must exist and belong to the agent", async () => {
    const store = new MemorySessionStore();
    const own = await store.createSession({ agentId: "todo", sessionId: "s-1" });
    expect(await resolveSession(store, "todo", "s-1")).toEqual({ session: own, created: false });
    const missing = await resolveSession(store, "todo", "s-2").catch((e: unknown) => e);
    expect(SessionNotFoundError.isInstance(missing)).toBe(true);
    expect(missing).toMatchObject({ sessionId: "s-2", agentId: "todo" });
    const foreign = await resolveSession(store, "journal", "s-1").catch((e: unknown) => e);
    expect(SessionOwnershipError.isInstance(foreign)).toBe(true);
    expect(foreign).toMatchObject({ sessionId: "s-1", agentId: "journal", ownerAgentId: "todo" });
    expect(await store.listSessions()).toHaveLength(1);
  });

  it("rejects an empty selector or agent id without touching the store", async () => {
    const store = new MemorySessionStore();
    await expect(resolveSession(store, "todo", "")).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    await expect(resolveSession(store, "")).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    expect(await store.listSessions()).toEqual([]);
  });
});
