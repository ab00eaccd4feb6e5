import type { RuntimeEvent } from "../contracts/agent-runtime.js";
import type { HistoryRecord, NewRecord, SessionStore } from "../contracts/session-store.js";
import { KeyedSerializer } from "../internal/keyed-serializer.js";

/**
 * A runtime event as `createEventLog({ persist: true })` keeps it in its session's log: a record
 * of kind `"event"` (root frame), whose id is `"event:" + eventId` (`eventId`: the SSE id the log
 * gave it, `<epoch>:<seq>`). Records are appended in the order the events were emitted, so the
 * log's `seq` order is the events' order. Readers (an inspector, an export) load the session and
 * keep the records of this kind; the conversation never includes them.
 */
export interface EventRecord {
  id: string;
  seq: number;
  at: string;
  frame: null;
  kind: "event";
  /** The SSE id the event had when it was delivered live (`EventLog.eventId`). */
  eventId: string;
  event: RuntimeEvent;
}

/** The record kind of {@link EventRecord}. */
export const EVENT_RECORD_KIND = "event" as const;

/**
 * Characters of streamed text kept per coalesced stream: a stream's `chunk` events are stored as
 * one `chunk` (their text joined) before the next event of the session; text beyond this is not
 * stored (the message itself is, as a `message` record).
 */
export const MAX_STORED_STREAM_CHARS = 200_000;

/**
 * Events of one session waiting for the store: when the store falls this far behind (a hung
 * store), later events of the session are not stored (a reconnect then replays up to the gap).
 */
export const MAX_PENDING_STORED_EVENTS = 10_000;

/** Chunks of one stream waiting to be stored as one. */
interface OpenStream {
  last: RuntimeEvent & { type: "chunk" };
  content: string;
}

/** The stored event `record` is (see {@link EventRecord}), else undefined. */
export function eventRecordOf(record: HistoryRecord): EventRecord | undefined {
  const further: { kind: string; eventId?: unknown; event?: unknown } = record;
  const { eventId, event } = further;
  if (further.kind !== EVENT_RECORD_KIND || typeof eventId !== "string" || typeof event !== "object" || event === null)
    return undefined;
  return {
    id: record.id,
    seq: record.seq,
    at: record.at,
    frame: null,
    kind: EVENT_RECORD_KIND,
    eventId,
    event: event as RuntimeEvent,
  };
}

/**
 * Appends a log's events to their sessions' logs, in order, one append per session at a time
 * (events that arrive meanwhile go in the next one). Text deltas (`chunk`) are coalesced per
 * stream; `thinking` and `tool_input_delta` deltas are not stored. A failed append (an unknown or
 * deleted session, a store error) loses those events from storage only: a reconnecting client then
 * gets a snapshot.
 */
export class StoredEventWriter {
  readonly #store: SessionStore;
  readonly #eventId: (event: { seq: number }) => string;
  readonly #pending = new Map<string, RuntimeEvent[]>();
  readonly #streams = new Map<string, Map<string, OpenStream>>();
  readonly #writes = new KeyedSerializer<string>();
  readonly #inflight = new Set<Promise<void>>();

  constructor(store: SessionStore, eventId: (event: { seq: number }) => string) {
    this.#store = store;
    this.#eventId = eventId;
  }

  record(event: RuntimeEvent): void {
    const { sessionId } = event;
    // Deltas the stored messages hold whole: reasoning (in the message), streamed arguments (in the call's start).
    if (event.type === "thinking" || event.type === "tool_input_delta") return;
    if (event.type === "chunk") {
      const streams = this.#streams.get(sessionId) ?? new Map<string, OpenStream>();
      this.#streams.set(sessionId, streams);
      const key = `${event.runId}\u0000${event.parentId ?? ""}\u0000${event.streamId ?? ""}`;
      const open = streams.get(key);
      const room = MAX_STORED_STREAM_CHARS - (open?.content.length ?? 0);
      const content = (open?.content ?? "") + (room > 0 ? event.content.slice(0, room) : "");
      streams.set(key, { last: event, content });
      return;
    }
    const pending = this.#pending.get(sessionId) ?? [];
    this.#pending.set(sessionId, pending);
    const streams = this.#streams.get(sessionId);
    if (streams) {
      for (const { last, content } of streams.values()) pending.push({ ...last, content });
      this.#streams.delete(sessionId);
    }
    if (pending.length >= MAX_PENDING_STORED_EVENTS) return;
    pending.push(event);
    const write = this.#writes.run(sessionId, () => this.#flush(sessionId)).catch(() => undefined);
    this.#inflight.add(write);
    void write.then(() => this.#inflight.delete(write));
  }

  /** Resolves once every event recorded so far was written (or its write failed). */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  async #flush(sessionId: string): Promise<void> {
    const batch = this.#pending.get(sessionId);
    this.#pending.delete(sessionId);
    if (!batch || batch.length === 0) return;
    const records = batch.map((event) => {
      const eventId = this.#eventId(event);
      return eventRecord({ id: `event:${eventId}`, frame: null, kind: EVENT_RECORD_KIND, eventId, event });
    });
    await this.#store.append(sessionId, records);
  }
}

/** An event record as `append` takes it (stores keep kinds outside `HistoryRecord` as JSON). */
function eventRecord(record: Omit<EventRecord, "seq" | "at">): NewRecord {
  return record as unknown as NewRecord;
}

/**
 * The stored events of `sessionId` after the one whose SSE id is `lastEventId`, in order; undefined
 * when the log holds no stored event of that id (then the client gets a snapshot).
 */
export async function storedEventsAfter(
  store: SessionStore,
  sessionId: string,
  lastEventId: string,
): Promise<EventRecord[] | undefined> {
  const events: EventRecord[] = [];
  for (const record of await store.load(sessionId)) {
    const stored = eventRecordOf(record);
    if (stored) events.push(stored);
  }
  const at = events.findIndex((record) => record.eventId === lastEventId);
  return at < 0 ? undefined : events.slice(at + 1);
}
