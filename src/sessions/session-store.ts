import type { Message } from "../messages/message.js";
import type { ApprovalRequest, LoopStatus } from "../loop/loop-types.js";

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
export interface MessageRecord extends RecordBase { kind: "message"; message: Message }
/** Context starts after the last reset marker. */
export interface ResetRecord extends RecordBase { kind: "reset"; summary?: string }
/** Start or end of a turn. */
export interface TurnRecord extends RecordBase { kind: "turn"; runId: string; phase: "start" | "end"; status?: LoopStatus }
/** An approval request, and later its decision (a second record with the same request). */
export interface ApprovalRecord extends RecordBase {
  kind: "approval";
  request: ApprovalRequest;
  decision?: "approved" | "denied";
  reason?: string;
  runId?: string;
}
/** One entry of a session's append-only log. */
export type HistoryRecord = MessageRecord | ResetRecord | TurnRecord | ApprovalRecord;
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

/** True when the store implements `prune`. */
export function isPrunableSessionStore(store: SessionStore): store is PrunableSessionStore {
  return typeof (store as Partial<PrunableSessionStore>).prune === "function";
}
