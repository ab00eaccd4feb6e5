import { InvalidArgumentError } from "../errors/errors.js";
import {
  checkListQuery,
  checkSessionId,
  matchesListQuery,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type ListSessionsQuery,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { copyPlainJson, toPlainJson } from "../internal/plain-json.js";
import { SessionClock } from "../internal/session-clock.js";
import { checkLoadOptions, checkNewRecords, selectRecords, stampRecord } from "../internal/session-records.js";
import type {
  ApprovalIndexStore,
  ApprovalRecord,
  HistoryRecord,
  IndexedApproval,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionSummary,
} from "../contracts/session-store.js";

/** Sessions up to this many records find a duplicate id by scanning; longer ones keep an index. */
const SCAN_LIMIT = 32;

interface MemorySession {
  summary: SessionSummary;
  /** Plain JSON; `records[i].seq === i + 1`. */
  records: HistoryRecord[];
  /** Record id → index in `records`, built once the session outgrows {@link SCAN_LIMIT}. */
  ids?: Map<string, number>;
  /** Index of this session's latest entry in the store's touch log. */
  touched: number;
}

/**
 * The reference {@link SessionStore}: everything in memory, nothing survives the process. Use it
 * in tests and for short-lived agents; it passes `runSessionStoreContract` like every store.
 *
 * - Stores and returns deep copies: mutating what you passed in or got back never changes the
 *   stored state. Records and attributes are kept as JSON would keep them (the same values the
 *   file and database stores give back: `undefined` dropped, dates as strings); what JSON cannot
 *   hold (bigint, cycles) is an `InvalidArgumentError`.
 * - Session ids are `crypto.randomUUID()` unless given. Creating a session whose id exists throws
 *   an `InvalidArgumentError`.
 * - `updatedAt` is monotonic; sessions touched in the same millisecond still list in touch order.
 * - `deleteSession` of an unknown id is a no-op (idempotent delete).
 * - Implements `prune` ({@link PrunableSessionStore}) and the approval index
 *   ({@link ApprovalIndexStore}). It has no session leases: it lives in one process, whose
 *   runtime already runs one turn per session at a time.
 *
 * @example
 * const store = new MemorySessionStore();
 * const session = await store.createSession({ agentId: "todo" });
 * await store.append(session.sessionId, [{ id: "m1", kind: "message", frame: null, message: { role: "user", content: "hi" } }]);
 */
export class MemorySessionStore implements PrunableSessionStore, ApprovalIndexStore {
  readonly #sessions = new Map<string, MemorySession>();
  /** Approval requests by id (the session they belong to, the request record, decided or not). */
  readonly #approvals = new Map<string, { session: MemorySession; request: ApprovalRecord; decided: boolean }>();
  /** The undecided ones, oldest first (a Map keeps insertion order). */
  readonly #pending = new Map<string, true>();
  /**
   * Touch log, least recently updated first: a touch appends the session, and earlier entries of
   * it go stale (skipped, and dropped when stale entries outnumber live ones). Listing walks it
   * from the end, so "latest" costs the same with ten sessions or a hundred thousand.
   */
  #order: MemorySession[] = [];
  readonly #clock = new SessionClock();

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    const summary = newSessionSummary(init, () => crypto.randomUUID(), this.#clock.tick().iso);
    if (this.#sessions.has(summary.sessionId)) {
      throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
    }
    const session: MemorySession = { summary, records: [], touched: -1 };
    this.#sessions.set(summary.sessionId, session);
    this.#log(session);
    return copyPlainJson(summary);
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    checkSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    return session && copyPlainJson(session.summary);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    const checked = checkListQuery(query);
    const { limit } = checked;
    const listed: SessionSummary[] = [];
    if (limit === 0) return listed;
    const order = this.#order;
    for (let index = order.length - 1; index >= 0 && listed.length < limit; index--) {
      const session = order[index]!;
      if (!this.#live(session, index)) continue;
      if (matchesListQuery(session.summary, checked)) listed.push(copyPlainJson(session.summary));
    }
    return listed;
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<SessionSummary> {
    const session = this.#require(sessionId);
    const summary = patchSessionSummary(session.summary, patch);
    session.summary = summary;
    this.#touch(session);
    return copyPlainJson(summary);
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    this.#sessions.delete(sessionId);
  }

  async append(sessionId: string, records: NewRecord[]): Promise<HistoryRecord[]> {
    checkNewRecords(records);
    const session = this.#require(sessionId);
    // Stamp and copy the whole batch before storing any of it: all or nothing.
    const stored: HistoryRecord[] = [];
    const fresh = new Map<string, HistoryRecord>();
    let at: string | undefined;
    records.forEach((record, index) => {
      let kept = this.#find(session, record.id) ?? fresh.get(record.id);
      if (kept === undefined) {
        at ??= this.#clock.tick().iso;
        kept = toPlainJson(stampRecord(record, session.records.length + fresh.size + 1, at), `append: records[${index}]`);
        // Share strings the caller and the batch already hold instead of keeping parsed copies.
        kept.id = record.id;
        kept.at = at;
        fresh.set(record.id, kept);
      }
      stored.push(kept);
    });
    for (const record of fresh.values()) {
      session.records.push(record);
      session.ids?.set(record.id, record.seq - 1);
      this.#indexApproval(session, record);
    }
    if (session.ids === undefined && session.records.length > SCAN_LIMIT) {
      session.ids = new Map(session.records.map((record, index) => [record.id, index]));
    }
    if (at !== undefined) this.#touch(session, at);
    return stored.map(copyPlainJson);
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<HistoryRecord[]> {
    checkLoadOptions(options);
    const session = this.#require(sessionId);
    return selectRecords(session.records, options).map(copyPlainJson);
  }

  async clear(sessionId: string): Promise<void> {
    await this.append(sessionId, [{ id: crypto.randomUUID(), kind: "reset", frame: null }]);
  }

  /** Deletes every session whose `updatedAt` is before `olderThan`; returns how many. */
  async prune(options: { olderThan: string }): Promise<number> {
    const olderThan = parseOlderThan(options);
    let pruned = 0;
    const order = this.#order;
    for (let index = 0; index < order.length; index++) {
      const session = order[index]!;
      if (!this.#live(session, index)) continue;
      // Touch order is updatedAt order: stop at the first session that is recent enough.
      if (Date.parse(session.summary.updatedAt) >= olderThan) break;
      this.#sessions.delete(session.summary.sessionId);
      pruned++;
    }
    return pruned;
  }

  async findApproval(requestId: string): Promise<IndexedApproval | undefined> {
    if (typeof requestId !== "string" || requestId === "") throw new InvalidArgumentError("findApproval: requestId must be a non-empty string");
    const entry = this.#approvals.get(requestId);
    if (entry === undefined || !this.#exists(entry.session)) return undefined;
    return indexed(entry.session, entry.request, entry.decided);
  }

  async listPendingApprovals(query: { scope?: string | null; sessionId?: string; limit?: number } = {}): Promise<IndexedApproval[]> {
    const { scope, sessionId, limit = Number.POSITIVE_INFINITY } = query ?? {};
    const listed: IndexedApproval[] = [];
    for (const requestId of this.#pending.keys()) {
      if (listed.length >= limit) break;
      const entry = this.#approvals.get(requestId)!;
      const summary = entry.session.summary;
      if (!this.#exists(entry.session)) continue;
      if (sessionId !== undefined && summary.sessionId !== sessionId) continue;
      if (scope !== undefined && (summary.scope ?? null) !== scope) continue;
      listed.push(indexed(entry.session, entry.request, false));
    }
    return listed;
  }

  #indexApproval(session: MemorySession, record: HistoryRecord): void {
    if (record.kind === "approval") {
      const requestId = record.request.requestId;
      const entry = this.#approvals.get(requestId);
      if (record.decision === undefined) {
        if (entry === undefined) {
          this.#approvals.set(requestId, { session, request: record, decided: false });
          this.#pending.set(requestId, true);
        }
      } else {
        if (entry === undefined) this.#approvals.set(requestId, { session, request: record, decided: true });
        else entry.decided = true;
        this.#pending.delete(requestId);
      }
    } else if (record.kind === "reset" && record.frame === null) {
      for (const requestId of this.#pending.keys()) {
        const entry = this.#approvals.get(requestId)!;
        if (entry.session === session) {
          entry.decided = true;
          this.#pending.delete(requestId);
        }
      }
    }
  }

  /** Whether the session is still stored (deleted and pruned sessions drop out of the index lazily). */
  #exists(session: MemorySession): boolean {
    const live = this.#sessions.get(session.summary.sessionId) === session;
    if (!live) {
      for (const [requestId, entry] of this.#approvals) {
        if (entry.session === session) {
          this.#approvals.delete(requestId);
          this.#pending.delete(requestId);
        }
      }
    }
    return live;
  }

  #require(sessionId: string): MemorySession {
    checkSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    if (session === undefined) throw sessionNotFound(sessionId);
    return session;
  }

  #find(session: MemorySession, id: string): HistoryRecord | undefined {
    if (session.ids !== undefined) {
      const index = session.ids.get(id);
      return index === undefined ? undefined : session.records[index];
    }
    for (let index = session.records.length - 1; index >= 0; index--) {
      if (session.records[index]!.id === id) return session.records[index];
    }
    return undefined;
  }

  #touch(session: MemorySession, at = this.#clock.tick().iso): void {
    session.summary.updatedAt = at;
    this.#log(session);
  }

  /** Appends `session` to the touch log, compacting the log when it is mostly stale. */
  #log(session: MemorySession): void {
    if (this.#order.length >= 2 * this.#sessions.size + 64) {
      this.#order = this.#order.filter((entry, index) => this.#live(entry, index));
      this.#order.forEach((entry, index) => (entry.touched = index));
    }
    session.touched = this.#order.length;
    this.#order.push(session);
  }

  /** Whether the touch log's entry at `index` is that session's latest, and the session still exists. */
  #live(session: MemorySession, index: number): boolean {
    return session.touched === index && this.#sessions.get(session.summary.sessionId) === session;
  }
}

function indexed(session: MemorySession, request: ApprovalRecord, decided: boolean): IndexedApproval {
  const { sessionId, agentId, scope } = session.summary;
  return { requestId: request.request.requestId, sessionId, agentId, ...(scope !== undefined && { scope }), request: copyPlainJson(request), decided };
}
