import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import { KeyedSerializer } from "../../internal/keyed-serializer.js";
import { readSessionState, SessionStateReader, type SessionState } from "../records/session-state.js";

interface Entry {
  /** Tells a session apart from a later one with the same id (deleted and created again). */
  createdAt: string;
  reader: SessionStateReader;
  loaded: boolean;
}

/**
 * The state of recently used sessions, kept in step with the store by loading only what was
 * appended since the last read (`load(sessionId, { afterSeq })`). Every read asks the store, so
 * records written by another process, a `clear`, or a reset are seen; only the records already
 * read are not loaded again, which makes a turn's cost independent of the session's length.
 *
 * Least recently read sessions are dropped beyond `capacity`; `0` turns the cache off (every
 * read loads the session since its last reset, as a process seeing it for the first time does).
 */
export class SessionStateCache {
  readonly #entries = new Map<string, Entry>();
  /** Refreshes of one session run one after another, so no record is applied twice. */
  readonly #refreshes = new KeyedSerializer();

  constructor(
    private readonly store: SessionStore,
    private readonly capacity: number,
  ) {}

  /** The session's current state, from the store. */
  read(session: SessionSummary): Promise<SessionState> {
    if (this.capacity <= 0) return readFresh(this.store, session.sessionId);
    const { sessionId, createdAt } = session;
    let entry = this.#entries.get(sessionId);
    if (entry === undefined || entry.createdAt !== createdAt)
      entry = { createdAt, reader: new SessionStateReader(), loaded: false };
    // Re-insert: the map's order is the least recently read first.
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, entry);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);

    const current = entry;
    return this.#refreshes.run(sessionId, async () => {
      const options = current.loaded ? { afterSeq: current.reader.lastSeq } : { sinceLastReset: true };
      const records = await this.store.load(sessionId, options);
      try {
        current.reader.apply(records);
      } catch (error) {
        // A record the reader could not take leaves it half-applied: forget it, read afresh next time.
        if (this.#entries.get(sessionId) === current) this.#entries.delete(sessionId);
        throw error;
      }
      current.loaded = true;
      return current.reader.state();
    });
  }
}

/** A session's state read from scratch (records since the last reset), without touching any cache. */
export async function readFresh(store: SessionStore, sessionId: string): Promise<SessionState> {
  return readSessionState(await store.load(sessionId, { sinceLastReset: true }));
}
