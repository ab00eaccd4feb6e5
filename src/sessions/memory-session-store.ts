import { InvalidArgumentError } from "../errors/errors.js";
import {
  checkListQuery,
  checkSessionId,
  cloneData,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { SessionClock } from "../internal/session-clock.js";
import { checkLoadOptions, checkNewRecords, selectRecords, stampRecord } from "../internal/session-records.js";
import type { HistoryRecord, LoadOptions, NewRecord, PrunableSessionStore, SessionSummary } from "./session-store.js";

interface MemorySession {
  summary: SessionSummary;
  /** `records[i].seq === i + 1`. */
  records: HistoryRecord[];
  ids: Map<string, HistoryRecord>;
}

/**
 * The reference {@link SessionStore}: everything in memory, nothing survives the process. Use it
 * in tests and for short-lived agents; it passes `runSessionStoreContract` like every store.
 *
 * - Stores and returns deep copies (`structuredClone`): mutating what you passed in or got back
 *   never changes the stored state. Records must be plain data (no functions or class instances).
 * - Session ids are `crypto.randomUUID()` unless given. Creating a session whose id exists throws
 *   an `InvalidArgumentError`.
 * - `updatedAt` is monotonic; sessions touched in the same millisecond still list in touch order.
 * - `deleteSession` of an unknown id is a no-op (idempotent delete).
 * - Implements `prune` ({@link PrunableSessionStore}).
 *
 * @example
 * const store = new MemorySessionStore();
 * const session = await store.createSession({ agentId: "todo" });
 * await store.append(session.sessionId, [{ id: "m1", kind: "message", frame: null, message: { role: "user", content: "hi" } }]);
 */
export class MemorySessionStore implements PrunableSessionStore {
  /** Kept in touch order (least recently updated first): a touch re-inserts the entry. */
  readonly #sessions = new Map<string, MemorySession>();
  readonly #clock = new SessionClock();

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    const summary = newSessionSummary(init, () => crypto.randomUUID(), this.#clock.tick().iso);
    if (this.#sessions.has(summary.sessionId)) {
      throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
    }
    this.#sessions.set(summary.sessionId, { summary, records: [], ids: new Map() });
    return structuredClone(summary);
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    checkSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    return session && structuredClone(session.summary);
  }

  async listSessions(query?: { agentId?: string; limit?: number }): Promise<SessionSummary[]> {
    const { agentId, limit } = checkListQuery(query);
    const listed: SessionSummary[] = [];
    if (limit === 0) return listed;
    const sessions = [...this.#sessions.values()];
    for (let index = sessions.length - 1; index >= 0 && listed.length < limit; index--) {
      const { summary } = sessions[index]!;
      if (agentId === undefined || summary.agentId === agentId) listed.push(structuredClone(summary));
    }
    return listed;
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<SessionSummary> {
    const session = this.#require(sessionId);
    const summary = patchSessionSummary(session.summary, patch);
    session.summary = summary;
    this.#touch(session);
    return structuredClone(summary);
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    this.#sessions.delete(sessionId);
  }

  async append(sessionId: string, records: NewRecord[]): Promise<HistoryRecord[]> {
    checkNewRecords(records);
    const session = this.#require(sessionId);
    // Copy (and so check) the whole batch before storing any of it: all or nothing.
    const copies = cloneData(records, "append: records");
    const stored: HistoryRecord[] = [];
    const fresh = new Map<string, HistoryRecord>();
    let at: string | undefined;
    for (const record of copies) {
      let kept = session.ids.get(record.id) ?? fresh.get(record.id);
      if (kept === undefined) {
        at ??= this.#clock.tick().iso;
        kept = stampRecord(record, session.records.length + fresh.size + 1, at);
        fresh.set(record.id, kept);
      }
      stored.push(kept);
    }
    for (const record of fresh.values()) {
      session.records.push(record);
      session.ids.set(record.id, record);
    }
    if (at !== undefined) this.#touch(session, at);
    return stored.map((record) => structuredClone(record));
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<HistoryRecord[]> {
    checkLoadOptions(options);
    const session = this.#require(sessionId);
    return selectRecords(session.records, options).map((record) => structuredClone(record));
  }

  async clear(sessionId: string): Promise<void> {
    await this.append(sessionId, [{ id: crypto.randomUUID(), kind: "reset", frame: null }]);
  }

  /** Deletes every session whose `updatedAt` is before `olderThan`; returns how many. */
  async prune(options: { olderThan: string }): Promise<number> {
    const olderThan = parseOlderThan(options);
    let pruned = 0;
    for (const [sessionId, session] of this.#sessions) {
      // Touch order is updatedAt order: stop at the first session that is recent enough.
      if (Date.parse(session.summary.updatedAt) >= olderThan) break;
      this.#sessions.delete(sessionId);
      pruned++;
    }
    return pruned;
  }

  #require(sessionId: string): MemorySession {
    checkSessionId(sessionId);
    const session = this.#sessions.get(sessionId);
    if (session === undefined) throw sessionNotFound(sessionId);
    return session;
  }

  #touch(session: MemorySession, at = this.#clock.tick().iso): void {
    session.summary.updatedAt = at;
    this.#sessions.delete(session.summary.sessionId);
    this.#sessions.set(session.summary.sessionId, session);
  }
}
