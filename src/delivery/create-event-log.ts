import { InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import type { TenantGuard } from "../contracts/tenant-guard.js";
import { matchesScopeFilter, tenantGuardFilter } from "../internal/scope-filter.js";
import { AsyncQueue } from "../internal/async-queue.js";
import type { Message } from "../contracts/message.js";
import type { AgentRuntime, PendingApproval, PendingQuestion, RuntimeEvent } from "../contracts/agent-runtime.js";
import { SSE_EVENT_ID } from "./to-server-sent-events.js";
import type { Artifact, Task } from "../contracts/task.js";
import type { TaskStatus } from "../contracts/loop-event.js";
import type { HistoryRecord, SessionSummary } from "../contracts/session-store.js";
import { StoredEventWriter, storedEventsAfter } from "./stored-events.js";
import { conversationOf, messageIdOf } from "../sessions/conversation.js";
import { isSignalingSessionStore } from "../sessions/session-store.js";
import { LIVE_EVENT_TOPIC, liveEventsOf, liveOriginOf } from "../internal/live-events.js";

/**
 * The stored state of a session, sent instead of events a reconnecting client can no longer get
 * (evicted from the log, from before a server restart, or a first connection).
 */
export interface SessionSnapshotEvent {
  type: "session_snapshot";
  sessionId: string;
  /** The log's newest `seq` when the snapshot was taken: events after it follow. */
  seq: number;
  ts: number;
  /**
   * The root conversation since the last reset, as the model's context has it (what a rewind took
   * out is not there); assistant messages carry their `executionTree`.
   */
  messages: Message[];
  /**
   * The id of each message of `messages`, index for index: the host's `messageId` of a user message
   * (else the id it was stored under), the stored id of an assistant message (a turn's first answer
   * is stored under the turn's run id). What `runtime.rewind`, `editOf` and `forkSession` take.
   */
  messageIds: string[];
  /** Sub-task conversations by the `toolCallId` of their `run_subtask` (records of frame ≠ null). */
  frames: Record<string, Message[]>;
  /** Approvals of this session waiting for a decision. */
  pendingApprovals: PendingApproval[];
  /** Questions (`ask_user`) of this session waiting for an answer (when the runtime has `pendingQuestions`). */
  pendingQuestions?: PendingQuestion[];
  /** The run id of a turn this log saw start and not end yet, else null. */
  runningRunId: string | null;
  /**
   * The task the session holds (`runtime.tasks`), as stored: id, status, plan artifact.
   * @default undefined (not a task's session)
   */
  task?: Pick<Task, "taskId" | "status" | "planArtifactId">;
  /** The session's role (`setRole`, an approved `request_build_mode`), null when it has none. */
  role: string | null;
  /** The artifacts stored by `create_artifact` since the last reset, oldest first. */
  artifacts: Artifact[];
}

/** What `EventLog.resume` yields. */
export type ResumedEvent = RuntimeEvent | SessionSnapshotEvent;

/** Options of `createEventLog`. */
export interface EventLogOptions {
  /** The runtime whose `events` the log records; its store serves snapshots. */
  runtime: Pick<AgentRuntime, "events" | "store" | "pendingApprovals"> &
    Partial<Pick<AgentRuntime, "pendingQuestions">>;
  /**
   * How many of the newest events (all sessions) the log keeps in memory. Also the most events a
   * slow reader may fall behind before it is resynchronised with a fresh snapshot.
   * @default 10_000
   */
  maxEvents?: number;
  /**
   * Also keep the events in the session store (every store through the `SessionStore` contract:
   * memory, JSONL, SQLite, Postgres), as records of kind `"event"` in each session's log (see
   * `EventRecord`). A client that reconnects after a restart, or to another process on the same
   * store, then gets what it missed replayed from the store instead of a snapshot.
   *
   * What is stored: every event but text deltas, coalesced per stream (a stream's `chunk`s become
   * one `chunk`, its text joined, at most `MAX_STORED_STREAM_CHARS` characters), and `thinking`
   * and `tool_input_delta` deltas, which are not stored (the message and the call's `start` hold them whole). A turn's stored events are bounded as the turn is (its model
   * calls, tool calls and result sizes). Records stay until the session is deleted or pruned.
   * Writes are batched per session, in order, one append at a time; a failed write loses those
   * events from storage only (see `settled`).
   * @default false (the events live only in memory)
   */
  persist?: boolean;
}

/**
 * Options of `EventLog.resume`. The tenant guard (`scope` or `scopePrefix`, see `TenantGuard`):
 * a session outside it is "not found" (`SessionNotFoundError`, the same as for an unknown id),
 * checked against the store before anything is yielded, also when the log holds the events.
 */
export interface ResumeOptions extends TenantGuard {
  sessionId: string;
  /**
   * The `Last-Event-ID` the client sent, if any: an id made by this log (`eventId`, what
   * `toServerSentEvents` writes for a `resume` stream), or, with `persist`, the id of an event
   * stored by any persisting log on the same store (another process, one before a restart). Any
   * other string (an id not stored, a bare `seq` such as `"42"`, garbage) gets a snapshot.
   *
   * A number is not an id: `resume` throws an `InvalidArgumentError` for one (and for anything
   * else that is not a string, `null` or `undefined`). A bare `seq` cannot tell this process's
   * events from those of a process before a restart, whose `seq` started at 1 too; pass the
   * header as the client sent it.
   */
  lastEventId?: string | null;
  /**
   * `"turn"`: end after the `done` of the turn running at the time (at once when none runs).
   * `"session"`: stay open and deliver every later turn of the session until the reader stops.
   * @default "turn"
   */
  follow?: "turn" | "session";
}

/** A log made by `createEventLog`. */
export interface EventLog {
  /**
   * The events of one session a client has not seen, then live ones, each once, in `seq` order.
   * When the log still holds the client's last event (`lastEventId`, same session), the
   * missed events are replayed from memory; otherwise the first item is a `session_snapshot`
   * read from the store, followed by the events after it. Rejects with the store's error (e.g.
   * `SessionNotFoundError`) when the session cannot be read, and with `SessionNotFoundError` for a
   * session outside the tenant guard. Throws an `InvalidArgumentError` at once, before anything
   * is read, when `lastEventId` is not a string, `null` or `undefined`, or the guard is malformed.
   */
  resume(options: ResumeOptions): AsyncIterable<ResumedEvent>;
  /**
   * The SSE id of an event this log yields: `<epoch>:<seq>`, where the epoch is random per log.
   * A runtime's `seq` starts again at 1 in a new process, so a bare `seq` from before a restart
   * could name an unrelated event of the new process; the epoch tells them apart, and an id of
   * another epoch gets a snapshot. `toServerSentEvents(log.resume(...))` writes these ids by
   * itself; pass `{ id: log.eventId }` when the events go through your own transformation first.
   */
  eventId(event: { seq: number }): string;
  /** The run id of the turn of this session that is running, as far as the log has seen. */
  runningRunId(sessionId: string): string | null;
  /** Stops recording and ends every open `resume`. Events recorded before go on being stored (`settled`). */
  close(): void;
  /** With `persist`: resolves once every event recorded so far was written to the store (or failed to be). */
  settled(): Promise<void>;
}

type Subscriber = (event: RuntimeEvent) => void;

/** What one log holds, shared by the functions below. */
interface LogState {
  runtime: EventLogOptions["runtime"];
  capacity: number;
  /** The newest events, oldest at `start`, `size` of them. */
  ring: (RuntimeEvent | undefined)[];
  start: number;
  size: number;
  newestSeq: number;
  /** Session id → run id of the turn seen starting and not ending yet. */
  running: Map<string, string>;
  subscribers: Set<Subscriber>;
  /** Ends one open `resume` each. */
  closers: Set<() => void>;
  closed: boolean;
  /** Random per log: ids of another process (or of an earlier log in this one) never match. */
  epoch: string;
  /** With `persist`: stores the events. */
  writer: StoredEventWriter | undefined;
  /**
   * The SSE ids of events that keep an id of their own: replayed from the store (the id they were
   * delivered with), or of a turn in another process (`<sender>:<seq>`).
   */
  storedIds: WeakMap<object, string>;
  /** Each event's place in this log (local and remote events in the order the log got them), from 1. */
  ordinals: WeakMap<object, number>;
  count: number;
  /** Events of turns running in other processes (live events from the store's signals). */
  remote: WeakSet<object>;
  /** Stops taking live events from other processes. */
  unsubscribeRemote: (() => void) | undefined;
}

/**
 * Keeps a bounded, in-memory ring of a runtime's newest events so that a client that lost its
 * connection (an `EventSource` reconnecting with `Last-Event-ID`) gets exactly what it missed.
 * Create it when the runtime starts: it only knows the events emitted after it was created.
 *
 * What survives a server restart: the store (messages, execution trees, approvals), served as a
 * `session_snapshot`. What does not: the ring (text deltas and tool updates of a turn that was
 * running are gone; the turn itself is repaired by the runtime on the session's next turn) and
 * the `seq` counter, which starts again in a new process. The SSE ids are therefore the log's
 * own (`eventId`: a random epoch per log, then the `seq`): an id from an earlier process (or
 * another server behind the same address) never matches the ring, and gets a snapshot. An id is
 * accepted only when the ring holds that very event for that session, or (with `persist`) when
 * the session's log in the store holds it: then the stored events after it are replayed, with
 * the ids they were first sent with, followed by what this log holds and has not stored yet.
 *
 * Across processes: when the runtime's store carries signals between processes (SQLite,
 * Postgres: `SignalingSessionStore`), every runtime on it sends the live events it emits, and the
 * log merges those of turns running in other processes as they come (pushed, never polled): a
 * client of any process gets any turn's events while it runs, each turn's in order, with the
 * SSE id `<sender>:<seq>` (the sending runtime's id and `seq`); a `follow: "turn"` resume waits
 * for such a turn's `done` too. They are hints: one lost on the way (a dropped connection) is
 * simply missing, and the store stays the truth (a reconnect gets a snapshot). An event whose
 * JSON does not fit a signal (`MAX_STORE_SIGNAL_BYTES`, a big tool result or message) arrives
 * cut: its long strings end in `…[truncated]` (and, only when that is not enough, long arrays
 * and objects too); the stored records hold it whole. The log does not store other processes'
 * events (`persist`: their own logs do), and its ring holds them beside this runtime's.
 *
 * @example
 * ```ts
 * const log = createEventLog({ runtime });
 * // GET /sessions/:id/events
 * const body = toServerSentEvents(log.resume({ sessionId, lastEventId: request.headers.get("last-event-id") }));
 * ```
 */
export function createEventLog(options: EventLogOptions): EventLog {
  const { runtime } = options;
  const capacity = options.maxEvents ?? 10_000;
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new InvalidArgumentError(
      `createEventLog: maxEvents must be a whole number of 1 or more (got ${String(capacity)})`,
    );
  const state: LogState = {
    runtime,
    capacity,
    ring: new Array<RuntimeEvent | undefined>(capacity),
    start: 0,
    size: 0,
    newestSeq: 0,
    running: new Map(),
    subscribers: new Set(),
    closers: new Set(),
    closed: false,
    epoch: globalThis.crypto.randomUUID().slice(0, 8),
    writer: undefined,
    storedIds: new WeakMap(),
    ordinals: new WeakMap(),
    count: 0,
    remote: new WeakSet(),
    unsubscribeRemote: undefined,
  };
  const eventId = (event: { seq: number }): string => idOf(state, event);
  if (options.persist === true) state.writer = new StoredEventWriter(runtime.store, eventId);
  const record = (event: RuntimeEvent) => recordEvent(state, event);
  runtime.events.on("event", record);
  state.unsubscribeRemote = listenToOtherProcesses(state);

  return {
    runningRunId: (sessionId) => state.running.get(sessionId) ?? null,
    eventId,
    resume(resumeOptions) {
      checkLastEventId((resumeOptions as { lastEventId?: unknown } | undefined)?.lastEventId);
      tenantGuardFilter("createEventLog().resume", {
        scope: resumeOptions?.scope,
        scopePrefix: resumeOptions?.scopePrefix,
      });
      return {
        [SSE_EVENT_ID]: eventId,
        [Symbol.asyncIterator]: () => resumeSession(state, resumeOptions),
      };
    },
    close() {
      if (state.closed) return;
      state.closed = true;
      runtime.events.off("event", record);
      state.unsubscribeRemote?.();
      for (const end of [...state.closers]) end();
      state.subscribers.clear();
    },
    settled: () => state.writer?.settled() ?? Promise.resolve(),
  };
}

/** The SSE id of `event` (see `EventLog.eventId`). */
function idOf(state: LogState, event: { seq: number }): string {
  return state.storedIds.get(event) ?? `${state.epoch}:${event.seq}`;
}

/**
 * Stores `event` in the ring (dropping the oldest when full), tracks running turns, tells the open
 * resumes. An event of another process (`remote`) is neither stored (its own process's log does
 * that) nor counted in `newestSeq` (its `seq` is its runtime's).
 */
function recordEvent(state: LogState, event: RuntimeEvent, remote = false): void {
  const { ring, capacity } = state;
  if (state.size < capacity) ring[(state.start + state.size++) % capacity] = event;
  else {
    ring[state.start] = event;
    state.start = (state.start + 1) % capacity;
  }
  state.ordinals.set(event, ++state.count);
  if (remote) state.remote.add(event);
  else {
    state.newestSeq = event.seq;
    state.writer?.record(event);
  }
  if (event.type === "done") {
    if (state.running.get(event.sessionId) === event.runId) state.running.delete(event.sessionId);
  } else {
    state.running.delete(event.sessionId);
    state.running.set(event.sessionId, event.runId);
    // A process that died mid-turn never sends its `done`: the oldest such entries go.
    if (state.running.size > capacity) state.running.delete(state.running.keys().next().value!);
  }
  for (const subscriber of state.subscribers) subscriber(event);
}

/** Sender and session pairs whose last `seq` a log remembers (a repeated or late event of one is dropped). */
const MAX_REMOTE_STREAMS = 10_000;

/**
 * Takes the live events of turns running in other processes from the store's signals (topic
 * `"event"`), when the store carries signals and the runtime names its own (to skip those, which
 * `runtime.events` delivers): each recorded as this runtime's are, in the order sent. Returns the
 * function that stops it.
 */
function listenToOtherProcesses(state: LogState): (() => void) | undefined {
  const { store, events } = state.runtime;
  const origin = liveOriginOf(events);
  if (origin === undefined || !isSignalingSessionStore(store)) return undefined;
  const lastSeq = new Map<string, number>();
  return store.subscribe(LIVE_EVENT_TOPIC, (signal) => {
    if (state.closed) return;
    const live = liveEventsOf(signal);
    if (!live || live.o === origin) return;
    // In order per sender and session (a sender's signals of two sessions may cross).
    const key = `${live.o}\u0000${signal.key}`;
    for (const event of live.e) {
      const last = lastSeq.get(key);
      if (last !== undefined && event.seq <= last) continue;
      lastSeq.delete(key);
      lastSeq.set(key, event.seq);
      if (lastSeq.size > MAX_REMOTE_STREAMS) lastSeq.delete(lastSeq.keys().next().value!);
      state.storedIds.set(event, `${live.o}:${event.seq}`);
      recordEvent(state, event, true);
    }
  });
}

/**
 * The events of `sessionId` after the one whose SSE id is `lastEventId`, when the ring still holds
 * that event of that session; `after` is its place in the log.
 */
function replayAfter(
  state: LogState,
  sessionId: string,
  lastEventId: ResumeOptions["lastEventId"],
  eventId: (event: RuntimeEvent) => string,
): { after: number; missed: RuntimeEvent[] } | undefined {
  if (typeof lastEventId !== "string") return undefined;
  const { ring, start, size, capacity } = state;
  let found = -1;
  for (let i = size - 1; i >= 0; i--) {
    const event = ring[(start + i) % capacity]!;
    if (event.sessionId === sessionId && eventId(event) === lastEventId) {
      found = i;
      break;
    }
  }
  if (found < 0) return undefined;
  const missed: RuntimeEvent[] = [];
  for (let i = found + 1; i < size; i++) {
    const event = ring[(start + i) % capacity]!;
    if (event.sessionId === sessionId) missed.push(event);
  }
  return { after: state.ordinals.get(ring[(start + found) % capacity]!)!, missed };
}

/** The SSE ids this log's stores could hold: `<epoch>:<seq>`, an epoch of 8 hex digits. */
const STORED_EVENT_ID = /^[0-9a-f]{8}:\d{1,16}$/;

/**
 * With `persist`: the stored events after `lastEventId`, each an event object of its own (its SSE
 * id kept in `storedIds` unless it is this log's own); undefined when none is stored under that id.
 */
async function storedAfter(
  state: LogState,
  sessionId: string,
  lastEventId: ResumeOptions["lastEventId"],
): Promise<RuntimeEvent[] | undefined> {
  if (!state.writer || typeof lastEventId !== "string" || !STORED_EVENT_ID.test(lastEventId)) return undefined;
  const records = await storedEventsAfter(state.runtime.store, sessionId, lastEventId);
  if (!records) return undefined;
  const own = `${state.epoch}:`;
  return records.map(({ eventId, event }) => {
    if (!eventId.startsWith(own)) state.storedIds.set(event, eventId);
    return event;
  });
}

/** The events of `sessionId` the ring holds, oldest first. */
function sessionEvents(state: LogState, sessionId: string): RuntimeEvent[] {
  const { ring, start, size, capacity } = state;
  const events: RuntimeEvent[] = [];
  for (let i = 0; i < size; i++) {
    const event = ring[(start + i) % capacity]!;
    if (event.sessionId === sessionId) events.push(event);
  }
  return events;
}

/** The stored state of `sessionId`, as of the log's newest event. */
async function snapshot(state: LogState, sessionId: string): Promise<SessionSnapshotEvent> {
  const { runtime } = state;
  // Taken before reading the store: an event after it may repeat a message the store already
  // had (never the reverse, which would lose it).
  const seq = state.newestSeq;
  const [records, pendingApprovals, pendingQuestions, session] = await Promise.all([
    runtime.store.load(sessionId, { sinceLastReset: true }),
    runtime.pendingApprovals({ sessionId }),
    runtime.pendingQuestions?.({ sessionId }),
    runtime.store.getSession(sessionId),
  ]);
  const frames: Record<string, Message[]> = {};
  const artifacts: Artifact[] = [];
  for (const item of records) {
    const artifact = artifactOf(sessionId, item);
    if (artifact) artifacts.push(artifact);
    if (item.kind === "message" && item.frame !== null) (frames[item.frame] ??= []).push(item.message);
  }
  const conversation = conversationOf(records);
  const task = session && taskOf(session);
  const role = session?.attributes?.role;
  return {
    type: "session_snapshot",
    sessionId,
    seq,
    ts: Date.now(),
    messages: conversation.map((record) => record.message),
    messageIds: conversation.map(messageIdOf),
    frames,
    pendingApprovals,
    ...(pendingQuestions && { pendingQuestions }),
    runningRunId: state.running.get(sessionId) ?? null,
    ...(task && { task }),
    role: typeof role === "string" ? role : null,
    artifacts,
  };
}

/** The task a session holds, from the attributes the task API keeps on it. */
function taskOf(session: SessionSummary): SessionSnapshotEvent["task"] {
  const { taskId, taskStatus, planArtifactId } = session.attributes ?? {};
  if (typeof taskId !== "string" || typeof taskStatus !== "string") return undefined;
  return { taskId, status: taskStatus as TaskStatus, ...(typeof planArtifactId === "string" && { planArtifactId }) };
}

/** The artifact an `artifact` record (stored by `create_artifact`) holds. */
function artifactOf(sessionId: string, record: HistoryRecord): Artifact | undefined {
  const item: { kind: string; artifactId?: unknown; filename?: unknown; artifactKind?: unknown; content?: unknown } =
    record;
  if (item.kind !== "artifact" || typeof item.artifactId !== "string" || typeof item.filename !== "string")
    return undefined;
  if (typeof item.artifactKind !== "string" || typeof item.content !== "string") return undefined;
  const { artifactId, filename, artifactKind: kind, content } = item;
  return { artifactId, sessionId, filename, kind, content, createdAt: record.at };
}

/** Throws an `InvalidArgumentError` unless `id` is a string, `null` or `undefined` (a bare `seq` number included). */
function checkLastEventId(id: unknown): void {
  if (id === undefined || id === null || typeof id === "string") return;
  const got =
    typeof id === "number"
      ? `the number ${id} (a bare seq cannot tell this process from one before a restart)`
      : typeof id;
  throw new InvalidArgumentError(
    `createEventLog().resume: lastEventId must be the Last-Event-ID string the client sent (an id from log.eventId), null or undefined; got ${got}`,
  );
}

/** Throws `SessionNotFoundError` unless the session exists within the guard (no guard: nothing is checked here). */
async function checkGuard(state: LogState, { sessionId, scope, scopePrefix }: ResumeOptions): Promise<void> {
  const filter = tenantGuardFilter("createEventLog().resume", { scope, scopePrefix });
  if (filter.kind === "any") return;
  const session = await state.runtime.store.getSession(sessionId);
  if (!session || !matchesScopeFilter(session.scope, filter))
    throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
}

/**
 * One `resume`: the missed events (or a snapshot), then live ones until the turn ends, the reader stops or the log
 * closes.
 */
async function* resumeSession(state: LogState, options: ResumeOptions): AsyncGenerator<ResumedEvent, void, undefined> {
  const { sessionId, lastEventId, follow = "turn" } = options;
  if (state.closed) return;
  await checkGuard(state, options);
  if (state.closed) return;
  const queue = new AsyncQueue<RuntimeEvent>();
  let overflowed = false;
  let ended = false;
  const subscriber: Subscriber = (event) => {
    if (event.sessionId !== sessionId || overflowed) return;
    if (queue.size >= state.capacity) {
      // Too far behind: drop what is queued, and resynchronise with a snapshot.
      overflowed = true;
      while (queue.take() !== undefined);
      queue.notify();
    } else queue.push(event);
  };
  const end = () => {
    ended = true;
    queue.notify();
  };
  state.subscribers.add(subscriber);
  state.closers.add(end);
  // What was delivered: the newest place in this log, and the newest `seq` of this log's own
  // events (those replayed from the store have no place).
  const seen = { ordinal: 0, seq: 0 };
  const isNew = (event: RuntimeEvent): boolean => {
    const ordinal = state.ordinals.get(event);
    if (ordinal !== undefined && ordinal <= seen.ordinal) return false;
    // This log's own events; those of earlier logs and of other processes keep ids of their own.
    const own = state.storedIds.get(event) === undefined;
    if (own && event.seq <= seen.seq) return false;
    if (ordinal !== undefined) seen.ordinal = ordinal;
    if (own) seen.seq = event.seq;
    return true;
  };
  const resync = async (): Promise<SessionSnapshotEvent> => {
    // Taken with the snapshot's `seq`, before the store is read (see snapshot).
    const ordinal = state.count;
    const fresh = await snapshot(state, sessionId);
    seen.ordinal = ordinal;
    seen.seq = fresh.seq;
    return fresh;
  };
  try {
    const replay = replayAfter(state, sessionId, lastEventId, (event) => idOf(state, event));
    const stored = replay ? undefined : await storedAfter(state, sessionId, lastEventId);
    if (replay) {
      // A resume reads the ring synchronously, so queue holds only later events.
      seen.ordinal = replay.after;
      for (const event of replay.missed) if (isNew(event)) yield event;
    } else if (stored) {
      // Stored events first (of earlier processes, then of this log), then what this log holds
      // and has not stored yet.
      for (const event of stored) if (isNew(event)) yield event;
      for (const event of sessionEvents(state, sessionId)) if (isNew(event)) yield event;
    } else yield await resync();
    const waitingFor = state.running.get(sessionId);
    for (;;) {
      if (overflowed) {
        overflowed = false;
        yield await resync();
        continue;
      }
      const event = queue.take();
      if (event) {
        if (!isNew(event)) continue;
        yield event;
        if (follow === "turn" && event.type === "done" && (waitingFor === undefined || event.runId === waitingFor))
          return;
        continue;
      }
      if (ended || state.closed) return;
      if (follow === "turn" && waitingFor === undefined) return;
      await queue.wait();
    }
  } finally {
    state.subscribers.delete(subscriber);
    state.closers.delete(end);
  }
}
