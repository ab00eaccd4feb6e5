import { InvalidArgumentError } from "../errors/errors.js";
import {
  checkListQuery,
  checkPendingApprovalsQuery,
  checkSessionId,
  matchesListQuery,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type ListQuery,
  type ListSessionsQuery,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { matchesScopeFilter } from "../internal/scope-filter.js";
import { copyPlainJson } from "../internal/plain-json.js";
import { SessionClock } from "../internal/session-clock.js";
import { checkLoadOptions, checkNewRecords, selectRecords, stampRecord } from "../internal/session-records.js";
import type {
  ApprovalIndexStore,
  ApprovalRecord,
  HistoryRecord,
  IndexedApproval,
  ListPendingApprovalsQuery,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionSummary,
} from "../contracts/session-store.js";
import { ScopeIndex, type ScopeSlot } from "./memory-scope-index.js";
import { SharedPromptContent } from "./shared-prompt-content.js";

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
  /** Its scope's slot in the scope index. */
  slot: ScopeSlot<MemorySession>;
  /** Index of this session's latest entry in its scope's touch log. */
  slotTouched: number;
}

interface ApprovalEntry {
  session: MemorySession;
  request: ApprovalRecord;
  decided: boolean;
  /** Order of indexing: oldest first across scopes. */
  ord: number;
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
 * await store.append(session.sessionId, [{ id: "m1", kind: "message", frame: null, message: { role: "user", content:
 * "hi" } }]);
 */
export class MemorySessionStore implements PrunableSessionStore, ApprovalIndexStore {
  readonly #sessions = new Map<string, MemorySession>();
  /** Approval requests by id (the session they belong to, the request record, decided or not). */
  readonly #approvals = new Map<string, ApprovalEntry>();
  /** The undecided ones, oldest first (a Map keeps insertion order); each scope's slot has its own. */
  readonly #pending = new Map<string, true>();
  #approvalOrder = 0;
  /** Sessions and undecided requests by scope, so a scope or a prefix is listed without walking the others. */
  readonly #scopes = new ScopeIndex<MemorySession>();
  /**
   * Touch log, least recently updated first: a touch appends the session, and earlier entries of
   * it go stale (skipped, and dropped when stale entries outnumber live ones). Listing walks it
   * from the end, so "latest" costs the same with ten sessions or a hundred thousand.
   */
  #order: MemorySession[] = [];
  readonly #clock = new SessionClock();
  /** One copy of each distinct tool list of the sessions' `prompt` records. */
  readonly #content = new SharedPromptContent();

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    const summary = newSessionSummary(init, () => crypto.randomUUID(), this.#clock.tick().iso);
    if (this.#sessions.has(summary.sessionId)) {
      throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
    }
    const session: MemorySession = {
      summary,
      records: [],
      touched: -1,
      slot: this.#scopes.enter(summary.scope),
      slotTouched: -1,
    };
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
    if (limit === 0) return [];
    const slots = this.#scopes.select(checked.scope);
    // The store's own log when most sessions match (walked newest first, it stops at `limit`).
    const matching = slots?.reduce((sum, slot) => sum + slot.size, 0) ?? this.#sessions.size;
    const listed =
      slots === undefined || matching * 2 > this.#sessions.size
        ? this.#walk(this.#order, checked, false)
        : this.#fromSlots(slots, checked);
    return listed.map((session) => copyPlainJson(session.summary));
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
    const session = this.#sessions.get(sessionId);
    if (session !== undefined) this.#drop(session);
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
        kept = this.#content.stored(
          stampRecord(record, session.records.length + fresh.size + 1, at),
          `append: records[${index}]`,
        );
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
      this.#drop(session);
      pruned++;
    }
    return pruned;
  }

  async findApproval(requestId: string): Promise<IndexedApproval | undefined> {
    if (typeof requestId !== "string" || requestId === "")
      throw new InvalidArgumentError("findApproval: requestId must be a non-empty string");
    const entry = this.#approvals.get(requestId);
    if (entry === undefined || !this.#exists(entry.session)) return undefined;
    return indexed(entry.session, entry.request, entry.decided);
  }

  async listPendingApprovals(query?: ListPendingApprovalsQuery): Promise<IndexedApproval[]> {
    const { scope, sessionId, limit } = checkPendingApprovalsQuery(query);
    const listed: IndexedApproval[] = [];
    for (const requestId of this.#pendingIds(sessionId, scope)) {
      if (listed.length >= limit) break;
      const entry = this.#approvals.get(requestId);
      if (entry === undefined || !this.#exists(entry.session)) continue;
      const summary = entry.session.summary;
      if (sessionId !== undefined && summary.sessionId !== sessionId) continue;
      if (!matchesScopeFilter(summary.scope, scope)) continue;
      listed.push(indexed(entry.session, entry.request, false));
    }
    return listed;
  }

  /** Ids of undecided requests that may match, oldest first: of one session's scope, of the filter's scopes, or all. */
  #pendingIds(sessionId: string | undefined, filter: ListQuery["scope"]): Iterable<string> {
    if (sessionId !== undefined) return this.#sessions.get(sessionId)?.slot.pending ?? [];
    const slots = this.#scopes.select(filter);
    if (slots === undefined) return this.#pending.keys();
    if (slots.length === 1) return slots[0]!.pending;
    const ids = slots.flatMap((slot) => [...slot.pending]);
    return ids.sort((a, b) => this.#approvals.get(a)!.ord - this.#approvals.get(b)!.ord);
  }

  #indexApproval(session: MemorySession, record: HistoryRecord): void {
    if (record.kind === "approval") {
      const requestId = record.request.requestId;
      const entry = this.#approvals.get(requestId);
      if (record.decision === undefined) {
        if (entry === undefined) {
          this.#approvals.set(requestId, { session, request: record, decided: false, ord: this.#approvalOrder++ });
          this.#pending.set(requestId, true);
          session.slot.pending.add(requestId);
        }
      } else {
        if (entry === undefined)
          this.#approvals.set(requestId, { session, request: record, decided: true, ord: this.#approvalOrder++ });
        else entry.decided = true;
        this.#pending.delete(requestId);
        (entry?.session ?? session).slot.pending.delete(requestId);
      }
    } else if (record.kind === "reset" && record.frame === null) {
      for (const requestId of session.slot.pending) {
        const entry = this.#approvals.get(requestId);
        if (entry?.session === session) {
          entry.decided = true;
          this.#pending.delete(requestId);
          session.slot.pending.delete(requestId);
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
          session.slot.pending.delete(requestId);
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

  /** Removes a stored session (its approval entries drop out lazily, see {@link #exists}). */
  #drop(session: MemorySession): void {
    this.#sessions.delete(session.summary.sessionId);
    this.#scopes.leave(session.summary.scope);
  }

  /** Appends `session` to the touch log and to its scope's, compacting either when it is mostly stale. */
  #log(session: MemorySession): void {
    if (this.#order.length >= 2 * this.#sessions.size + 64) {
      this.#order = this.#order.filter((entry, index) => this.#live(entry, index));
      this.#order.forEach((entry, index) => (entry.touched = index));
    }
    session.touched = this.#order.length;
    this.#order.push(session);
    const slot = session.slot;
    if (slot.order.length >= 2 * slot.size + 16) {
      slot.order = slot.order.filter((entry, index) => this.#live(entry, index, true));
      slot.order.forEach((entry, index) => (entry.slotTouched = index));
    }
    session.slotTouched = slot.order.length;
    slot.order.push(session);
  }

  /**
   * Whether the entry at `index` of the touch log (or of its scope's) is that session's latest, and the session still
   * exists.
   */
  #live(session: MemorySession, index: number, inSlot = false): boolean {
    return (
      (inSlot ? session.slotTouched : session.touched) === index &&
      this.#sessions.get(session.summary.sessionId) === session
    );
  }

  /** The live sessions of a touch log that match `query`, newest first, up to its limit. */
  #walk(order: MemorySession[], query: ListQuery, inSlot: boolean): MemorySession[] {
    const listed: MemorySession[] = [];
    for (let index = order.length - 1; index >= 0 && listed.length < query.limit; index--) {
      const session = order[index]!;
      if (this.#live(session, index, inSlot) && matchesListQuery(session.summary, query)) listed.push(session);
    }
    return listed;
  }

  /** The newest `query.limit` matching sessions of these scopes: each scope's newest, merged by touch order. */
  #fromSlots(slots: ScopeSlot<MemorySession>[], query: ListQuery): MemorySession[] {
    if (slots.length === 1) return this.#walk(slots[0]!.order, query, true);
    const listed = slots.flatMap((slot) => this.#walk(slot.order, query, true));
    return listed.sort((a, b) => b.touched - a.touched).slice(0, query.limit);
  }
}

function indexed(session: MemorySession, request: ApprovalRecord, decided: boolean): IndexedApproval {
  const { sessionId, agentId, scope } = session.summary;
  return {
    requestId: request.request.requestId,
    sessionId,
    agentId,
    ...(scope !== undefined && { scope }),
    request: copyPlainJson(request),
    decided,
  };
}
