import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  InvalidArgumentError,
  LeaseLostError,
  SessionNotFoundError,
  type NewRecord,
  type SessionLease,
} from "@agentry/core";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { databaseUrl, freshSchema, requireDatabase } from "./database.js";
import { text, request } from "../helpers/store-records.js";

/** A pool whose clients count the queries they send (one query = one round trip to the server). */
function countingPool(): { pool: pg.Pool; count: () => number; reset: () => void } {
  const pool = new pg.Pool({ connectionString: databaseUrl!, max: 4 });
  pool.on("error", () => undefined);
  let queries = 0;
  // Every client the pool opens, before its first use.
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      queries++;
      return query(...args);
    }) as typeof client.query;
  });
  return { pool, count: () => queries, reset: () => (queries = 0) };
}

describe("PostgresSessionStore round trips, counted at the client", () => {
  if (!requireDatabase()) return;
  const { pool, count, reset } = countingPool();
  const schema = freshSchema();
  const store = new PostgresSessionStore({ pool, schema });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  /** The round trips `task` takes (the schema is migrated before). */
  const tripsOf = async (task: () => Promise<unknown>): Promise<number> => {
    await store.listSessions({ limit: 1 });
    reset();
    await task();
    return count();
  };

  it("an append is one round trip: new records, duplicates, a batch, a fenced append and a refused one", async () => {
    const { sessionId } = await store.createSession({ agentId: "a" });
    expect(await tripsOf(() => store.append(sessionId, [text("m1", "hello")]))).toBe(1);
    expect(await tripsOf(() => store.append(sessionId, [text("m1", "hello")]))).toBe(1);
    expect(await tripsOf(() => store.append(sessionId, [text("m2", "a"), text("m3", "b"), text("m2", "again")]))).toBe(
      1,
    );
    const lease = (await store.acquireLease(sessionId, { owner: "me", ttlMs: 60_000 }))!;
    expect(await tripsOf(() => store.append(sessionId, [text("m4", "fenced")], { leaseToken: lease.token }))).toBe(1);
    let refused: unknown;
    expect(
      await tripsOf(() =>
        store
          .append(sessionId, [text("m5", "stale")], { leaseToken: lease.token - 1 })
          .catch((error) => (refused = error)),
      ),
    ).toBe(1);
    expect(LeaseLostError.isInstance(refused)).toBe(true);
    const stored = await store.load(sessionId);
    expect(stored.map((record) => [record.id, record.seq])).toEqual([
      ["m1", 1],
      ["m2", 2],
      ["m3", 3],
      ["m4", 4],
    ]);
  });

  it("what an append returns is what load reads back: seq, at, the first record under a repeated id", async () => {
    const { sessionId } = await store.createSession({ agentId: "a" });
    const returned = await store.append(sessionId, [
      text("x", "one"),
      Object.assign(text("y", "two"), { frame: "f1", seq: 99, at: "then" }),
    ]);
    const again = await store.append(sessionId, [text("x", "two"), text("z", "three"), text("z", "four")]);
    expect(await store.load(sessionId)).toEqual([...returned, again[1]]);
    expect(again[0]).toEqual(returned[0]);
    expect(again[2]).toEqual(again[1]);
    expect(returned[1]).toMatchObject({ id: "y", seq: 2, frame: "f1", message: { role: "user", content: "two" } });
    expect(returned[1]!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await store.getSession(sessionId))!.updatedAt).toBe(again[1]!.at);
  });

  it("a record whose JSON is not an object (a toJSON field) → InvalidArgumentError, nothing stored", async () => {
    const { sessionId } = await store.createSession({ agentId: "a" });
    const odd = Object.assign(text("odd", "x"), { toJSON: () => "not an object" });
    const failure = await store.append(sessionId, [text("fine", "y"), odd]).catch((error: unknown) => error);
    expect(InvalidArgumentError.isInstance(failure)).toBe(true);
    expect(await store.load(sessionId)).toEqual([]);
  });

  it("the approval index is kept in the same round trip; lease renewal and index lookups are one round trip each", async () => {
    const { sessionId } = await store.createSession({ agentId: "a", scope: "tenant-1" });
    const ask: NewRecord = { id: "r1", kind: "approval", frame: null, request: request("r1") };
    expect(await tripsOf(() => store.append(sessionId, [ask]))).toBe(1);
    expect((await store.listPendingApprovals({ scope: "tenant-1" })).map((entry) => entry.requestId)).toEqual(["r1"]);
    const decide: NewRecord = {
      id: "r1:decision",
      kind: "approval",
      frame: null,
      request: request("r1"),
      decision: "approved",
    };
    expect(await tripsOf(() => store.append(sessionId, [decide]))).toBe(1);
    expect(await tripsOf(() => store.findApproval("r1"))).toBe(1);
    expect((await store.findApproval("r1"))!.decided).toBe(true);
    expect(await tripsOf(() => store.listPendingApprovals({ scope: "tenant-1" }))).toBe(1);
    expect(await store.listPendingApprovals({ scope: "tenant-1" })).toEqual([]);
    const lease = (await store.acquireLease(sessionId, { owner: "me", ttlMs: 60_000 }))!;
    expect(await tripsOf(() => store.renewLease(sessionId, lease.token, { ttlMs: 60_000 }))).toBe(1);
  });

  it("a lease request is one round trip, granted, refused or queued with a ticket", async () => {
    const { sessionId } = await store.createSession({ agentId: "a" });
    let first: SessionLease | undefined;
    expect(
      await tripsOf(async () => (first = await store.acquireLease(sessionId, { owner: "one", ttlMs: 60_000 }))),
    ).toBe(1);
    expect(first!.token).toBe(1);
    let refused: SessionLease | undefined;
    const asking = { owner: "two", ttlMs: 60_000, ticket: "t-2" };
    expect(await tripsOf(async () => (refused = await store.acquireLease(sessionId, asking)))).toBe(1);
    expect(refused).toBeUndefined();
    // Queued: a later asker without the first ticket is not served even once the lease is released.
    await store.releaseLease(sessionId, first!.token);
    expect(await store.acquireLease(sessionId, { owner: "three", ttlMs: 60_000, ticket: "t-3" })).toBeUndefined();
    let granted: SessionLease | undefined;
    expect(await tripsOf(async () => (granted = await store.acquireLease(sessionId, asking)))).toBe(1);
    expect(granted!.token).toBe(2);
    expect(await store.acquireLease("no-such-session", asking).catch((error: unknown) => error)).toSatisfy(
      (error: unknown) => SessionNotFoundError.isInstance(error),
    );
  });

  it("a batch asking and deciding, and a root reset after a request, index in order", async () => {
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [
      { id: "q1", kind: "approval", frame: null, request: request("q1") },
      { id: "q1:decision", kind: "approval", frame: null, request: request("q1"), decision: "denied" },
      { id: "q2", kind: "approval", frame: null, request: request("q2") },
    ]);
    expect((await store.listPendingApprovals({ sessionId })).map((entry) => entry.requestId)).toEqual(["q2"]);
    await store.append(sessionId, [
      { id: "q3", kind: "approval", frame: null, request: request("q3") },
      { id: "reset", kind: "reset", frame: null },
    ]);
    expect(await store.listPendingApprovals({ sessionId })).toEqual([]);
    // A decision stored first (its request never indexed) is indexed as decided.
    await store.append(sessionId, [
      { id: "q4:decision", kind: "approval", frame: null, request: request("q4"), decision: "approved" },
    ]);
    expect((await store.findApproval("q4"))!.decided).toBe(true);
  });
});
