import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, LeaseLostError, SessionBusyError } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";
import { acquireSessionLease, type HeldLease } from "../../src/runtime/session/session-lease.js";

const registry = createAgentRegistry([{ agentId: "a", displayName: "A" }]);

describe("session leases in the runtime (SQLite)", () => {
  it("a runtime whose lease was taken over cannot write into the session any more", async () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    const steal = defineTool({
      name: "steal",
      description: "Simulates another runtime taking the session over",
      input: z.object({}),
      execute: () => {
        store.database.prepare("UPDATE agentry_leases SET token = token + 1, owner = 'someone-else'").run();
        return "stolen";
      },
    });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: { fake: createFakeProvider([{ toolCalls: [{ name: "steal", args: {} }] }, { text: "never stored" }]) },
      defaultModel: "m",
      tools: [steal],
    });
    const sent = runtime.send({ agentId: "a", content: "go" });
    await expect(sent).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
    const [session] = await store.listSessions();
    const records = await store.load(session!.sessionId);
    // Nothing after the tool call's start: its result, the answer and the end record were all refused.
    expect(records.map((r) => r.kind)).toEqual([
      "turn",
      "message",
      "message",
      "prompt",
      "prompt",
      "model_call",
      "tool_start",
    ]);
    store.close();
  });

  it("a runtime waits for a session another runtime holds, and gives up with SessionBusyError after leaseWaitMs", async () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    const session = await store.createSession({ agentId: "a" });
    await store.acquireLease(session.sessionId, { owner: "other-process", ttlMs: 60_000 });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: { fake: createFakeProvider([{ text: "hi" }]) },
      defaultModel: "m",
      leaseWaitMs: 50,
    });
    await expect(runtime.send({ agentId: "a", content: "hello", session: session.sessionId })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error),
    );
    expect(await store.load(session.sessionId)).toEqual([]);
    store.close();
  });
});

describe("waiting for a lease", () => {
  const immediate = () => new Promise((resolve) => setImmediate(resolve));
  const options = (owner: string) => ({ owner, ttlMs: 60_000, waitMs: 60_000 });

  it("wakes on the release's signal: the waiter gets the lease with no timer firing", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    try {
      const store = new SqliteSessionStore({ path: ":memory:" });
      const { sessionId } = await store.createSession({ agentId: "a" });
      const first = await acquireSessionLease(store, sessionId, options("first"));
      let second: HeldLease | undefined;
      void acquireSessionLease(store, sessionId, options("second")).then((lease) => (second = lease));
      for (let i = 0; i < 5; i++) await immediate();
      expect(second).toBeUndefined();
      await first.release();
      for (let i = 0; i < 10 && second === undefined; i++) await immediate();
      expect(second?.token).toBeGreaterThan(first.token!);
      await second?.release();
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("a release whose signal was lost is still found by the backoff", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    try {
      const store = new SqliteSessionStore({ path: ":memory:" });
      const { sessionId } = await store.createSession({ agentId: "a" });
      const held = await store.acquireLease(sessionId, { owner: "elsewhere", ttlMs: 60_000 });
      let second: HeldLease | undefined;
      void acquireSessionLease(store, sessionId, options("second")).then((lease) => (second = lease));
      for (let i = 0; i < 5; i++) await immediate();
      // Released without a signal (a process that died after releasing, say).
      await store.releaseLease(sessionId, held!.token);
      for (let i = 0; i < 5; i++) await immediate();
      expect(second).toBeUndefined();
      await vi.advanceTimersByTimeAsync(300);
      expect(second?.token).toBeGreaterThan(held!.token);
      await second?.release();
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
