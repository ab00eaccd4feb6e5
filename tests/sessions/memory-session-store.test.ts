import { describe, expect, it } from "vitest";
import { InvalidArgumentError, MemorySessionStore, type NewRecord } from "@agentry/core";
import { runSessionStoreContract } from "@agentry/core/testing";

runSessionStoreContract("MemorySessionStore", () => new MemorySessionStore());

describe("MemorySessionStore", () => {
  it("keeps records as JSON would, like the file and database stores", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const args = { when: new Date("2024-01-02T03:04:05.000Z"), skip: undefined, fn: () => 1 };
    await store.append(sessionId, [
      {
        id: "m1",
        kind: "message",
        frame: null,
        message: { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "t", args }] },
      },
    ]);
    const [record] = await store.load(sessionId);
    expect(record).toMatchObject({ message: { content: [{ args: { when: "2024-01-02T03:04:05.000Z" } }] } });
    expect(Object.keys((record as { message: { content: { args: object }[] } }).message.content[0]!.args)).toEqual([
      "when",
    ]);
  });

  it("rejects a batch JSON cannot hold (bigint, cycles), storing nothing", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const result of [10n, cyclic]) {
      const records = [
        { id: "ok", kind: "message", frame: null, message: { role: "user", content: "fine" } },
        {
          id: "bad",
          kind: "message",
          frame: null,
          message: { role: "tool", content: [{ type: "tool_result", toolCallId: "c", name: "t", result }] },
        },
      ];
      await expect(store.append(sessionId, records as NewRecord[])).rejects.toSatisfy((e) =>
        InvalidArgumentError.isInstance(e),
      );
    }
    expect(await store.load(sessionId)).toEqual([]);
  });

  it("finds duplicates in long sessions (indexed) as in short ones (scanned)", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const text = (id: string): NewRecord => ({
      id,
      kind: "message",
      frame: null,
      message: { role: "user", content: id },
    });
    for (let n = 1; n <= 100; n++) await store.append(sessionId, [text(`m${n}`)]);
    const again = await store.append(sessionId, [text("m1"), text("m33"), text("m100"), text("m101")]);
    expect(again.map((r) => r.seq)).toEqual([1, 33, 100, 101]);
    expect(await store.load(sessionId)).toHaveLength(101);
  });

  it("names every problem of an invalid batch", async () => {
    const store = new MemorySessionStore();
    const { sessionId } = await store.createSession({ agentId: "a" });
    const error = await store
      .append(sessionId, [{ id: "", kind: "turn", frame: undefined, runId: "r", phase: "middle" } as never])
      .catch((e: unknown) => e);
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
    await expect(store.updateSession(sessionId, { agentId: "b" } as never)).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    await expect(store.listSessions({ limit: -1 })).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    await expect(store.prune({ olderThan: "yesterday" })).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
  });
});

describe("MemorySessionStore listing order under many touches", () => {
  it("lists like a reference model through creates, appends, updates, deletes, re-creates and prunes (touch-log compaction included)", async () => {
    const { default: fc } = await import("fast-check");
    const op = fc.oneof(
      fc.record({ kind: fc.constant("create" as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("append" as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("update" as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 12 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 50, maxLength: 400 }), async (ops) => {
        const store = new MemorySessionStore();
        let model: string[] = []; // least recently updated first
        const touch = (id: string) => (model = [...model.filter((m) => m !== id), id]);
        for (const [n, { kind, id: i }] of ops.entries()) {
          const id = `s${i}`;
          const exists = model.includes(id);
          if (kind === "create" && !exists) {
            await store.createSession({ agentId: i % 2 ? "odd" : "even", sessionId: id });
            touch(id);
          } else if (kind === "append" && exists) {
            await store.append(id, [{ id: `r${n}`, frame: null, kind: "reset" }]);
            touch(id);
          } else if (kind === "update" && exists) {
            await store.updateSession(id, { name: `n${n}` });
            touch(id);
          } else if (kind === "delete") {
            await store.deleteSession(id);
            model = model.filter((m) => m !== id);
          }
        }
        expect((await store.listSessions()).map((s) => s.sessionId)).toEqual([...model].reverse());
        expect((await store.listSessions({ agentId: "odd", limit: 2 })).map((s) => s.sessionId)).toEqual(
          [...model]
            .reverse()
            .filter((id) => Number(id.slice(1)) % 2 === 1)
            .slice(0, 2),
        );
        const pruned = await store.prune({ olderThan: new Date(Date.now() + 60_000).toISOString() });
        expect(pruned).toBe(model.length);
        expect(await store.listSessions()).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe("MemorySessionStore scope index", () => {
  it("lists by scope, by prefix and pending approvals like a reference model through creates, touches, approvals, resets and deletes", async () => {
    const { default: fc } = await import("fast-check");
    const SCOPES = [undefined, "a/x", "a/y", "ab", "b", "a"] as const;
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("create" as const),
        id: fc.integer({ min: 0, max: 15 }),
        scope: fc.integer({ min: 0, max: SCOPES.length - 1 }),
      }),
      fc.record({ kind: fc.constant("touch" as const), id: fc.integer({ min: 0, max: 15 }) }),
      fc.record({ kind: fc.constant("ask" as const), id: fc.integer({ min: 0, max: 15 }) }),
      fc.record({ kind: fc.constant("reset" as const), id: fc.integer({ min: 0, max: 15 }) }),
      fc.record({ kind: fc.constant("delete" as const), id: fc.integer({ min: 0, max: 15 }) }),
    );
    const queries: { scope?: string | null; scopePrefix?: string; limit?: number }[] = [
      { scopePrefix: "a/" },
      { scopePrefix: "a" },
      { scopePrefix: "" },
      { scopePrefix: "a", limit: 2 },
      { scope: "ab" },
      { scope: null },
      { scope: "a/x", limit: 1 },
    ];
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 20, maxLength: 300 }), async (ops) => {
        const store = new MemorySessionStore();
        let order: string[] = []; // least recently updated first
        const scopes = new Map<string, string | undefined>();
        let pending: { requestId: string; sessionId: string }[] = []; // oldest first
        const touch = (id: string) => (order = [...order.filter((m) => m !== id), id]);
        for (const [n, step] of ops.entries()) {
          const id = `s${step.id}`;
          const exists = scopes.has(id);
          if (step.kind === "create" && !exists) {
            const scope = SCOPES[step.scope];
            await store.createSession({ agentId: "a", sessionId: id, ...(scope !== undefined && { scope }) });
            scopes.set(id, scope);
            touch(id);
          } else if (step.kind === "touch" && exists) {
            await store.updateSession(id, { name: `n${n}` });
            touch(id);
          } else if (step.kind === "ask" && exists) {
            const requestId = `r${n}`;
            const request = { requestId, toolCallId: "c", name: "t", args: {}, depth: 0, parentId: null, reason: "" };
            await store.append(id, [{ id: requestId, kind: "approval", frame: null, request }]);
            pending.push({ requestId, sessionId: id });
            touch(id);
          } else if (step.kind === "reset" && exists) {
            await store.clear(id);
            pending = pending.filter((p) => p.sessionId !== id);
            touch(id);
          } else if (step.kind === "delete") {
            await store.deleteSession(id);
            scopes.delete(id);
            order = order.filter((m) => m !== id);
            pending = pending.filter((p) => p.sessionId !== id);
          }
        }
        const keeps = (id: string, query: (typeof queries)[number]) => {
          const scope = scopes.get(id);
          if (query.scopePrefix !== undefined) return scope !== undefined && scope.startsWith(query.scopePrefix);
          return query.scope === null ? scope === undefined : scope === query.scope;
        };
        for (const query of queries) {
          const expected = [...order]
            .reverse()
            .filter((id) => keeps(id, query))
            .slice(0, query.limit);
          expect(
            (await store.listSessions(query)).map((s) => s.sessionId),
            JSON.stringify(query),
          ).toEqual(expected);
          const expectedPending = pending
            .filter((p) => keeps(p.sessionId, query))
            .slice(0, query.limit)
            .map((p) => p.requestId);
          expect(
            (await store.listPendingApprovals(query)).map((p) => p.requestId),
            `pending ${JSON.stringify(query)}`,
          ).toEqual(expectedPending);
        }
      }),
      { numRuns: 80 },
    );
  });
});
