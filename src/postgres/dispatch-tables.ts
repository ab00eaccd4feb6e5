/**
 * The dispatcher's tables, in the store's schema: schema version 3 of the versioned migrations
 * (postgres-migrations.ts), so every process creates them under the same advisory lock as the
 * store's tables:
 * - `dispatch_jobs`: every piece of work sent (a turn, a decision), in arrival order per session
 *   (`ord`), `queued` until a worker has stored its outcome; `cancelled` once its sender aborted it;
 * - `dispatch_claims`: which worker drains a session now, with its heartbeat (see `claimSession`);
 * - `dispatch_events`: each job's events and its outcome, in order, for the caller to tail.
 *
 * Releases before version 3 created these tables outside the migrations (and the first of them
 * without `cancelled`): every statement only adds what is missing, so such a schema upgrades with
 * its jobs kept.
 */
export function dispatchTablesMigration(s: string): string {
  return `
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
    ALTER TABLE ${s}.dispatch_jobs ADD COLUMN IF NOT EXISTS cancelled boolean NOT NULL DEFAULT false;
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
  `;
}
