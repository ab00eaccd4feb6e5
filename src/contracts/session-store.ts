import type { AuditEntry } from "./audit-entry.js";
import type { CompactionSource } from "./compaction.js";
import type { ApprovalRequest, LoopStatus } from "./loop-result.js";
import type { TaskStatus } from "./loop-event.js";
import type { JsonSchema, JsonValue } from "./json-schema.js";
import type { Message, ToolResultPart, UserMessage } from "./message.js";
import type { ChatContext } from "./tool-policy.js";

/** A session as listed: metadata only, no history. */
export interface SessionSummary {
  sessionId: string;
  agentId: string;
  /**
   * The tenant / end user the session belongs to (any string the host chooses, e.g. a user id).
   * Set at creation, never changed. Unset = the unscoped space (single-user apps). Scope is a
   * security boundary: routing, delegation and notices never cross it.
   */
  scope?: string;
  name?: string;
  /** When set, the session is pinned in the UI (timestamp of pinning). */
  pinnedAt?: string;
  createdAt: string;
  updatedAt: string;
  lastSnippet?: string;
  attributes?: Record<string, unknown>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Fields every history record has. */
export interface RecordBase {
  /** Idempotency key: appending a record whose id is stored already is a no-op. */
  id: string;
  /** Order within the session, assigned by the store, strictly increasing. */
  seq: number;
  /** ISO timestamp assigned by the store. */
  at: string;
  /** null for the root conversation, else the toolCallId of the `run_subtask` it belongs to. */
  frame: string | null;
}

/** A conversation message. */
export interface MessageRecord extends RecordBase {
  kind: "message";
  message: Message;
  /**
   * The message's id as the host knows it (`SendInput.messageId`, a UI's own id), when it has one:
   * a message's id is this, else the record's `id`. Several records may carry one id (an edit that
   * kept its message's id); at most one of them is in the model's context at a time.
   * @default undefined (the message's id is the record's `id`)
   */
  messageId?: string;
}

/** Context starts after the last reset marker. */
export interface ResetRecord extends RecordBase {
  kind: "reset";
  summary?: string;
}

/** A tool call that ran after a rewind point (see {@link RewindRecord}): its effects were not undone. */
export interface RewoundToolCall {
  toolCallId: string;
  /** The tool's name as the model called it. */
  tool: string;
  /** The run the call ended in. */
  runId: string;
  /** 0 at the root; calls inside sub-tasks are deeper. */
  depth: number;
}

/**
 * The model's context resumes before a message (`runtime.rewind`, `SendInput.editOf`,
 * `SendInput.regenerate`): that message and every root message after it leave the context; nothing
 * is deleted (the log keeps them, and their audit entries). Written in the root frame.
 */
export interface RewindRecord extends RecordBase {
  kind: "rewind";
  /** The id of the message the context resumes before (its `messageId`, else its record id). */
  before: string;
  /** The `seq` of that message's record. */
  beforeSeq: number;
  /**
   * Tool calls that ran (allowed or approved) after that message, oldest first, at most 200 (the
   * rest are counted in `toolCallsOmitted`): a rewind hides them from the model, it does not undo them.
   */
  toolCalls: RewoundToolCall[];
  /** How many more calls ran than `toolCalls` lists. @default undefined (none) */
  toolCallsOmitted?: number;
  /** What rewound: `runtime.rewind`, an edit (`editOf`) or a regeneration (`regenerate`). */
  cause: "rewind" | "edit" | "regenerate";
}

/**
 * The model's context was compacted: from here on it starts with `summary`, then the root messages
 * stored at or after `keptFromSeq`, then what follows this record. Nothing is removed from the log
 * (`load` still returns every message). Written in the root frame.
 */
export interface CompactionRecord extends RecordBase {
  kind: "compaction";
  /** What replaces the older messages in the model's context (bounded, never empty). */
  summary: string;
  /** Root messages stored at or after this `seq` stay verbatim. @default undefined (none of the earlier ones) */
  keptFromSeq?: number;
  source: CompactionSource;
  /** Estimated context size before and after (the system prompt and the messages). */
  tokensBefore: number;
  tokensAfter: number;
  /** Root messages the summary replaced. */
  summarizedMessages: number;
  /** The turn that compacted before its first model call; absent for `runtime.compact`. */
  runId?: string;
  /** `runtime.compact`'s instructions. */
  instructions?: string;
}

/** Start or end of a turn. */
export interface TurnRecord extends RecordBase {
  kind: "turn";
  runId: string;
  phase: "start" | "end";
  status?: LoopStatus;
}

/** An approval request, and later its decision (a second record with the same request). */
export interface ApprovalRecord extends RecordBase {
  kind: "approval";
  request: ApprovalRequest;
  decision?: "approved" | "denied";
  reason?: string;
  runId?: string;
  /** On a decision: unique per decider, so each can tell whether its decision was the one stored. */
  decisionId?: string;
  /** On the decision of an `ask_user` question or a client tool call: the answer, the call's result. */
  answer?: unknown;
  /**
   * On a decision whose `answer` is an error result (a waited agent that did not complete, a
   * client tool call the client reported as failed).
   */
  answerIsError?: true;
  /** On the request of a client tool call (`request.client`): the tool's output schema, checked by `submitToolResult`. */
  outputSchema?: JsonSchema;
  /** On the request of the runtime's `ask_user` tool: it is a question (`answerQuestion`), not an approval. */
  question?: true;
}

/**
 * A tool call's result, stored as soon as the call finished (before the batch's `tool` message),
 * so a crash or a suspension never runs a finished call again. `frame` is the call's frame.
 */
export interface ToolResultRecord extends RecordBase {
  kind: "tool_result";
  runId: string;
  toolCallId: string;
  result: ToolResultPart;
}

/**
 * Tool calls about to run, stored (fenced by the turn's lease, one record for the calls that start
 * together) before their tools are called: after a crash, a call whose start is stored may have
 * taken effect; a call without one never ran, and the next runtime runs it. Root frame; the ids
 * are unique within the turn at every depth. Written only by turns on stores with leases (their
 * turn start says so: `recordsStarts`).
 */
export interface ToolStartRecord extends RecordBase {
  kind: "tool_start";
  runId: string;
  toolCallIds: string[];
}

/**
 * One audited tool call (see {@link AuditEntry}), stored as the call ends. Not part of any
 * conversation: the history the model sees leaves it out. `frame` is the call's frame.
 */
export interface AuditRecord extends RecordBase {
  kind: "audit";
  entry: AuditEntry;
}

/**
 * A session switched roles (`setRole`, an approved `request_build_mode`, a task's review); the next turn runs in
 * `role`. Written in the root frame.
 */
export interface RoleRecord extends RecordBase {
  kind: "role";
  role: string;
  /** The role before, or null when the session had none recorded. */
  from: string | null;
}

/**
 * An artifact stored by `create_artifact`; `artifactKind` is the artifact's own kind (e.g. `"plan"`). `frame` is the
 * call's frame.
 */
export interface ArtifactRecord extends RecordBase {
  kind: "artifact";
  artifactId: string;
  filename: string;
  artifactKind: string;
  content: string;
  runId: string;
}

/**
 * A task's transition (`runtime.tasks`). Its id is fixed by the task's version, so of two
 * concurrent transitions from one state only the first is stored; `marker` tells the writer
 * whether the stored record is its own. Written in the root frame.
 */
export interface TaskRecord extends RecordBase {
  kind: "task";
  taskId: string;
  /** null on the task's first record. */
  from: TaskStatus | null;
  to: TaskStatus;
  /** Unique per writer of the transition. @default undefined (the first record) */
  marker?: string;
  /** On the move to review: the plan artifact the reviewer is shown. */
  planArtifactId?: string;
  /** On the move to executing: the actor agent's session (`TaskCreateInput.actorAgentId`). */
  actorSessionId?: string;
  /** The host's context for the task's turns from here on (`tasks.create`, `tasks.approve`). */
  context?: JsonValue;
}

/**
 * A stored model call: what one request to the provider was, stored with the assistant message it
 * produced (same append). `systemDigest` / `toolsDigest` name {@link PromptRecord}s holding the
 * system prompt and the tools offered, stored once per session per digest. `frame` is the level's.
 */
export interface ModelCallRecord extends RecordBase {
  kind: "model_call";
  runId: string;
  /** Unique within the turn. */
  callId: string;
  /** The id of the message record of the response (absent when the call produced none). */
  messageId?: string;
  model: string;
  provider: string;
  startedAt: string;
  durationMs: number;
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  costUsd?: number;
  messagesCount: number;
  systemDigest: string;
  toolsDigest: string;
  /** Set when the call failed. */
  error?: string;
}

/**
 * The content a {@link ModelCallRecord} points at by digest: a system prompt or a tool list (`id` = `prompt:<digest>`).
 * Root frame.
 */
export interface PromptRecord extends RecordBase {
  kind: "prompt";
  digest: string;
  system?: string;
  tools?: { name: string; description: string; inputSchema: unknown }[];
}

/**
 * A message sent with `ifBusy: "steer"` while a turn of the session ran (in any process), stored
 * by the sender before `send` waits. The turn running then reads it at its next step boundary and
 * stores it as a root user message (a `message` record with `steerOf` set to this record's id,
 * under `messageId`); one that no turn read runs as the next turn, like a queued message. Root frame.
 */
export interface SteerRecord extends RecordBase {
  kind: "steer";
  message: UserMessage;
  /** The id the message's own `message` record gets once a turn reads it. */
  messageId: string;
  /** The run id of the turn the message runs as when no running turn read it. */
  runId: string;
}

/**
 * A request to stop the turn `runId` (`runtime.stopTurn`, or `ifBusy: "interrupt"`), stored by
 * a process that does not run it: the process that runs the turn sees it through a `"stop"`
 * signal, or, when the signal was lost, at the turn's next step boundary. Root frame.
 */
export interface StopRecord extends RecordBase {
  kind: "stop";
  runId: string;
  /** Stored on the stopped turn's end record and reported as its `TurnResult.reason`. */
  reason: string;
}

/**
 * A message that waits behind a pending decision (`SendInput.ifPending: "queue"`), stored before
 * `send` / `stream` returned `"queued"`. It runs later, in arrival order, as the turn `runId`, in
 * whichever process next finds the session free of decisions; that turn's start and its user
 * message are stored then, so the conversation shows the message once, where it ran. A record id
 * of `queued:<runId>` makes storing it twice (a retried send with the same `runId`) a no-op.
 * Root frame. A reset (`clear`) drops the queued messages stored before it.
 */
export interface QueuedRecord extends RecordBase {
  kind: "queued";
  /** The run id of the turn that will run it (the sender's `runId`, else a new UUID). */
  runId: string;
  message: UserMessage;
  /** The host's id for the message (`SendInput.messageId`), stored with it when its turn runs. */
  messageId?: string;
  chatContext?: ChatContext;
  /** The host's context of the turn (`SendInput.context`). */
  context?: JsonValue;
  /** The JSON Schema form of the turn's `outputSchema`. */
  outputSchema?: JsonSchema;
}

/**
 * One entry of a session's append-only log: the runtime's own kinds. Every store also keeps records
 * of further kinds (a host's own) as JSON and hands them back as they were appended; they are not
 * members here, because a member with an open `kind: string` would stop every `record.kind` check
 * from narrowing.
 */
export type HistoryRecord =
  | MessageRecord
  | ResetRecord
  | RewindRecord
  | CompactionRecord
  | TurnRecord
  | ApprovalRecord
  | ToolResultRecord
  | ToolStartRecord
  | AuditRecord
  | RoleRecord
  | ArtifactRecord
  | TaskRecord
  | ModelCallRecord
  | PromptRecord
  | SteerRecord
  | StopRecord
  | QueuedRecord;

/** A record before the store stamps `seq` and `at`. */
export type NewRecord = DistributiveOmit<HistoryRecord, "seq" | "at">;

/** Options of {@link SessionStore.load}. */
export interface LoadOptions {
  /** Only records with `seq` greater than this. */
  afterSeq?: number;
  /**
   * Only records after the last `reset` marker (the marker excluded) among the records of the
   * requested frame (of every frame when `frame` is omitted). Combines with `afterSeq`: the later
   * of the two bounds wins.
   */
  sinceLastReset?: boolean;
  /** Only records of this frame (`null` = root). Omitted = every frame. */
  frame?: string | null;
}

/** What {@link SessionStore.createSession} takes. */
export interface CreateSessionInit {
  agentId: string;
  /** The tenant / end user; omitted = unscoped. */
  scope?: string;
  name?: string;
  attributes?: Record<string, unknown>;
  sessionId?: string;
}

/** What {@link SessionStore.listSessions} takes. */
export interface ListSessionsQuery {
  agentId?: string;
  /** Exact match; `null` = only unscoped sessions; omitted = sessions of every scope. */
  scope?: string | null;
  /**
   * Only sessions that have a scope starting with this string: a plain prefix, compared
   * character by character (`%`, `_`, `*`, `\` are literal). Tenants that nest put a separator
   * in their ids (`"acme/"` matches `"acme/alice"`, not `"acme2/bob"`; `"acme"` matches both).
   * `""` matches every scoped session; unscoped sessions never match (list them with
   * `scope: null`). Giving `scope` too → `InvalidArgumentError`. Stores that index scopes (memory,
   * SQLite, Postgres) answer it from the index: the cost grows with the sessions of the matching
   * scopes, not with the sessions stored.
   * @default undefined (no prefix filter)
   */
  scopePrefix?: string;
  limit?: number;
}

/** What {@link ApprovalIndexStore.listPendingApprovals} takes. */
export interface ListPendingApprovalsQuery {
  /** Exact match; `null` = only unscoped sessions; omitted = every scope. */
  scope?: string | null;
  /**
   * Only sessions that have a scope starting with this string, as {@link ListSessionsQuery.scopePrefix}.
   * Giving `scope` too → `InvalidArgumentError`.
   * @default undefined (no prefix filter)
   */
  scopePrefix?: string;
  /** That session's requests only. */
  sessionId?: string;
  /** @default all */
  limit?: number;
}

/**
 * Where sessions live: one append-only log per session plus its metadata.
 * Implementations must pass `runSessionStoreContract` from `@agentry/core/testing`.
 */
export interface SessionStore {
  /** Creates a session (id generated unless given). An explicit `sessionId` in use → `InvalidArgumentError`. */
  createSession(init: CreateSessionInit): Promise<SessionSummary>;
  /** The session, or `undefined` when there is none with this id. */
  getSession(sessionId: string): Promise<SessionSummary | undefined>;
  /**
   * Ordered by `updatedAt`, newest first; sessions touched in the same millisecond still in touch
   * order. `scope`: exact match; `null` = only unscoped sessions; omitted = every scope.
   * `scopePrefix`: sessions whose scope starts with it (see {@link ListSessionsQuery.scopePrefix}).
   */
  listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]>;
  /**
   * Sets the given metadata fields and bumps `updatedAt`. A field given as `undefined` is removed;
   * `attributes` replaces the whole object. Unknown session → `SessionNotFoundError`.
   */
  updateSession(
    sessionId: string,
    patch: Partial<Pick<SessionSummary, "name" | "pinnedAt" | "attributes" | "lastSnippet">>,
  ): Promise<SessionSummary>;
  /** Removes the session and its history. Deleting an unknown session is a no-op. */
  deleteSession(sessionId: string): Promise<void>;
  /**
   * Atomic, ordered, idempotent by record id; bumps `updatedAt` when something was stored. Returns
   * the stored records, the already stored one in place of each duplicate. An invalid record →
   * `InvalidArgumentError` and nothing stored; unknown session → `SessionNotFoundError`.
   */
  append(sessionId: string, records: NewRecord[]): Promise<HistoryRecord[]>;
  /** Records in `seq` order, as plain JSON. Unknown session → `SessionNotFoundError`. */
  load(sessionId: string, options?: LoadOptions): Promise<HistoryRecord[]>;
  /** Appends a reset marker: context starts after it; metadata is kept. */
  clear(sessionId: string): Promise<void>;
}

/** A store that can drop old sessions (optional capability). */
export interface PrunableSessionStore extends SessionStore {
  prune(options: { olderThan: string }): Promise<number>;
}

/** A lease on a session, as granted by {@link LeasableSessionStore.acquireLease}. */
export interface SessionLease {
  /**
   * The fencing token: greater than every token granted before for this session. Pass it to
   * `append`; once another holder got a newer one, appends with this token are refused.
   */
  token: number;
  /** When the lease runs out unless renewed (ISO). */
  expiresAt: string;
}

/** Options of {@link LeasableSessionStore.append}. */
export interface AppendOptions {
  /**
   * Fence the append: it is refused with `LeaseLostError` (nothing stored) unless this is the
   * session's newest lease token. Omitted = no fencing (writes outside a lease).
   */
  leaseToken?: number;
}

/** Options of {@link LeasableSessionStore.acquireLease}. */
export interface AcquireLeaseOptions {
  /** Who asks (one id per runtime instance). */
  owner: string;
  /** How long the lease lasts unless renewed. */
  ttlMs: number;
  /**
   * Queue for the lease in arrival order: a caller that keeps asking with the same ticket (one
   * per wait) while the lease is held is served before any caller that started asking later.
   * A ticket not asked with again for `ttlMs` (its process died) loses its place.
   * @default no ticket: served only when nobody is queued
   */
  ticket?: string;
}

/**
 * A store that can lease a session to one runtime at a time, across processes (optional
 * capability; SQLite and Postgres implement it). The runtime holds the lease while it runs a turn,
 * so two runtimes never run turns of one session at once; the fencing token keeps a holder whose
 * lease ran out (a paused process) from writing after another took over.
 *
 * Every method is async so that a SQL implementation can run one statement or transaction each.
 */
export interface LeasableSessionStore extends SessionStore {
  /**
   * Takes the session's lease for `ttlMs` when nobody else holds it (no lease, a released or an
   * expired one, or one of the same `owner`) and no earlier ticket is queued for it (see
   * {@link AcquireLeaseOptions.ticket}); else `undefined`. Each grant has a new, greater token.
   * Unknown session → `SessionNotFoundError`.
   */
  acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<SessionLease | undefined>;
  /** Extends a held lease by `ttlMs` from now; `undefined` when `token` is no longer the session's newest. */
  renewLease(sessionId: string, token: number, options: { ttlMs: number }): Promise<SessionLease | undefined>;
  /** Gives the lease up (a no-op unless `token` is the session's newest). */
  releaseLease(sessionId: string, token: number): Promise<void>;
  /** As {@link SessionStore.append}, fenced by `options.leaseToken` (see {@link AppendOptions}). */
  append(sessionId: string, records: NewRecord[], options?: AppendOptions): Promise<HistoryRecord[]>;
}

/**
 * A signal one process sends to every process that shares the store (see
 * {@link SignalingSessionStore}). Signals are hints, delivered at most once and possibly never (a
 * dropped connection, a crash): a subscriber re-reads the store, which stays the truth.
 *
 * A store may deliver a resync signal, `key` `""` (no session has the empty id) with
 * `data: { resync: true }`, when it may have lost signals (its listening connection came up, or
 * back after a drop): every key of the topic may have changed, re-read what you wait on.
 */
export interface StoreSignal {
  /**
   * What happened. The runtime's topics: `"session"` (something a waiter may care about was
   * stored in session `key`: a decision, a queued message, a turn's end, a released lease),
   * `"stop"` (stop the turn running in session `key`), `"event"` (a live event).
   */
  topic: string;
  /** What it concerns (a session id for the runtime's topics). */
  key: string;
  /** A small JSON payload: the signal's JSON takes at most 7,000 bytes of UTF-8 (`MAX_STORE_SIGNAL_BYTES`). */
  data?: JsonValue;
}

/**
 * A store that carries signals between the processes that share it (optional capability), so that
 * nothing waits on a fixed poll: PostgreSQL with `LISTEN/NOTIFY` (one listening connection per
 * store object), SQLite with a change signal on the file. A store without it still gets signals
 * between the runtimes of one process (see `GuardedSessionStore`).
 */
export interface SignalingSessionStore extends SessionStore {
  /** Sends `signal` to every subscriber of its topic, in every process (this one included). */
  notify(signal: StoreSignal): Promise<void>;
  /** Calls `listener` for every signal on `topic`, from any process, until the returned function is called. */
  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void;
}

/** An approval request as an {@link ApprovalIndexStore} indexes it. */
export interface IndexedApproval {
  requestId: string;
  sessionId: string;
  agentId: string;
  scope?: string;
  /** The stored request record. */
  request: ApprovalRecord;
  /** Whether a decision record for it is stored (or a reset / deletion retired it). */
  decided: boolean;
}

/**
 * A store that indexes approval requests as they are appended (optional capability): finding
 * one request, and listing the undecided ones, cost the same with 20 sessions as with 20,000.
 * The index is kept by `append` itself: an `approval` record without a decision adds a pending
 * entry, one with a decision marks it decided, in the same transaction; a root `reset` retires
 * the session's pending entries and deleting a session drops its entries.
 *
 * Deciding exactly once needs nothing more: the decision record's id is `<requestId>:decision`
 * and append is idempotent by id, so of several concurrent decisions exactly one is stored, and
 * each writer sees in `append`'s result whether its own record (e.g. a unique `decisionId` field)
 * was the one kept.
 */
export interface ApprovalIndexStore extends SessionStore {
  /** The request with this id, decided or not; `undefined` when no store session has it. */
  findApproval(requestId: string): Promise<IndexedApproval | undefined>;
  /**
   * Undecided requests, oldest first. `scope`: exact match, `null` = unscoped sessions only,
   * omitted = every scope; `scopePrefix`: sessions whose scope starts with it, from the index
   * (no session is read); `sessionId`: that session only.
   */
  listPendingApprovals(query?: ListPendingApprovalsQuery): Promise<IndexedApproval[]>;
}

/**
 * Which session a message goes to:
 * - `"latest"`: the agent's most recently updated session; it must exist.
 * - `"create"`: always a new session.
 * - `"latest-or-create"`: the most recently updated session, or a new one when the agent has none.
 * - any other string: that session id; it must exist, be in the caller's scope and belong to the agent.
 */
export type SessionSelector = "latest" | "create" | "latest-or-create" | (string & {});
