import { createServer } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError, SessionNotFoundError, SessionStoreError } from "@agentry/core";
import { POSTGRES_SCHEMA_VERSION, PostgresSessionStore } from "@agentry/core/postgres";
import { adminClient, databaseUrl, freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";
import { text, request } from "../helpers/store-records.js";

/** A loopback port nothing listens on (taken, then released). */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("PostgresSessionStore: arguments", () => {
  it("refuses a schema name that is not a plain identifier, and a missing connection string", () => {
    expect(
      () => new PostgresSessionStore({ connectionString: "postgres://x", schema: 'a"; DROP TABLE x; --' }),
    ).toThrow(InvalidArgumentError);
    expect(() => new PostgresSessionStore({ connectionString: "" })).toThrow(InvalidArgumentError);
  });

  it("an unreachable server → SessionStoreError naming the connection problem, quickly (connectionTimeoutMillis)", async () => {
    const port = await closedPort();
    const store = new PostgresSessionStore({
      connectionString: `postgres://nobody@127.0.0.1:${port}/none`,
      connectionTimeoutMillis: 2000,
    });
    const failure = await store.createSession({ agentId: "a" }).catch((error: unknown) => error);
    expect(SessionStoreError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/cannot connect to the database/);
    // Still the same typed error on the next call (the store retries instead of caching the failure).
    await expect(store.listSessions()).rejects.toSatisfy((error: unknown) => SessionStoreError.isInstance(error));
    await store.close();
  });
});

describe("PostgresSessionStore", () => {
  if (!requireDatabase()) return;
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const task of cleanup) await task();
  });

  it("migrates on first use into the named schema, once, even when several stores start together", async () => {
    const schema = freshSchema();
    const stores = Array.from(
      { length: 4 },
      () => new PostgresSessionStore({ connectionString: databaseUrl!, schema, max: 2 }),
    );
    await Promise.all(stores.map((store, index) => store.createSession({ agentId: `agent-${index}` })));
    const admin = await adminClient();
    cleanup.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    const versions = await admin.query(`SELECT version FROM "${schema}".schema_version`);
    expect(versions.rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    const tables = await admin.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(tables.rows.map((row: { table_name: string }) => row.table_name)).toEqual([
      "approvals",
      "dispatch_claims",
      "dispatch_events",
      "dispatch_jobs",
      "lease_waiters",
      "records",
      "schema_version",
      "sessions",
    ]);
    // A new store on the migrated schema sees the sessions and migrates nothing.
    const again = new PostgresSessionStore({ connectionString: databaseUrl!, schema });
    expect((await again.listSessions()).length).toBe(4);
    expect((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".schema_version`)).rows[0].n).toBe(1);
    await Promise.all([...stores, again].map((store) => store.close()));
  });

  it("a schema written by a newer version → SessionStoreError naming both versions; nothing is created", async () => {
    const schema = freshSchema();
    const admin = await adminClient();
    cleanup.push(async () => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    await admin.query(
      `CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".schema_version (version integer NOT NULL); INSERT INTO "${schema}".schema_version VALUES (${POSTGRES_SCHEMA_VERSION + 1})`,
    );
    const store = new PostgresSessionStore({ connectionString: databaseUrl!, schema });
    const failure = await store.createSession({ agentId: "a" }).catch((error: unknown) => error);
    expect(SessionStoreError.isInstance(failure)).toBe(true);
    expect((failure as Error).message).toContain(`version ${POSTGRES_SCHEMA_VERSION + 1}`);
    expect((failure as Error).message).toContain(`(${POSTGRES_SCHEMA_VERSION})`);
    const tables = await admin.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [
      schema,
    ]);
    expect(tables.rows).toEqual([{ table_name: "schema_version" }]);
    await store.close();
  });

  it("a connection killed in the middle of an append → SessionStoreError, nothing half-written, the store keeps working", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [{ id: "r1", kind: "approval", frame: null, request: request("r1") }]);
    const admin = await adminClient();
    cleanup.push(() => admin.end());
    // Hold the index row of r1 so the append stops after inserting its record, inside its transaction.
    await admin.query("BEGIN");
    await admin.query(`SELECT * FROM "${store.schema}".approvals WHERE request_id = 'r1' FOR UPDATE`);
    const appending = store.append(sessionId, [
      text("before", "stored with the decision"),
      { id: "r1:decision", kind: "approval", frame: null, request: request("r1"), decision: "approved" },
    ]);
    const outcome = appending.catch((error: unknown) => error);
    let pid: number | undefined;
    for (let attempt = 0; attempt < 500 && pid === undefined; attempt++) {
      // pg_stat_activity is a snapshot per transaction: take a new one each time.
      await admin.query("SELECT pg_stat_clear_snapshot()");
      const waiting = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%append_records%'",
      );
      pid = waiting.rows[0]?.pid;
      if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(pid).toBeDefined();
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await admin.query("ROLLBACK");
    const failure = await outcome;
    expect(SessionStoreError.isInstance(failure)).toBe(true);
    expect((await store.load(sessionId)).map((record) => record.id)).toEqual(["r1"]);
    expect((await store.findApproval("r1"))?.decided).toBe(false);
    // The pool replaced the dead connection: the next append works and numbers on without a gap.
    const [stored] = await store.append(sessionId, [text("after", "next")]);
    expect(stored!.seq).toBe(2);
  });

  it("a pool passed in stays open after close(); the tables live in its database", async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl });
    const schema = freshSchema();
    const store = new PostgresSessionStore({ pool, schema });
    const { sessionId } = await store.createSession({ agentId: "a", scope: "user-1" });
    await store.close();
    await expect(store.getSession(sessionId)).rejects.toSatisfy((error: unknown) =>
      SessionStoreError.isInstance(error),
    );
    expect((await pool.query(`SELECT scope FROM "${schema}".sessions WHERE id = $1`, [sessionId])).rows).toEqual([
      { scope: "user-1" },
    ]);
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it("lease expiry runs on the database clock, not the client's", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    const { sessionId } = await store.createSession({ agentId: "a" });
    const admin = await adminClient();
    cleanup.push(() => admin.end());
    const dbNow = Date.parse(
      (await admin.query<{ now: Date }>("SELECT clock_timestamp() AS now")).rows[0]!.now.toISOString(),
    );
    const lease = (await store.acquireLease(sessionId, { owner: "one", ttlMs: 3_600_000 }))!;
    const expires = Date.parse(lease.expiresAt);
    expect(expires - dbNow).toBeGreaterThanOrEqual(3_600_000);
    expect(expires - dbNow).toBeLessThan(3_600_000 + 60_000);
    // Moving the expiry into the database's past frees the lease whatever the client clock says.
    await admin.query(
      `UPDATE "${store.schema}".sessions SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [sessionId],
    );
    const taken = await store.acquireLease(sessionId, { owner: "two", ttlMs: 60_000 });
    expect(taken?.token).toBe(lease.token + 1);
  });

  it("an append reads as many pages in a session of 3,000 records as in a new one (EXPLAIN ANALYZE, BUFFERS)", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    const big = (await store.createSession({ agentId: "a" })).sessionId;
    const small = (await store.createSession({ agentId: "a" })).sessionId;
    const admin = await adminClient();
    cleanup.push(() => admin.end());
    const call = `SELECT * FROM "${store.schema}".append_records($1, NULL, ARRAY[$2], ARRAY['"' || $2 || '"'],
      ARRAY[NULL]::text[], ARRAY['message'], ARRAY['"frame":null,"kind":"message","message":{"role":"user","content":"x"}}'],
      ARRAY[NULL]::text[], ARRAY[false])`;
    // A connection keeps the function's plans, generic ones after five calls: made here while both sessions are
    // small, as on a server whose sessions grew since, they must not read a session's every record.
    for (let n = 0; n < 8; n++) {
      await admin.query(call, [big, `warm-${n}`]);
      await admin.query(call, [small, `warm-${n}`]);
    }
    await store.append(
      big,
      Array.from({ length: 3_000 }, (_, n) => text(`old-${n}`, `message ${n} `.repeat(4))),
    );
    const pagesOf = async (sessionId: string): Promise<number> => {
      const { rows } = await admin.query<{ "QUERY PLAN": [{ Plan: Record<string, number> }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${call}`,
        [sessionId, `new-${sessionId}`],
      );
      const plan = rows[0]!["QUERY PLAN"][0].Plan;
      return plan["Shared Hit Blocks"]! + plan["Shared Read Blocks"]!;
    };
    const [inBig, inSmall] = [await pagesOf(big), await pagesOf(small)];
    // The (session_id, id) and (session_id, seq) indexes may be a level deeper in the big session.
    expect(inBig).toBeLessThanOrEqual(inSmall + 6);
    expect((await store.load(big)).map((record) => record.seq)).toEqual(Array.from({ length: 3_009 }, (_, n) => n + 1));
  });

  it("an append runs a statement prepared once per connection, and runs unprepared once when the connection lost it", async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl!, max: 1 });
    pool.on("error", () => undefined);
    const schema = freshSchema();
    const store = new PostgresSessionStore({ pool, schema });
    cleanup.push(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });
    const prepared = async () =>
      (await pool.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements")).rows
        .map((row) => row.statement)
        .filter((statement) => statement.includes(`"${schema}".append_records(`));
    const { sessionId } = await store.createSession({ agentId: "a" });
    await store.append(sessionId, [text("m1", "one")]);
    await store.append(sessionId, [text("m2", "two")]);
    expect(await prepared()).toHaveLength(1);
    // What a pool's `DISCARD ALL`, or a pooler handing the client another server connection, does.
    await pool.query("DEALLOCATE ALL");
    await store.append(sessionId, [text("m3", "three"), text("m1", "again")]);
    await store.append(sessionId, [text("m4", "four")]);
    expect(await prepared()).toHaveLength(1);
    expect((await store.load(sessionId)).map((record) => [record.seq, record.id])).toEqual([
      [1, "m1"],
      [2, "m2"],
      [3, "m3"],
      [4, "m4"],
    ]);
  });

  it("deleteSession and prune delete the records with their sessions, also while appends to them run", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    const created = async () => (await store.createSession({ agentId: "a" })).sessionId;
    const [doomed, old, kept] = [await created(), await created(), await created()];
    let appended = 0;
    const appending = async (sessionId: string) => {
      for (let n = 0; ; n++) {
        try {
          await store.append(sessionId, [text(`m${n}`, "hello")]);
          appended++;
        } catch (error) {
          expect(SessionNotFoundError.isInstance(error)).toBe(true);
          return;
        }
      }
    };
    const deleting = async () => {
      await expect.poll(() => appended, { interval: 1 }).toBeGreaterThan(5);
      await store.deleteSession(doomed);
    };
    await Promise.all([appending(doomed), appending(doomed), deleting()]);
    await store.append(old, [text("o1", "old")]);
    await store.append(kept, [text("k1", "kept"), text("k2", "kept")]);
    const admin = await adminClient();
    cleanup.push(() => admin.end());
    const s = `"${store.schema}"`;
    await admin.query(`UPDATE ${s}.sessions SET updated_at = '2000-01-01T00:00:00Z' WHERE id = $1`, [old]);
    expect(await store.prune({ olderThan: "2001-01-01T00:00:00.000Z" })).toBe(1);
    const { rows } = await admin.query<{ session_id: string; n: number }>(
      `SELECT session_id, count(*)::int AS n FROM ${s}.records GROUP BY session_id`,
    );
    expect(rows).toEqual([{ session_id: kept, n: 2 }]);
    expect(await store.getSession(doomed)).toBeUndefined();
    await expect(store.load(old)).rejects.toThrow(SessionNotFoundError);
  });

  it("every query that lists or finds is served by an index (its cost does not grow with the number of sessions)", async () => {
    const store = storeOnFreshSchema();
    cleanup.push(() => store.close());
    await store.createSession({ agentId: "a" });
    const admin = await adminClient();
    cleanup.push(() => admin.end());
    const s = `"${store.schema}"`;
    await admin.query("SET enable_seqscan = off");
    const queries = [
      `SELECT * FROM ${s}.sessions ORDER BY touch DESC LIMIT 10`,
      `SELECT * FROM ${s}.sessions WHERE agent_id = 'a' ORDER BY touch DESC LIMIT 10`,
      `SELECT * FROM ${s}.sessions WHERE scope = 'u' AND agent_id = 'a' ORDER BY touch DESC LIMIT 10`,
      `SELECT * FROM ${s}.sessions WHERE scope IS NULL ORDER BY touch DESC LIMIT 10`,
      `SELECT id FROM ${s}.sessions WHERE updated_at < now() FOR UPDATE`,
      `DELETE FROM ${s}.records WHERE session_id = ANY('{x,y}')`,
      `SELECT * FROM ${s}.approvals WHERE NOT decided AND scope = 'u' ORDER BY ord LIMIT 10`,
      `SELECT * FROM ${s}.approvals WHERE NOT decided ORDER BY ord LIMIT 10`,
      `SELECT * FROM ${s}.approvals WHERE NOT decided AND session_id = 'x' ORDER BY ord`,
      `SELECT body FROM ${s}.records WHERE session_id = 'x' AND seq > (SELECT max(seq) FROM ${s}.records WHERE session_id = 'x' AND kind = 'reset') ORDER BY seq`,
    ];
    for (const sql of queries) {
      const plan = (await admin.query(`EXPLAIN ${sql}`)).rows
        .map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"])
        .join("\n");
      expect(plan, sql).not.toContain("Seq Scan");
    }
  });
});
