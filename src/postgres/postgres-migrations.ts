import type pg from "pg";
import { SessionStoreError } from "../errors/errors.js";
import { dispatchTablesMigration } from "./dispatch-tables.js";
import { toPgJson } from "./postgres-text.js";

/**
 * The schema version this build writes; a database at a later one is refused. 1: the store's
 * tables; 2: text escaping and scope-prefix indexes; 3: the dispatcher's tables.
 */
export const POSTGRES_SCHEMA_VERSION = 3;

/** One migration: SQL, or a function that runs its statements on the migrating client. */
type Migration = string | ((client: pg.PoolClient | pg.Client) => Promise<void>);

/** The text columns the store writes escaped (postgres-text.ts), by table; `sessions.id` is updated through the cascade. */
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
  ];
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
    columns.map((column) => `UPDATE ${s}.${table} SET ${column} = replace(${column}, chr(1), chr(1) || '1') WHERE strpos(${column}, chr(1)) > 0;`),
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
    await client.query(`UPDATE ${s}.sessions SET attributes = $2::jsonb WHERE id = $1`, [row.id, toPgJson(JSON.parse(row.attributes))]);
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
 * Brings the schema up to {@link POSTGRES_SCHEMA_VERSION} (`target`: an earlier one, for upgrade
 * tests): one transaction under a transaction-level advisory lock keyed by the schema name, so
 * processes starting together migrate once. Idempotent. A schema at a later version →
 * `SessionStoreError` naming both versions, nothing changed.
 */
export async function migrate(client: pg.PoolClient | pg.Client, schema: string, target = POSTGRES_SCHEMA_VERSION): Promise<void> {
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
