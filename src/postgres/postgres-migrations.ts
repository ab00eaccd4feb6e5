import type pg from "pg";
import { SessionStoreError } from "../errors/errors.js";
import { dispatchTablesMigration } from "./dispatch-tables.js";
import { toPgJson } from "./postgres-text.js";

/**
 * The schema version this build writes; a database at a later one is refused. 1: the store's
 * tables; 2: text escaping and scope-prefix indexes; 3: the dispatcher's tables; 4: appends and
 * lease requests in one round trip (server-side functions); 5: `append_records` without a scan of the
 * session's records, in fewer statements, and records without a foreign key (`delete_sessions`).
 */
export const POSTGRES_SCHEMA_VERSION = 5;

/** One migration: SQL, or a function that runs its statements on the migrating client. */
type Migration = string | ((client: pg.PoolClient | pg.Client) => Promise<void>);

/**
 * The text columns the store writes escaped (postgres-text.ts), by table; `sessions.id` is updated through the cascade.
 */
const TEXT_COLUMNS: Record<string, string[]> = {
  sessions: ["id", "agent_id", "scope", "name", "pinned_at", "last_snippet", "lease_owner"],
  records: ["id", "frame"],
  approvals: ["request_id", "agent_id", "scope"],
  lease_waiters: ["ticket"],
};

/** `"name"` quoted as an SQL identifier (the name is checked to be letters, digits and `_` first). */
export const quoteIdent = (name: string): string => `"${name}"`;

/** The migrations in order: `migrations[i]` takes the schema from version i to i + 1. */
function migrations(s: string): Migration[] {
  return [
    `
    CREATE SEQUENCE ${s}.touch_seq;
    CREATE TABLE ${s}.sessions (
      id text PRIMARY KEY,
      agent_id text NOT NULL,
      scope text,
      name text,
      pinned_at text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      touch bigint NOT NULL,
      last_seq bigint NOT NULL DEFAULT 0,
      last_snippet text,
      attributes jsonb,
      lease_owner text,
      lease_token bigint NOT NULL DEFAULT 0,
      lease_expires_at timestamptz
    );
    CREATE INDEX sessions_by_touch ON ${s}.sessions (touch);
    CREATE INDEX sessions_by_agent ON ${s}.sessions (agent_id, touch);
    CREATE INDEX sessions_by_scope ON ${s}.sessions (scope, touch);
    CREATE INDEX sessions_by_scope_agent ON ${s}.sessions (scope, agent_id, touch);
    CREATE INDEX sessions_by_updated ON ${s}.sessions (updated_at);
    CREATE TABLE ${s}.records (
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      id text NOT NULL,
      at text NOT NULL,
      frame text,
      kind text NOT NULL,
      body json NOT NULL,
      PRIMARY KEY (session_id, seq),
      UNIQUE (session_id, id)
    );
    CREATE INDEX records_resets ON ${s}.records (session_id, seq) WHERE kind = 'reset';
    CREATE TABLE ${s}.approvals (
      request_id text PRIMARY KEY,
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      agent_id text NOT NULL,
      scope text,
      ord bigint NOT NULL,
      decided boolean NOT NULL DEFAULT false,
      body json NOT NULL
    );
    CREATE INDEX approvals_pending ON ${s}.approvals (scope, ord) WHERE NOT decided;
    CREATE INDEX approvals_pending_all ON ${s}.approvals (ord) WHERE NOT decided;
    CREATE INDEX approvals_by_session ON ${s}.approvals (session_id, ord);
    CREATE TABLE ${s}.lease_waiters (
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      ticket text NOT NULL,
      ord bigserial NOT NULL,
      seen_at timestamptz NOT NULL,
      PRIMARY KEY (session_id, ticket)
    );
    CREATE INDEX lease_waiters_order ON ${s}.lease_waiters (session_id, ord);
    `,
    (client) => escapeText(client, s),
    dispatchTablesMigration(s),
    appendFunction(s) + acquireLeaseFunction(s),
    appendFunctionV5(s) + deleteFunction(s),
  ];
}

/**
 * Version 4: `append_records`, an append in one round trip. Under the session row's lock it checks
 * the fence, skips the ids stored already, numbers the new records after `last_seq` in the order
 * given, writes them with the session row (`last_seq`, `updated_at`, `touch`) and keeps the approval
 * index, all in the one statement that calls it. Each body is built from its parts (`'{"id":' ||
 * id_json || ',"seq":' || seq || ',"at":"' || at || '",' || rest`, `rest` being the record's JSON
 * from `frame` on, without its `{`), so the client knows it without reading it back.
 * Returns `status` (`ok`, `not_found`, `lease_lost`), the append's `at` (ISO, milliseconds, UTC),
 * the session's `last_seq` before it, and the records stored already under the ids (`existing`).
 * The caller passes each id once.
 */
function appendFunction(s: string): string {
  return `
    CREATE FUNCTION ${s}.append_records(
      p_session text, p_token bigint, p_ids text[], p_id_json text[], p_frames text[], p_kinds text[], p_rest text[],
      p_requests text[], p_decided boolean[]
    ) RETURNS TABLE (status text, at text, last_seq bigint, existing json) LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_session record;
      v_now timestamptz := date_trunc('milliseconds', clock_timestamp());
      v_at text := to_char(v_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      v_existing json;
      v_count bigint;
      i bigint;
    BEGIN
      SELECT s.agent_id, s.scope, s.last_seq, s.lease_token INTO v_session
        FROM ${s}.sessions s WHERE s.id = p_session FOR UPDATE;
      IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::text, NULL::bigint, NULL::json;
        RETURN;
      END IF;
      IF p_token IS NOT NULL AND v_session.lease_token <> 0 AND v_session.lease_token <> p_token THEN
        RETURN QUERY SELECT 'lease_lost'::text, NULL::text, NULL::bigint, NULL::json;
        RETURN;
      END IF;
      SELECT json_agg(json_build_object('id', r.id, 'body', r.body)) INTO v_existing
        FROM ${s}.records r WHERE r.session_id = p_session AND r.id = ANY(p_ids);
      INSERT INTO ${s}.records (session_id, seq, id, at, frame, kind, body)
        SELECT p_session, f.seq, f.id, v_at, f.frame, f.kind,
               ('{"id":' || f.id_json || ',"seq":' || f.seq || ',"at":"' || v_at || '",' || f.rest)::json
        FROM (
          SELECT u.*, v_session.last_seq + row_number() OVER (ORDER BY u.n) AS seq
          FROM unnest(p_ids, p_id_json, p_frames, p_kinds, p_rest)
            WITH ORDINALITY AS u (id, id_json, frame, kind, rest, n)
          WHERE NOT EXISTS (SELECT 1 FROM ${s}.records r WHERE r.session_id = p_session AND r.id = u.id)
        ) f;
      GET DIAGNOSTICS v_count = ROW_COUNT;
      IF v_count > 0 THEN
        UPDATE ${s}.sessions
          SET last_seq = v_session.last_seq + v_count, updated_at = v_now, touch = nextval('${s}.touch_seq')
          WHERE id = p_session;
        FOR i IN
          SELECT u.n FROM unnest(p_kinds, p_frames) WITH ORDINALITY AS u (kind, frame, n)
          WHERE u.kind = 'approval' OR (u.kind = 'reset' AND u.frame IS NULL) ORDER BY u.n
        LOOP
          CONTINUE WHEN NOT EXISTS (
            SELECT 1 FROM ${s}.records r
            WHERE r.session_id = p_session AND r.id = p_ids[i] AND r.seq > v_session.last_seq
          );
          IF p_kinds[i] = 'reset' THEN
            UPDATE ${s}.approvals SET decided = true WHERE session_id = p_session AND NOT decided;
          ELSIF p_decided[i] THEN
            UPDATE ${s}.approvals SET decided = true WHERE request_id = p_requests[i];
            CONTINUE WHEN FOUND;
          END IF;
          IF p_kinds[i] = 'approval' THEN
            INSERT INTO ${s}.approvals (request_id, session_id, agent_id, scope, ord, decided, body)
              SELECT p_requests[i], p_session, v_session.agent_id, v_session.scope, nextval('${s}.touch_seq'),
                     p_decided[i], r.body
              FROM ${s}.records r WHERE r.session_id = p_session AND r.id = p_ids[i]
            ON CONFLICT (request_id) DO NOTHING;
          END IF;
        END LOOP;
      END IF;
      RETURN QUERY SELECT 'ok'::text, v_at, v_session.last_seq, v_existing;
    END
    $fn$;
  `;
}

/**
 * Version 5: `append_records` as in version 4 (same arguments, same result), at a cost that does not
 * grow with the session, in fewer statements. Version 4 found the new records with `NOT EXISTS` per
 * id, which the planner's generic plan ran as an anti join over ALL the session's records (an append
 * to a session of 6,000 records took about 3x one to a new session). Now the ids stored already are
 * read once, through the `(session_id, id)` index, with their bodies (`existing`); the records and
 * the session row are written by one statement (numbered by position when none is stored already);
 * the result is returned without a query; the approval index's loop runs only when an approval or a
 * reset is among the new records.
 */
function appendFunctionV5(s: string): string {
  const write = (rows: string) => `
        WITH inserted AS (
          INSERT INTO ${s}.records (session_id, seq, id, at, frame, kind, body)
            SELECT p_session, f.seq, f.id, v_at, f.frame, f.kind,
                   ('{"id":' || f.id_json || ',"seq":' || f.seq || ',"at":"' || v_at || '",' || f.rest)::json
            FROM (${rows}) f
            RETURNING 1
        )
        UPDATE ${s}.sessions s
          SET last_seq = s.last_seq + (SELECT count(*) FROM inserted), updated_at = v_now,
              touch = nextval('${s}.touch_seq')
          WHERE s.id = p_session AND EXISTS (SELECT FROM inserted);`;
  const records =
    "unnest(p_ids, p_id_json, p_frames, p_kinds, p_rest) WITH ORDINALITY AS u (id, id_json, frame, kind, rest, n)";
  return `
    CREATE OR REPLACE FUNCTION ${s}.append_records(
      p_session text, p_token bigint, p_ids text[], p_id_json text[], p_frames text[], p_kinds text[], p_rest text[],
      p_requests text[], p_decided boolean[]
    ) RETURNS TABLE (status text, at text, last_seq bigint, existing json) LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_session record;
      v_now timestamptz := date_trunc('milliseconds', clock_timestamp());
      v_at text := to_char(v_now AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      v_known text[];
      i bigint;
    BEGIN
      SELECT s.agent_id, s.scope, s.last_seq, s.lease_token INTO v_session
        FROM ${s}.sessions s WHERE s.id = p_session FOR UPDATE;
      IF NOT FOUND THEN
        status := 'not_found';
        RETURN NEXT;
        RETURN;
      END IF;
      IF p_token IS NOT NULL AND v_session.lease_token <> 0 AND v_session.lease_token <> p_token THEN
        status := 'lease_lost';
        RETURN NEXT;
        RETURN;
      END IF;
      SELECT json_agg(json_build_object('id', r.id, 'body', r.body)), array_agg(r.id) INTO existing, v_known
        FROM ${s}.records r WHERE r.session_id = p_session AND r.id = ANY(p_ids);
      IF v_known IS NULL THEN
        ${write(`SELECT u.*, v_session.last_seq + u.n AS seq FROM ${records}`)}
      ELSE
        ${write(`SELECT u.*, v_session.last_seq + row_number() OVER (ORDER BY u.n) AS seq FROM ${records}
                 WHERE u.id <> ALL (v_known)`)}
      END IF;
      status := 'ok';
      at := v_at;
      last_seq := v_session.last_seq;
      IF 'approval' = ANY (p_kinds) OR 'reset' = ANY (p_kinds) THEN
        FOR i IN
          SELECT u.n FROM unnest(p_kinds, p_frames, p_ids) WITH ORDINALITY AS u (kind, frame, id, n)
          WHERE (u.kind = 'approval' OR (u.kind = 'reset' AND u.frame IS NULL)) AND u.id <> ALL (coalesce(v_known, '{}'))
          ORDER BY u.n
        LOOP
          IF p_kinds[i] = 'reset' THEN
            UPDATE ${s}.approvals SET decided = true WHERE session_id = p_session AND NOT decided;
          ELSIF p_decided[i] THEN
            UPDATE ${s}.approvals SET decided = true WHERE request_id = p_requests[i];
            CONTINUE WHEN FOUND;
          END IF;
          IF p_kinds[i] = 'approval' THEN
            INSERT INTO ${s}.approvals (request_id, session_id, agent_id, scope, ord, decided, body)
              SELECT p_requests[i], p_session, v_session.agent_id, v_session.scope, nextval('${s}.touch_seq'),
                     p_decided[i], r.body
              FROM ${s}.records r WHERE r.session_id = p_session AND r.id = p_ids[i]
            ON CONFLICT (request_id) DO NOTHING;
          END IF;
        END LOOP;
      END IF;
      RETURN NEXT;
    END
    $fn$;
  `;
}

/**
 * Version 5 too: records without a foreign key to their session (its check was a query per record
 * appended), and `delete_sessions`, which deletes sessions with their records: the sessions `p_ids`
 * (`p_before` null), or those updated before `p_before`. It locks the sessions first, as an append
 * does, then deletes their records in a statement of its own (which sees every append committed
 * before the lock), then the sessions (approval entries and lease waiters go with them by their
 * foreign keys): no record outlives its session, and an append waiting for the lock finds no
 * session. Returns how many sessions it deleted.
 */
function deleteFunction(s: string): string {
  return `
    ALTER TABLE ${s}.records DROP CONSTRAINT records_session_id_fkey;
    CREATE FUNCTION ${s}.delete_sessions(p_ids text[], p_before timestamptz) RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE
      v_ids text[];
    BEGIN
      IF p_before IS NULL THEN
        SELECT array_agg(l.id) INTO v_ids FROM (SELECT s.id FROM ${s}.sessions s WHERE s.id = ANY(p_ids) FOR UPDATE) l;
      ELSE
        SELECT array_agg(l.id) INTO v_ids
          FROM (SELECT s.id FROM ${s}.sessions s WHERE s.updated_at < p_before FOR UPDATE) l;
      END IF;
      IF v_ids IS NULL THEN
        RETURN 0;
      END IF;
      DELETE FROM ${s}.records r WHERE r.session_id = ANY(v_ids);
      DELETE FROM ${s}.sessions s WHERE s.id = ANY(v_ids);
      RETURN cardinality(v_ids);
    END
    $fn$;
  `;
}

/**
 * Version 2: scope prefixes as index ranges in code point order (the "C" collation, whatever the
 * database's), and text stored escaped (postgres-text.ts): U+0001 already in the data becomes
 * U+0001 "1", so it reads back unchanged. Session ids change through `ON UPDATE CASCADE` (the
 * foreign keys are re-created with it, `NOT VALID`: every row satisfied them already).
 */
async function escapeText(client: pg.PoolClient | pg.Client, s: string): Promise<void> {
  const foreignKeys = ["records", "approvals", "lease_waiters"].map(
    (table) => `ALTER TABLE ${s}.${table} DROP CONSTRAINT ${table}_session_id_fkey,
       ADD CONSTRAINT ${table}_session_id_fkey FOREIGN KEY (session_id) REFERENCES ${s}.sessions (id) ON DELETE CASCADE ON UPDATE CASCADE NOT VALID;`,
  );
  const updates = Object.entries(TEXT_COLUMNS).flatMap(([table, columns]) =>
    columns.map(
      (column) =>
        `UPDATE ${s}.${table} SET ${column} = replace(${column}, chr(1), chr(1) || '1') WHERE strpos(${column}, chr(1)) > 0;`,
    ),
  );
  await client.query(`
    CREATE INDEX sessions_by_scope_prefix ON ${s}.sessions (scope COLLATE "C", agent_id, touch);
    CREATE INDEX approvals_pending_prefix ON ${s}.approvals (scope COLLATE "C", ord) WHERE NOT decided;
    ${foreignKeys.join("\n")}
    ${updates.join("\n")}
  `);
  // jsonb text shows U+0001 as the JSON escape \u0001.
  const { rows } = await client.query<{ id: string; attributes: string }>(
    `SELECT id, attributes::text AS attributes FROM ${s}.sessions WHERE strpos(attributes::text, '\\u0001') > 0`,
  );
  for (const row of rows) {
    await client.query(`UPDATE ${s}.sessions SET attributes = $2::jsonb WHERE id = $1`, [
      row.id,
      toPgJson(JSON.parse(row.attributes)),
    ]);
  }
}

/**
 * {@link migrate} on a client of `pool`; a client whose migration failed is discarded, not reused.
 */
export async function migrateOnPool(pool: pg.Pool, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await migrate(client, schema);
    client.release();
  } catch (error) {
    client.release(true);
    throw error;
  }
}

/**
 * Version 4 too: `acquire_lease`, a lease request in one round trip (under the session row's lock:
 * forget waiters not seen for `ttl`, queue the ticket, grant to the first in line when nobody else
 * holds the lease). Returns `status` (`granted`, `busy`, `not_found`) and, when granted, the new
 * token and expiry.
 */
function acquireLeaseFunction(s: string): string {
  return `
    CREATE FUNCTION ${s}.acquire_lease(p_session text, p_owner text, p_ttl double precision, p_ticket text)
    RETURNS TABLE (status text, lease_token bigint, lease_expires_at timestamptz) LANGUAGE plpgsql AS $fn$
    #variable_conflict use_column
    DECLARE
      v_owner text;
      v_held boolean;
      v_first text;
      v_token bigint;
      v_expires timestamptz;
    BEGIN
      SELECT s.lease_owner, s.lease_expires_at > clock_timestamp() INTO v_owner, v_held
        FROM ${s}.sessions s WHERE s.id = p_session FOR UPDATE;
      IF NOT FOUND THEN
        RETURN QUERY SELECT 'not_found'::text, NULL::bigint, NULL::timestamptz;
        RETURN;
      END IF;
      -- Arrival order: a ticket keeps its place while its holder keeps asking.
      DELETE FROM ${s}.lease_waiters w
        WHERE w.session_id = p_session AND w.seen_at < clock_timestamp() - p_ttl * interval '1 millisecond';
      IF p_ticket IS NOT NULL THEN
        INSERT INTO ${s}.lease_waiters (session_id, ticket, seen_at) VALUES (p_session, p_ticket, clock_timestamp())
          ON CONFLICT (session_id, ticket) DO UPDATE SET seen_at = excluded.seen_at;
      END IF;
      SELECT w.ticket INTO v_first FROM ${s}.lease_waiters w WHERE w.session_id = p_session ORDER BY w.ord LIMIT 1;
      IF (v_first IS NOT NULL AND v_first IS DISTINCT FROM p_ticket) OR (v_held IS TRUE AND v_owner IS DISTINCT FROM p_owner) THEN
        RETURN QUERY SELECT 'busy'::text, NULL::bigint, NULL::timestamptz;
        RETURN;
      END IF;
      IF p_ticket IS NOT NULL THEN
        DELETE FROM ${s}.lease_waiters w WHERE w.session_id = p_session AND w.ticket = p_ticket;
      END IF;
      UPDATE ${s}.sessions s
        SET lease_owner = p_owner, lease_token = s.lease_token + 1,
            lease_expires_at = clock_timestamp() + p_ttl * interval '1 millisecond'
        WHERE s.id = p_session RETURNING s.lease_token, s.lease_expires_at INTO v_token, v_expires;
      RETURN QUERY SELECT 'granted'::text, v_token, v_expires;
    END
    $fn$;
  `;
}

/**
 * Brings the schema up to {@link POSTGRES_SCHEMA_VERSION} (`target`: an earlier one, for upgrade
 * tests): one transaction under a transaction-level advisory lock keyed by the schema name, so
 * processes starting together migrate once. Idempotent. A schema at a later version →
 * `SessionStoreError` naming both versions, nothing changed.
 */
export async function migrate(
  client: pg.PoolClient | pg.Client,
  schema: string,
  target = POSTGRES_SCHEMA_VERSION,
): Promise<void> {
  const s = quoteIdent(schema);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentry-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    const { rows } = await client.query<{ version: number }>(`SELECT max(version) AS version FROM ${s}.schema_version`);
    const current = rows[0]?.version ?? 0;
    if (current > POSTGRES_SCHEMA_VERSION) {
      throw new SessionStoreError(
        `PostgresSessionStore: schema "${schema}" is at version ${current}, newer than this build supports (${POSTGRES_SCHEMA_VERSION}); upgrade @agentry/core`,
      );
    }
    const steps = migrations(s);
    for (let version = current; version < target; version++) {
      const step = steps[version]!;
      await (typeof step === "string" ? client.query(step) : step(client));
    }
    if (current === 0) await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [target]);
    else if (current < target) await client.query(`UPDATE ${s}.schema_version SET version = $1`, [target]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
