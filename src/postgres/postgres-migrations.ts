import type pg from "pg";
import { SessionStoreError } from "../errors/errors.js";

/** The schema version this build writes; a database at a later one is refused. */
export const POSTGRES_SCHEMA_VERSION = 1;

/** `"name"` quoted as an SQL identifier (the name is checked to be letters, digits and `_` first). */
export const quoteIdent = (name: string): string => `"${name}"`;

/** The migrations in order: `migrations[i]` takes the schema from version i to i + 1. */
function migrations(s: string): string[] {
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
  ];
}

/**
 * Brings the schema up to {@link POSTGRES_SCHEMA_VERSION}: one transaction under a transaction-level
 * advisory lock keyed by the schema name, so processes starting together migrate once. Idempotent.
 * A schema at a later version → `SessionStoreError` naming both versions, nothing changed.
 */
export async function migrate(client: pg.PoolClient, schema: string): Promise<void> {
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
    for (let version = current; version < POSTGRES_SCHEMA_VERSION; version++) await client.query(steps[version]!);
    if (current === 0) await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [POSTGRES_SCHEMA_VERSION]);
    else if (current < POSTGRES_SCHEMA_VERSION) await client.query(`UPDATE ${s}.schema_version SET version = $1`, [POSTGRES_SCHEMA_VERSION]);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
