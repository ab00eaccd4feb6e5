import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type pg from "pg";
import type { NewRecord } from "@agentry/core";
import { POSTGRES_SCHEMA_VERSION, PostgresSessionStore } from "@agentry/core/postgres";
import { migrate } from "../../src/postgres/postgres-migrations.js";
import { bundleForNode } from "../helpers/bundle-for-node.js";
import { adminClient, databaseUrl, requireDatabase } from "./database.js";
import { startChild } from "./fixtures/dispatch-children.js";
import { useDispatchLayouts } from "./fixtures/dispatch-layout.js";

const DISPATCH_TABLES = ["dispatch_claims", "dispatch_events", "dispatch_jobs"];

/**
 * A version-2 schema with the dispatcher's tables as releases before version 3 made them (outside
 * the migrations; `dispatch_jobs` of the first of them without `cancelled`), holding a finished
 * job with its events and a queued one.
 */
async function oldLayout(admin: pg.Client, schema: string): Promise<void> {
  await migrate(admin, schema, 2);
  const s = `"${schema}"`;
  await admin.query(`
    CREATE TABLE ${s}.dispatch_jobs (
      id text PRIMARY KEY,
      session_id text NOT NULL,
      ord bigserial NOT NULL,
      kind text NOT NULL,
      payload json NOT NULL,
      state text NOT NULL DEFAULT 'queued',
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      finished_at timestamptz
    );
    CREATE INDEX dispatch_jobs_queued ON ${s}.dispatch_jobs (session_id, ord) WHERE state = 'queued';
    CREATE TABLE ${s}.dispatch_claims (
      session_id text PRIMARY KEY,
      owner text NOT NULL,
      heartbeat_at timestamptz NOT NULL
    );
    CREATE TABLE ${s}.dispatch_events (
      job_id text NOT NULL,
      ord bigserial NOT NULL,
      kind text NOT NULL,
      body json NOT NULL,
      PRIMARY KEY (job_id, ord)
    );
    INSERT INTO ${s}.dispatch_jobs (id, session_id, kind, payload, state, finished_at)
      VALUES ('old-done', 's-old', 'send', '{}', 'done', now()), ('old-queued', 's-gone', 'send', '{}', 'queued', NULL);
    INSERT INTO ${s}.dispatch_events (job_id, kind, body) VALUES ('old-done', 'outcome', '{"ok":true}');
  `);
}

/** The tables of a schema, by name. */
async function tablesOf(admin: pg.Client, schema: string): Promise<string[]> {
  const query = "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name";
  const { rows } = await admin.query<{ table_name: string }>(query, [schema]);
  return rows.map((row) => row.table_name);
}

/** What a schema holds: its version rows, its tables, and the old jobs and events with `cancelled`. */
async function inspect(admin: pg.Client, schema: string) {
  const s = `"${schema}"`;
  const versions = (await admin.query(`SELECT version FROM ${s}.schema_version`)).rows;
  const jobs = (await admin.query(`SELECT id, state, cancelled FROM ${s}.dispatch_jobs ORDER BY ord`)).rows;
  const events = (await admin.query(`SELECT job_id, kind FROM ${s}.dispatch_events`)).rows;
  return { versions, tables: await tablesOf(admin, schema), jobs, events };
}

const upgraded = {
  versions: [{ version: POSTGRES_SCHEMA_VERSION }],
  tables: expect.arrayContaining([...DISPATCH_TABLES, "schema_version", "sessions"]),
  jobs: [
    { id: "old-done", state: "done", cancelled: false },
    { id: "old-queued", state: "queued", cancelled: false },
  ],
  events: [{ job_id: "old-done", kind: "outcome" }],
};

describe("Postgres migrations: the dispatcher's tables are version 3, the one-round-trip functions version 4 and 5", () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();
  let admin: pg.Client;
  beforeAll(async () => {
    admin = await adminClient();
  });
  afterAll(async () => {
    await admin?.end();
  });

  it("a fresh schema gets the store's and the dispatcher's tables in one migration", async () => {
    const { schema } = layout();
    await migrate(admin, schema);
    expect(POSTGRES_SCHEMA_VERSION).toBe(5);
    const all = ["approvals", ...DISPATCH_TABLES, "lease_waiters", "records", "schema_version", "sessions"];
    expect(await tablesOf(admin, schema)).toEqual(all);
  });

  it("an older release's dispatcher tables (version 2) upgrade with their jobs kept; a dispatcher runs", async () => {
    const { schema, start } = layout();
    await oldLayout(admin, schema);
    await start(true);
    const front = await start(false);
    expect(await inspect(admin, schema)).toEqual(upgraded);
    const indexQuery = "SELECT indexname FROM pg_indexes WHERE schemaname = $1";
    const indexes = await admin.query<{ indexname: string }>(indexQuery, [schema]);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(
      expect.arrayContaining(["dispatch_jobs_queued", "dispatch_jobs_waiting", "dispatch_jobs_finished"]),
    );
    const result = await front.dispatcher.send({ agentId: "main", content: "turn up" });
    expect(result).toMatchObject({ status: "complete", text: "done up" });
  });

  it("a version-4 schema's sessions, records and approvals are kept by version 5, whose appends go on from them", async () => {
    const { schema } = layout();
    await migrate(admin, schema, 4);
    const s = `"${schema}"`;
    await admin.query(`INSERT INTO ${s}.sessions (id, agent_id, scope, created_at, updated_at, touch)
      VALUES ('s1', 'a', 'acme', now(), now(), nextval('${s}.touch_seq'))`);
    const request = { requestId: "q1", toolCallId: "c1", name: "t", args: {}, depth: 0, parentId: null, reason: "r" };
    const rest = [
      `"frame":null,"kind":"message","message":{"role":"user","content":"first"}}`,
      `"frame":null,"kind":"approval","request":${JSON.stringify(request)}}`,
      `"frame":null,"kind":"message","message":{"role":"user","content":"second"}}`,
    ];
    // An append as version 4's store made it.
    await admin.query(`SELECT * FROM ${s}.append_records('s1', NULL, $1, $2, $3, $4, $5, $6, $7)`, [
      ["m1", "q1", "m2"],
      ['"m1"', '"q1"', '"m2"'],
      [null, null, null],
      ["message", "approval", "message"],
      rest,
      [null, "q1", null],
      [false, false, false],
    ]);
    const store = new PostgresSessionStore({ connectionString: databaseUrl!, schema, max: 2 });
    onTestFinished(() => store.close());
    const before = await store.load("s1");
    expect((await admin.query(`SELECT version FROM ${s}.schema_version`)).rows).toEqual([{ version: 5 }]);
    expect(before.map((record) => [record.seq, record.id])).toEqual([
      [1, "m1"],
      [2, "q1"],
      [3, "m2"],
    ]);
    expect((await store.listPendingApprovals({ scope: "acme" })).map((entry) => entry.requestId)).toEqual(["q1"]);
    const decision: NewRecord = { id: "d1", kind: "approval", frame: null, request, decision: "approved" };
    const again: NewRecord = { id: "m1", kind: "message", frame: null, message: { role: "user", content: "other" } };
    const third: NewRecord = { id: "m3", kind: "message", frame: null, message: { role: "user", content: "third" } };
    const stored = await store.append("s1", [again, third, decision]);
    expect(stored.map((record) => [record.seq, record.id])).toEqual([
      [1, "m1"],
      [4, "m3"],
      [5, "d1"],
    ]);
    expect(stored[0]).toEqual(before[0]);
    expect(await store.listPendingApprovals({ scope: "acme" })).toEqual([]);
    expect(await store.findApproval("q1")).toMatchObject({ sessionId: "s1", decided: true });
    expect(await store.load("s1")).toEqual([...before, stored[1], stored[2]]);
    await store.deleteSession("s1");
    const left = await admin.query(
      `SELECT (SELECT count(*) FROM ${s}.records) + (SELECT count(*) FROM ${s}.approvals) AS n`,
    );
    expect(left.rows).toEqual([{ n: "0" }]);
  });

  it("two processes upgrading at once: one migrates, the other waits for it and finds nothing to do", async () => {
    const { schema } = layout();
    await oldLayout(admin, schema);
    const bundle = await bundleForNode(new URL("./fixtures/migrate-child.ts", import.meta.url).pathname, {
      external: ["pg-native"],
    });
    const lock = `agentry-migrate:${schema}`;
    const name = `migrate-${schema}`;
    // Holding the migration lock makes both processes arrive at it before either can migrate.
    await admin.query("SELECT pg_advisory_lock(hashtext($1))", [lock]);
    const children = [0, 1].map(() => startChild(bundle.path, [databaseUrl!, schema, name]));
    onTestFinished(() => bundle.remove());
    try {
      const waiting = async () => {
        const { rows } = await admin.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'advisory'",
          [name],
        );
        return rows[0]!.n;
      };
      await expect.poll(waiting, { timeout: 15_000, interval: 50 }).toBe(2);
      expect(children.map((child) => child.stdout())).toEqual(["CONNECTED\n", "CONNECTED\n"]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock(hashtext($1))", [lock]);
    }
    expect(await Promise.all(children.map((child) => child.exited))).toEqual(["0", "0"]);
    expect(children.map((child) => child.stdout())).toEqual(["CONNECTED\nMIGRATED\n", "CONNECTED\nMIGRATED\n"]);
    expect(await inspect(admin, schema)).toEqual(upgraded);
  });
});
