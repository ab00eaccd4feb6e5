import Database from "better-sqlite3";
import { AgentryError } from "../errors/agentry-error.js";
import { InvalidArgumentError, LeaseLostError, SessionStoreError } from "../errors/errors.js";
import {
  checkListQuery,
  checkPendingApprovalsQuery,
  checkSessionId,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type ListSessionsQuery,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { matchesScopeFilter, prefixUpperBound, type ScopeFilter } from "../internal/scope-filter.js";
import { SessionClock, type SessionTick } from "../internal/session-clock.js";
import { checkLoadOptions, checkNewRecords, stampRecord } from "../internal/session-records.js";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  ApprovalIndexStore,
  ApprovalRecord,
  HistoryRecord,
  IndexedApproval,
  LeasableSessionStore,
  ListPendingApprovalsQuery,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionLease,
  SessionSummary,
  SignalingSessionStore,
  StoreSignal,
} from "../contracts/session-store.js";
import {
  createSchema,
  prepareStatements,
  type ApprovalRow,
  type LeaseRow,
  type SessionRow,
  type SqliteStatements,
} from "./sqlite-statements.js";
import { betterSqlite, type SqliteDatabase } from "./sqlite-database.js";
import { SqliteSignals, createSignalSchema } from "./sqlite-signals.js";

/** Options of {@link SqliteSessionStore}: a file path to open, or an open better-sqlite3 database. */
export type SqliteSessionStoreOptions = ({ path: string } | { database: SqliteDatabase }) & {
  /**
   * Prefix of the store's two tables (`<prefix>sessions`, `<prefix>records`), so they sit beside
   * an application's own tables in a shared database. Letters, digits and `_`.
   * @default "agentry_"
   */
  tablePrefix?: string;
  /**
   * Switch the database to WAL journal mode (readers never block the writer; the setting is
   * stored in the file). In-memory databases ignore it.
   * @default true
   */
  wal?: boolean;
  /**
   * Signals (`subscribe`): the longest the fallback re-check of the file waits while nothing
   * happens. The push is a watch on the database's folder; this re-check, 2 ms after activity and
   * backing off to this, only catches a file event the system did not deliver.
   * @default 250
   */
  signalIdleCheckMs?: number;
};

/**
 * A `SessionStore` (from `@agentry/core`) in SQLite through better-sqlite3 (an optional peer dependency, loaded
 * only by `@agentry/core/sqlite`). The embedded default for apps: one file, many readers.
 *
 * - Tables are created when missing. Records are stored as JSON text, one row each, primary key
 *   (session_id, seq) and unique (session_id, record_id).
 * - Each append is one `BEGIN IMMEDIATE` transaction: all or nothing, and `seq` is assigned inside
 *   it, so several stores (or processes) on one file may append to one session concurrently.
 * - better-sqlite3 is synchronous: the async methods run the query, then resolve.
 * - Given `{ path }`, the store owns the connection and `close()` closes it; given `{ database }`,
 *   the caller owns it and `close()` leaves it open.
 * - Deleting an unknown session is a no-op.
 * - Session leases ({@link LeasableSessionStore}): a `<prefix>leases` row per session with the
 *   fencing token; acquiring, renewing and fenced appends are `BEGIN IMMEDIATE` transactions, so
 *   runtimes in several processes on one file never run turns of one session at once. Expiry
 *   uses each process's clock (fine on one machine).
 * - Approval index ({@link ApprovalIndexStore}): kept by `append` in the same transaction.
 * - Signals ({@link SignalingSessionStore}) between the processes on one file: `notify` writes a
 *   row of `<prefix>signals` (rows older than a minute are pruned) and hands the signal to this
 *   object's subscribers at once; other store objects read the rows after the last one they saw
 *   when the file changes (a watch on its folder, checked with `PRAGMA data_version`), with a
 *   fallback re-check that starts 2 ms after activity and backs off to `signalIdleCheckMs`.
 *   In-memory databases carry signals between the store objects on the same connection only.
 *
 * @example
 * const store = new SqliteSessionStore({ path: "agentry.db" });
 * // ...
 * store.close();
 */
export class SqliteSessionStore
  implements PrunableSessionStore, LeasableSessionStore, ApprovalIndexStore, SignalingSessionStore
{
  /** The underlying connection (a better-sqlite3 `Database`). */
  readonly database: SqliteDatabase;
  readonly #db: Database.Database;
  readonly #owned: boolean;
  readonly #sql: SqliteStatements;
  readonly #clock = new SessionClock();
  readonly #signals: SqliteSignals;
  /**
   * Whether the database stores text as UTF-8, whose byte order (`BINARY`) is code point order: scope prefixes are
   * index ranges then.
   */
  readonly #utf8: boolean;

  constructor(options: SqliteSessionStoreOptions) {
    const prefix = options?.tablePrefix ?? "agentry_";
    if (!/^[A-Za-z_][A-Za-z0-9_]*$|^$/.test(prefix))
      throw new InvalidArgumentError("SqliteSessionStore: tablePrefix must be letters, digits and _");
    const owned = !("database" in options);
    if (owned && (typeof options.path !== "string" || options.path === "")) {
      throw new InvalidArgumentError('SqliteSessionStore: pass { path } (a file, or ":memory:") or { database }');
    }
    const idleCheckMs = options.signalIdleCheckMs ?? 250;
    if (typeof idleCheckMs !== "number" || !Number.isFinite(idleCheckMs) || idleCheckMs < 1)
      throw new InvalidArgumentError("SqliteSessionStore: signalIdleCheckMs must be a number of 1 or more");
    this.#db = owned ? new Database(options.path) : betterSqlite(options.database);
    this.database = this.#db;
    this.#owned = owned;
    try {
      if (options.wal ?? true) this.#db.pragma("journal_mode = WAL");
      createSchema(this.#db, prefix);
      createSignalSchema(this.#db, prefix);
      this.#sql = prepareStatements(this.#db, prefix);
      this.#signals = new SqliteSignals(this.#db, prefix, { idleCheckMs });
      this.#utf8 = this.#db.pragma("encoding", { simple: true }) === "UTF-8";
    } catch (error) {
      if (owned) this.#db.close();
      throw new SessionStoreError(`SqliteSessionStore: cannot set up the database: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    return this.#write("createSession", () => {
      const tick = this.#tick();
      const summary = newSessionSummary(init, () => crypto.randomUUID(), tick.iso);
      const inserted = this.#sql.insertSession.run({
        ...columnsOf(summary),
        session_id: summary.sessionId,
        agent_id: summary.agentId,
        scope: summary.scope ?? null,
        created_at: summary.createdAt,
        touch: tick.order,
      });
      if (inserted.changes === 0)
        throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
      return summary;
    });
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    checkSessionId(sessionId);
    return this.#run("getSession", () => {
      const row = this.#sql.getSession.get(sessionId) as SessionRow | undefined;
      return row && summaryOf(row);
    });
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    const checked = checkListQuery(query);
    const { agentId, limit, scope } = checked;
    const sqlLimit = Number.isFinite(limit) ? limit : -1;
    return this.#run("listSessions", () => {
      const sql = this.#sql;
      if (scope.kind === "prefix") return this.#listPrefix(scope.prefix, agentId, limit).map(summaryOf);
      const exact = scope.kind === "any" ? undefined : scope.kind === "exact" ? scope.scope : null;
      const rows =
        exact === undefined
          ? agentId === undefined
            ? sql.listSessions.all(sqlLimit)
            : sql.listAgentSessions.all(agentId, sqlLimit)
          : agentId === undefined
            ? sql.listScopeSessions.all(exact, sqlLimit)
            : sql.listScopeAgentSessions.all(exact, agentId, sqlLimit);
      return (rows as SessionRow[]).map(summaryOf);
    });
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<SessionSummary> {
    checkSessionId(sessionId);
    return this.#write("updateSession", () => {
      const row = this.#sql.getSession.get(sessionId) as SessionRow | undefined;
      if (row === undefined) throw sessionNotFound(sessionId);
      const summary = patchSessionSummary(summaryOf(row), patch);
      const tick = this.#tick();
      summary.updatedAt = tick.iso;
      this.#sql.updateSession.run({ ...columnsOf(summary), session_id: sessionId, touch: tick.order });
      return summary;
    });
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    this.#write("deleteSession", () => this.#deleteAll(sessionId));
  }

  async append(sessionId: string, records: NewRecord[], options: AppendOptions = {}): Promise<HistoryRecord[]> {
    checkNewRecords(records);
    checkSessionId(sessionId);
    const { leaseToken } = options ?? {};
    if (leaseToken !== undefined && !Number.isSafeInteger(leaseToken))
      throw new InvalidArgumentError("append: leaseToken must be an integer");
    return this.#write("append", () => {
      const row = this.#sql.getSession.get(sessionId) as SessionRow | undefined;
      if (row === undefined) throw sessionNotFound(sessionId);
      if (leaseToken !== undefined) {
        // Fencing: a newer lease was granted since this token, so its holder lost the session.
        const lease = this.#sql.getLease.get(sessionId) as LeaseRow | undefined;
        if (lease !== undefined && lease.token !== leaseToken) throw new LeaseLostError(sessionId, leaseToken);
      }
      let lastSeq = row.last_seq;
      let tick: SessionTick | undefined;
      const seen = new Map<string, HistoryRecord>();
      const stored = records.map((record, index) => {
        let kept = seen.get(record.id);
        const data =
          kept === undefined ? (this.#sql.recordById.get(sessionId, record.id) as string | undefined) : undefined;
        if (data !== undefined) kept = JSON.parse(data) as HistoryRecord;
        if (kept === undefined) {
          tick ??= this.#tick();
          const json = toJson(stampRecord(record, ++lastSeq, tick.iso), index);
          this.#sql.insertRecord.run(sessionId, lastSeq, record.id, record.kind, record.frame, tick.iso, json);
          kept = JSON.parse(json) as HistoryRecord;
          this.#index(row, kept, tick.order, json);
        }
        seen.set(record.id, kept);
        return kept;
      });
      if (tick !== undefined) this.#sql.touchSession.run(lastSeq, tick.iso, tick.order, sessionId);
      return stored;
    });
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<HistoryRecord[]> {
    checkLoadOptions(options);
    checkSessionId(sessionId);
    const { frame } = options;
    return this.#run("load", () =>
      this.#db.transaction(() => {
        if (this.#sql.getSession.get(sessionId) === undefined) throw sessionNotFound(sessionId);
        let after = options.afterSeq ?? 0;
        if (options.sinceLastReset) {
          const reset = (
            frame === undefined ? this.#sql.lastReset.get(sessionId) : this.#sql.lastResetInFrame.get(sessionId, frame)
          ) as number | null;
          after = Math.max(after, reset ?? 0);
        }
        const rows = (
          frame === undefined ? this.#sql.load.all(sessionId, after) : this.#sql.loadFrame.all(sessionId, after, frame)
        ) as string[];
        return rows.map((data) => JSON.parse(data) as HistoryRecord);
      })(),
    );
  }

  async clear(sessionId: string): Promise<void> {
    await this.append(sessionId, [{ id: crypto.randomUUID(), kind: "reset", frame: null }]);
  }

  /** Deletes every session whose `updatedAt` is before `olderThan`; returns how many. */
  async prune(options: { olderThan: string }): Promise<number> {
    const olderThan = new Date(parseOlderThan(options)).toISOString();
    return this.#write("prune", () => {
      const stale = this.#sql.staleSessions.all(olderThan) as string[];
      for (const sessionId of stale) this.#deleteAll(sessionId);
      return stale.length;
    });
  }

  async acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<SessionLease | undefined> {
    checkSessionId(sessionId);
    const { owner, ttlMs } = checkLeaseOptions(options);
    const ticket = options.ticket;
    if (ticket !== undefined && (typeof ticket !== "string" || ticket === ""))
      throw new InvalidArgumentError("acquireLease: ticket must be a non-empty string when set");
    return this.#write("acquireLease", () => {
      if (this.#sql.getSession.get(sessionId) === undefined) throw sessionNotFound(sessionId);
      const now = Date.now();
      // Arrival order: a ticket keeps its place while its holder keeps asking.
      this.#sql.dropStaleWaiters.run(sessionId, now - ttlMs);
      if (ticket !== undefined) this.#sql.touchWaiter.run({ session_id: sessionId, ticket, seen_at: now });
      const first = this.#sql.firstWaiter.get(sessionId) as string | undefined;
      if (first !== undefined && first !== ticket) return undefined;
      const lease = this.#sql.getLease.get(sessionId) as LeaseRow | undefined;
      if (lease !== undefined && lease.expires_at > now && lease.owner !== owner) return undefined;
      if (ticket !== undefined) this.#sql.dropWaiter.run(sessionId, ticket);
      const granted = { session_id: sessionId, owner, token: (lease?.token ?? 0) + 1, expires_at: now + ttlMs };
      this.#sql.putLease.run(granted);
      return { token: granted.token, expiresAt: new Date(granted.expires_at).toISOString() };
    });
  }

  async renewLease(sessionId: string, token: number, options: { ttlMs: number }): Promise<SessionLease | undefined> {
    checkSessionId(sessionId);
    const { ttlMs } = checkLeaseOptions({ owner: "-", ...options });
    return this.#write("renewLease", () => {
      const expires = Date.now() + ttlMs;
      if (this.#sql.renewLease.run(expires, sessionId, token).changes === 0) return undefined;
      return { token, expiresAt: new Date(expires).toISOString() };
    });
  }

  async releaseLease(sessionId: string, token: number): Promise<void> {
    checkSessionId(sessionId);
    this.#write("releaseLease", () => void this.#sql.releaseLease.run(sessionId, token));
  }

  async findApproval(requestId: string): Promise<IndexedApproval | undefined> {
    if (typeof requestId !== "string" || requestId === "")
      throw new InvalidArgumentError("findApproval: requestId must be a non-empty string");
    return this.#run("findApproval", () => {
      const row = this.#sql.getApproval.get(requestId) as ApprovalRow | undefined;
      return row && approvalOf(row);
    });
  }

  async listPendingApprovals(query?: ListPendingApprovalsQuery): Promise<IndexedApproval[]> {
    const { scope, sessionId, limit } = checkPendingApprovalsQuery(query);
    const sqlLimit = Number.isFinite(limit) ? limit : -1;
    return this.#run("listPendingApprovals", () => {
      const sql = this.#sql;
      const rows = (
        sessionId !== undefined
          ? sql.pendingSession.all(sessionId, sqlLimit)
          : scope.kind === "prefix"
            ? this.#pendingPrefix(scope.prefix, limit)
            : scope.kind === "any"
              ? sql.pendingAll.all(sqlLimit)
              : sql.pendingScope.all(scope.kind === "exact" ? scope.scope : null, sqlLimit)
      ) as ApprovalRow[];
      // One session has one scope: filtering after the session's limit drops all of it or none.
      return rows.map(approvalOf).filter((entry) => matchesScopeFilter(entry.scope, scope));
    });
  }

  /**
   * Stores `signal` for the processes on this file and hands it to this object's subscribers; a
   * signal over `MAX_STORE_SIGNAL_BYTES` (or malformed) → `InvalidArgumentError`.
   */
  async notify(signal: StoreSignal): Promise<void> {
    this.#run("notify", () => this.#signals.notify(signal));
  }

  /** Calls `listener` for every signal on `topic` sent through this file after the call, until the returned function is called. */
  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void {
    return this.#signals.subscribe(topic, listener);
  }

  /**
   * Stops the signals' watcher, and closes the connection when the store opened it (`{ path }`);
   * a no-op when closed.
   */
  close(): void {
    this.#signals.close();
    if (this.#owned && this.#db.open) this.#db.close();
  }

  /** Sessions whose scope starts with `prefix`, newest first: an index range (see {@link prefixUpperBound}). */
  #listPrefix(prefix: string, agentId: string | undefined, limit: number): SessionRow[] {
    const sql = this.#sql;
    const sqlLimit = Number.isFinite(limit) ? limit : -1;
    const upper = prefixUpperBound(prefix);
    if (!this.#utf8)
      return takeMatching(sql.listScopedSessions.iterate() as Iterable<SessionRow>, prefix, limit, agentId);
    const rows =
      upper === undefined
        ? agentId === undefined
          ? sql.listPrefixOpenSessions.all(prefix, sqlLimit)
          : sql.listPrefixOpenAgentSessions.all(prefix, agentId, sqlLimit)
        : agentId === undefined
          ? sql.listPrefixSessions.all(prefix, upper, sqlLimit)
          : sql.listPrefixAgentSessions.all(prefix, upper, agentId, sqlLimit);
    return rows as SessionRow[];
  }

  /** Undecided requests of sessions whose scope starts with `prefix`, oldest first, from the index. */
  #pendingPrefix(prefix: string, limit: number): ApprovalRow[] {
    const sql = this.#sql;
    const sqlLimit = Number.isFinite(limit) ? limit : -1;
    const upper = prefixUpperBound(prefix);
    if (!this.#utf8) return takeMatching(sql.pendingScoped.iterate() as Iterable<ApprovalRow>, prefix, limit);
    return (
      upper === undefined ? sql.pendingPrefixOpen.all(prefix, sqlLimit) : sql.pendingPrefix.all(prefix, upper, sqlLimit)
    ) as ApprovalRow[];
  }

  /** Keeps the approval index in step with a newly stored record (inside the append's transaction). */
  #index(session: SessionRow, record: HistoryRecord, order: number, json: string): void {
    if (record.kind === "approval") {
      const requestId = record.request.requestId;
      if (record.decision === undefined) {
        this.#sql.insertApproval.run(requestId, session.session_id, session.agent_id, session.scope, order, 0, json);
      } else if (this.#sql.decideApproval.run(requestId).changes === 0) {
        this.#sql.insertApproval.run(requestId, session.session_id, session.agent_id, session.scope, order, 1, json);
      }
    } else if (record.kind === "reset" && record.frame === null) {
      this.#sql.retireApprovals.run(session.session_id);
    }
  }

  #deleteAll(sessionId: string): void {
    this.#sql.deleteRecords.run(sessionId);
    this.#sql.deleteApprovals.run(sessionId);
    this.#sql.deleteLease.run(sessionId);
    this.#sql.dropWaiters.run(sessionId);
    this.#sql.deleteSession.run(sessionId);
  }

  /** A tick later than any session's, across every connection to the file (called inside a write transaction). */
  #tick(): SessionTick {
    this.#clock.observe((this.#sql.maxTouch.get() as number | null) ?? 0);
    return this.#clock.tick();
  }

  #write<T>(operation: string, task: () => T): T {
    return this.#run(operation, () => this.#db.transaction(task).immediate());
  }

  #run<T>(operation: string, task: () => T): T {
    try {
      return task();
    } catch (error) {
      if (AgentryError.isInstance(error)) throw error;
      throw new SessionStoreError(
        `SqliteSessionStore.${operation} failed: ${(error as Error)?.message ?? String(error)}`,
        { cause: error },
      );
    }
  }
}

/**
 * The first `limit` rows whose scope starts with `prefix` (and of `agentId`, when given): the scan of a UTF-16
 * database.
 */
function takeMatching<R extends { scope: string | null; agent_id: string }>(
  rows: Iterable<R>,
  prefix: string,
  limit: number,
  agentId?: string,
): R[] {
  const taken: R[] = [];
  const filter: ScopeFilter = { kind: "prefix", prefix };
  if (limit === 0) return taken;
  for (const row of rows) {
    if (!matchesScopeFilter(row.scope ?? undefined, filter) || (agentId !== undefined && row.agent_id !== agentId))
      continue;
    taken.push(row);
    if (taken.length >= limit) break;
  }
  return taken;
}

function checkLeaseOptions(options: { owner: string; ttlMs: number }): { owner: string; ttlMs: number } {
  const owner = options?.owner;
  const ttlMs = options?.ttlMs;
  if (typeof owner !== "string" || owner === "")
    throw new InvalidArgumentError("lease: owner must be a non-empty string");
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new InvalidArgumentError("lease: ttlMs must be a positive number");
  return { owner, ttlMs };
}

function approvalOf(row: ApprovalRow): IndexedApproval {
  const entry: IndexedApproval = {
    requestId: row.request_id,
    sessionId: row.session_id,
    agentId: row.agent_id,
    request: JSON.parse(row.data) as ApprovalRecord,
    decided: row.decided !== 0,
  };
  if (row.scope !== null) entry.scope = row.scope;
  return entry;
}

function toJson(record: HistoryRecord, index: number): string {
  try {
    return JSON.stringify(record);
  } catch (error) {
    throw new InvalidArgumentError(`append: records[${index}] is not plain JSON (nothing was stored)`, {
      cause: error,
    });
  }
}

function columnsOf(summary: SessionSummary) {
  return {
    name: summary.name ?? null,
    pinned_at: summary.pinnedAt ?? null,
    attributes: summary.attributes === undefined ? null : JSON.stringify(summary.attributes),
    last_snippet: summary.lastSnippet ?? null,
    updated_at: summary.updatedAt,
  };
}

function summaryOf(row: SessionRow): SessionSummary {
  const summary: SessionSummary = {
    sessionId: row.session_id,
    agentId: row.agent_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.scope !== null) summary.scope = row.scope;
  if (row.name !== null) summary.name = row.name;
  if (row.pinned_at !== null) summary.pinnedAt = row.pinned_at;
  if (row.last_snippet !== null) summary.lastSnippet = row.last_snippet;
  if (row.attributes !== null) summary.attributes = JSON.parse(row.attributes) as Record<string, unknown>;
  return summary;
}
