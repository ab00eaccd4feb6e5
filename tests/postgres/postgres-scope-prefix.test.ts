import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { databaseUrl, freshSchema, requireDatabase } from "./database.js";

interface SeenQuery {
  text: string;
  values: unknown[];
}

/** A pool whose clients remember every parameterised query they run (what the store sends). */
function recordingPool(seen: SeenQuery[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === "string" && Array.isArray(args[1])) seen.push({ text: args[0], values: args[1] });
      return query(...args);
    };
  });
  return pool;
}

describe("PostgresSessionStore scopePrefix", () => {
  if (!requireDatabase()) return;
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const task of cleanup) await task();
  });

  it("reads the prefix's range of the scope index, also when its sessions are the oldest of 20,000 (EXPLAIN)", async () => {
    const seen: SeenQuery[] = [];
    const pool = recordingPool(seen);
    const schema = freshSchema();
    const store = new PostgresSessionStore({ pool, schema });
    cleanup.push(async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    });
    // The tenant's sessions first (the oldest), then 20,000 of 2,000 other tenants, then statistics.
    const acme: string[] = [];
    for (let n = 0; n < 5; n++)
      acme.push((await store.createSession({ agentId: "agent-a", scope: `acme/u${n}` })).sessionId);
    for (const sessionId of acme.slice(0, 2)) {
      await store.append(sessionId, [
        {
          id: `req-${sessionId}`,
          kind: "approval",
          frame: null,
          request: {
            requestId: `req-${sessionId}`,
            toolCallId: "c",
            name: "t",
            args: {},
            depth: 0,
            parentId: null,
            reason: "r",
          },
        },
      ]);
    }
    const s = `"${schema}"`;
    await pool.query(`INSERT INTO ${s}.sessions (id, agent_id, scope, created_at, updated_at, touch)
      SELECT 'other-' || i, 'agent-a', 't' || (i % 2000) || '/u' || i, now(), now(), nextval('${s}.touch_seq') FROM generate_series(1, 20000) i`);
    await pool.query(`INSERT INTO ${s}.approvals (request_id, session_id, agent_id, scope, ord, body)
      SELECT 'req-other-' || i, 'other-' || i, 'agent-a', 't' || (i % 2000) || '/u' || i, nextval('${s}.touch_seq'), '{}'::json FROM generate_series(1, 20000) i`);
    await pool.query(`ANALYZE ${s}.sessions; ANALYZE ${s}.approvals`);

    const planOf = async (call: () => Promise<unknown>): Promise<string> => {
      seen.length = 0;
      await call();
      const query = seen.find((q) => /FROM "[^"]+"\.(sessions|approvals)/.test(q.text))!;
      const { rows } = await pool.query(`EXPLAIN ${query.text}`, query.values);
      return rows.map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"]).join("\n");
    };
    const listing = () => store.listSessions({ scopePrefix: "acme/", limit: 3 });
    // The two with approvals were touched last.
    expect((await listing()).map((session) => session.sessionId)).toEqual([acme[1], acme[0], acme[4]]);
    expect(await planOf(listing)).toContain("sessions_by_scope_prefix");
    const byAgent = () => store.listSessions({ scopePrefix: "acme/", agentId: "agent-a", limit: 3 });
    expect(await planOf(byAgent)).toContain("sessions_by_scope_prefix");
    const pending = () => store.listPendingApprovals({ scopePrefix: "acme/" });
    expect((await store.listPendingApprovals({ scopePrefix: "acme/" })).map((entry) => entry.sessionId)).toEqual(
      acme.slice(0, 2),
    );
    expect(await planOf(pending)).toContain("approvals_pending_prefix");
  });
});
