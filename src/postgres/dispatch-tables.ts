import type pg from "pg";

/**
 * Creates the dispatcher's tables in the store's schema (idempotent; one transaction under an
 * advisory lock, so processes starting together create them once; a table an older version did
 * not have is added to its schema the same way):
 * - `dispatch_jobs`: every piece of work sent (a turn, a decision), in arrival order per session
 *   (`ord`), `queued` until a worker has stored its outcome; `cancelled` once its sender aborted it;
 * - `dispatch_claims`: which worker drains a session now, with its heartbeat (see `claimSession`);
 * - `dispatch_events`: each job's events and its outcome, in order, for the caller to tail.
 */
export async function createDispatchTables(pool: pg.Pool, s: string, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentry-dispatch:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`
      CREATE TABLE IF NOT EXISTS ${s}.dispatch_jobs (
        id text PRIMARY KEY,
        session_id text NOT NULL,
        ord bigserial NOT NULL,
        kind text NOT NULL,
        payload json NOT NULL,
        state text NOT NULL DEFAULT 'queued',
        cancelled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        finished_at timestamptz
      );
      CREATE INDEX IF NOT EXISTS dispatch_jobs_queued ON ${s}.dispatch_jobs (session_id, ord) WHERE state = 'queued';
      CREATE INDEX IF NOT EXISTS dispatch_jobs_waiting ON ${s}.dispatch_jobs (created_at) WHERE state = 'queued';
      CREATE INDEX IF NOT EXISTS dispatch_jobs_finished ON ${s}.dispatch_jobs (finished_at) WHERE state <> 'queued';
      CREATE TABLE IF NOT EXISTS ${s}.dispatch_claims (
        session_id text PRIMARY KEY,
        owner text NOT NULL,
        heartbeat_at timestamptz NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${s}.dispatch_events (
        job_id text NOT NULL,
        ord bigserial NOT NULL,
        kind text NOT NULL,
        body json NOT NULL,
        PRIMARY KEY (job_id, ord)
      );
    `);
    // Tables made before jobs could be cancelled get the column (an ALTER only then: it locks the table).
    const { rows } = await client.query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'dispatch_jobs' AND column_name = 'cancelled'",
      [schema],
    );
    if (rows.length === 0) await client.query(`ALTER TABLE ${s}.dispatch_jobs ADD COLUMN cancelled boolean NOT NULL DEFAULT false`);
    await client.query("COMMIT");
    client.release();
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    client.release(true);
    throw error;
  }
}
