import type BetterSqlite3 from "better-sqlite3";

/** A row of the sessions table. */
export interface SessionRow {
  session_id: string;
  agent_id: string;
  scope: string | null;
  name: string | null;
  pinned_at: string | null;
  attributes: string | null;
  last_snippet: string | null;
  created_at: string;
  updated_at: string;
  touch: number;
  last_seq: number;
}

/**
 * Creates the tables when missing: `<prefix>sessions` (one row per session; `touch` orders
 * sessions updated in the same millisecond), `<prefix>records` (one row per history record,
 * the record as JSON text in `data`; primary key (session_id, seq), unique (session_id, record_id)),
 * `<prefix>leases` (one row per leased session: owner, fencing token, expiry in epoch ms),
 * `<prefix>lease_waiters` (the arrival-order queue of runtimes waiting for a lease) and
 * `<prefix>approvals` (the approval request index: one row per request, `decided` 0 or 1).
 */
export function createSchema(db: BetterSqlite3.Database, prefix: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${prefix}sessions (
      session_id TEXT PRIMARY KEY NOT NULL,
      agent_id TEXT NOT NULL,
      name TEXT,
      pinned_at TEXT,
      attributes TEXT,
      last_snippet TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      touch INTEGER NOT NULL,
      last_seq INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS ${prefix}sessions_by_touch ON ${prefix}sessions (touch);
    CREATE INDEX IF NOT EXISTS ${prefix}sessions_by_agent ON ${prefix}sessions (agent_id, touch);
    CREATE TABLE IF NOT EXISTS ${prefix}records (
      session_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      record_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      frame TEXT,
      at TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (session_id, seq),
      UNIQUE (session_id, record_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${prefix}records_resets ON ${prefix}records (session_id, seq) WHERE kind = 'reset';
  `);
  // Files made before scopes existed get the column (NULL = unscoped).
  const columns = db.prepare(`PRAGMA table_info(${prefix}sessions)`).all() as { name: string }[];
  if (!columns.some((column) => column.name === "scope"))
    db.exec(`ALTER TABLE ${prefix}sessions ADD COLUMN scope TEXT`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${prefix}leases (
      session_id TEXT PRIMARY KEY NOT NULL,
      owner TEXT NOT NULL,
      token INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${prefix}lease_waiters (
      session_id TEXT NOT NULL,
      ticket TEXT NOT NULL,
      ord INTEGER NOT NULL,
      seen_at INTEGER NOT NULL,
      PRIMARY KEY (session_id, ticket)
    );
    CREATE TABLE IF NOT EXISTS ${prefix}approvals (
      request_id TEXT PRIMARY KEY NOT NULL,
      session_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      scope TEXT,
      ord INTEGER NOT NULL,
      decided INTEGER NOT NULL DEFAULT 0,
      data TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${prefix}approvals_pending ON ${prefix}approvals (scope, ord) WHERE decided = 0;
    CREATE INDEX IF NOT EXISTS ${prefix}approvals_by_session ON ${prefix}approvals (session_id, decided);
    CREATE INDEX IF NOT EXISTS ${prefix}sessions_by_scope ON ${prefix}sessions (scope, touch);
    CREATE INDEX IF NOT EXISTS ${prefix}sessions_by_scope_agent ON ${prefix}sessions (scope, agent_id, touch);
  `);
}

/** A row of the approvals table. */
export interface ApprovalRow {
  request_id: string;
  session_id: string;
  agent_id: string;
  scope: string | null;
  /** The store's order key when the request was stored: sorts requests oldest first across sessions. */
  ord: number;
  decided: number;
  data: string;
}

/** A row of the leases table. */
export interface LeaseRow {
  session_id: string;
  owner: string;
  token: number;
  expires_at: number;
}

/**
 * The SQL of every statement the store runs (by name); `pluck` ones return their single column. Exported for the
 * query-plan test.
 */
export function statementSql(prefix: string) {
  const sessions = `${prefix}sessions`;
  const records = `${prefix}records`;
  const leases = `${prefix}leases`;
  const approvals = `${prefix}approvals`;
  const waiters = `${prefix}lease_waiters`;
  // A scope prefix is a range of the scope index (see prefixUpperBound); INDEXED BY keeps the
  // planner from walking every session of an agent (or every one) in touch order instead.
  const byScope = `INDEXED BY ${prefix}sessions_by_scope`;
  const byScopeAgent = `INDEXED BY ${prefix}sessions_by_scope_agent`;
  return {
    getLease: `SELECT * FROM ${leases} WHERE session_id = ?`,
    putLease: `INSERT INTO ${leases} (session_id, owner, token, expires_at) VALUES (@session_id, @owner, @token, @expires_at)
      ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, token = excluded.token, expires_at = excluded.expires_at`,
    renewLease: `UPDATE ${leases} SET expires_at = ? WHERE session_id = ? AND token = ?`,
    releaseLease: `UPDATE ${leases} SET expires_at = 0 WHERE session_id = ? AND token = ?`,
    deleteLease: `DELETE FROM ${leases} WHERE session_id = ?`,
    touchWaiter: `INSERT INTO ${waiters} (session_id, ticket, ord, seen_at)
      VALUES (@session_id, @ticket, (SELECT COALESCE(MAX(ord), 0) + 1 FROM ${waiters} WHERE session_id = @session_id), @seen_at)
      ON CONFLICT (session_id, ticket) DO UPDATE SET seen_at = excluded.seen_at`,
    dropStaleWaiters: `DELETE FROM ${waiters} WHERE session_id = ? AND seen_at < ?`,
    firstWaiter: `SELECT ticket FROM ${waiters} WHERE session_id = ? ORDER BY ord LIMIT 1 -- pluck`,
    dropWaiter: `DELETE FROM ${waiters} WHERE session_id = ? AND ticket = ?`,
    dropWaiters: `DELETE FROM ${waiters} WHERE session_id = ?`,
    insertApproval: `INSERT INTO ${approvals} (request_id, session_id, agent_id, scope, ord, decided, data) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (request_id) DO NOTHING`,
    decideApproval: `UPDATE ${approvals} SET decided = 1 WHERE request_id = ?`,
    retireApprovals: `UPDATE ${approvals} SET decided = 1 WHERE session_id = ? AND decided = 0`,
    deleteApprovals: `DELETE FROM ${approvals} WHERE session_id = ?`,
    getApproval: `SELECT * FROM ${approvals} WHERE request_id = ?`,
    pendingAll: `SELECT * FROM ${approvals} WHERE decided = 0 ORDER BY ord LIMIT ?`,
    pendingScope: `SELECT * FROM ${approvals} WHERE decided = 0 AND scope IS ? ORDER BY ord LIMIT ?`,
    pendingPrefix: `SELECT * FROM ${approvals} INDEXED BY ${prefix}approvals_pending WHERE decided = 0 AND scope >= ? AND scope < ? ORDER BY ord LIMIT ?`,
    pendingPrefixOpen: `SELECT * FROM ${approvals} WHERE decided = 0 AND scope >= ? ORDER BY ord LIMIT ?`,
    pendingSession: `SELECT * FROM ${approvals} WHERE session_id = ? AND decided = 0 ORDER BY ord LIMIT ?`,
    insertSession: `INSERT INTO ${sessions} (session_id, agent_id, scope, name, pinned_at, attributes, last_snippet, created_at, updated_at, touch)
      VALUES (@session_id, @agent_id, @scope, @name, @pinned_at, @attributes, @last_snippet, @created_at, @updated_at, @touch)
      ON CONFLICT (session_id) DO NOTHING`,
    getSession: `SELECT * FROM ${sessions} WHERE session_id = ?`,
    listSessions: `SELECT * FROM ${sessions} ORDER BY touch DESC LIMIT ?`,
    listAgentSessions: `SELECT * FROM ${sessions} WHERE agent_id = ? ORDER BY touch DESC LIMIT ?`,
    listScopeSessions: `SELECT * FROM ${sessions} WHERE scope IS ? ORDER BY touch DESC LIMIT ?`,
    listScopeAgentSessions: `SELECT * FROM ${sessions} WHERE scope IS ? AND agent_id = ? ORDER BY touch DESC LIMIT ?`,
    listPrefixSessions: `SELECT * FROM ${sessions} ${byScope} WHERE scope >= ? AND scope < ? ORDER BY touch DESC LIMIT ?`,
    listPrefixAgentSessions: `SELECT * FROM ${sessions} ${byScopeAgent} WHERE scope >= ? AND scope < ? AND agent_id = ? ORDER BY touch DESC LIMIT ?`,
    // No upper bound (the prefix "", say): most sessions match, so walk them newest first.
    listPrefixOpenSessions: `SELECT * FROM ${sessions} WHERE scope >= ? ORDER BY touch DESC LIMIT ?`,
    listPrefixOpenAgentSessions: `SELECT * FROM ${sessions} WHERE scope >= ? AND agent_id = ? ORDER BY touch DESC LIMIT ?`,
    // Databases in UTF-16 compare scopes in another order than code points: no range there.
    listScopedSessions: `SELECT * FROM ${sessions} WHERE scope IS NOT NULL ORDER BY touch DESC`,
    pendingScoped: `SELECT * FROM ${approvals} WHERE decided = 0 AND scope IS NOT NULL ORDER BY ord`,
    maxTouch: `SELECT MAX(touch) FROM ${sessions} -- pluck`,
    updateSession: `UPDATE ${sessions} SET name = @name, pinned_at = @pinned_at, attributes = @attributes,
      last_snippet = @last_snippet, updated_at = @updated_at, touch = @touch WHERE session_id = @session_id`,
    touchSession: `UPDATE ${sessions} SET last_seq = ?, updated_at = ?, touch = ? WHERE session_id = ?`,
    deleteSession: `DELETE FROM ${sessions} WHERE session_id = ?`,
    deleteRecords: `DELETE FROM ${records} WHERE session_id = ?`,
    staleSessions: `SELECT session_id FROM ${sessions} WHERE updated_at < ? -- pluck`,
    recordById: `SELECT data FROM ${records} WHERE session_id = ? AND record_id = ? -- pluck`,
    insertRecord: `INSERT INTO ${records} (session_id, seq, record_id, kind, frame, at, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    lastReset: `SELECT MAX(seq) FROM ${records} WHERE session_id = ? AND kind = 'reset' -- pluck`,
    lastResetInFrame: `SELECT MAX(seq) FROM ${records} WHERE session_id = ? AND kind = 'reset' AND frame IS ? -- pluck`,
    load: `SELECT data FROM ${records} WHERE session_id = ? AND seq > ? ORDER BY seq -- pluck`,
    loadFrame: `SELECT data FROM ${records} WHERE session_id = ? AND seq > ? AND frame IS ? ORDER BY seq -- pluck`,
  };
}

/** The prepared statements of one store. */
export type SqliteStatements = Record<keyof ReturnType<typeof statementSql>, BetterSqlite3.Statement>;

/** Prepares every statement once (numbers as JS numbers even if the caller's database defaults to BigInt). */
export function prepareStatements(db: BetterSqlite3.Database, prefix: string): SqliteStatements {
  const entries = Object.entries(statementSql(prefix)).map(([name, sql]) => {
    const statement = db.prepare(sql).safeIntegers(false);
    return [name, sql.endsWith("-- pluck") ? statement.pluck() : statement];
  });
  return Object.fromEntries(entries) as SqliteStatements;
}
