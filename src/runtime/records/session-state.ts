import type { Message, ToolCallPart, ToolResultPart } from "../../contracts/message.js";
import type {
  ApprovalRecord,
  CompactionRecord,
  HistoryRecord,
  QueuedRecord,
  RewindRecord,
  SteerRecord,
  TurnRecord,
} from "../../contracts/session-store.js";
import type { ChatContext } from "../../contracts/tool-policy.js";
import type { JsonSchema, JsonValue } from "../../contracts/json-schema.js";
import type { ExecutionTreeSnapshot } from "../../contracts/execution-tree.js";
import type { LoopResult } from "../../contracts/loop-result.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import { callsTogetherOrder, messageIdOf } from "../../sessions/conversation.js";
import { rewoundHistory, type StateMessageRef } from "./rewind.js";
import { compactedHistory, firstAtOrAfter } from "./compaction-state.js";

/** The resume material stored on the end record of a suspended turn (an extra field of that record). */
export interface StoredResume {
  results: Record<string, ToolResultPart>;
}

/**
 * Who waits on a turn's answer: the session whose sync `agents_message` call started it, and the
 * id that call's wait gets when this turn suspends (so the answer can be handed back once the
 * suspension is decided, from any process).
 */
export interface TurnWaiter {
  sessionId: string;
  agentId: string;
  requestId: string;
}

/** A turn record as the runtime writes it (extra optional fields are allowed on records). */
export type RuntimeTurnRecord = TurnRecord & {
  resumeOf?: string;
  resume?: StoredResume;
  chatContext?: ChatContext;
  /** On a turn start: the host's context of the turn (`SendInput.context`; a resumed turn's start repeats it). */
  context?: JsonValue;
  /** On a turn start: the agent sessions waiting on this turn's answer through `agents_message` (see `TurnWaiter`). */
  waiter?: TurnWaiter;
  /** On a turn start: the JSON Schema form of the turn's `outputSchema`, so a resumed turn keeps it. */
  outputSchema?: JsonSchema;
  /** On a turn start: the turn's number in the session (`RuntimeEventLabels.turn`; a resumption repeats it). */
  turn?: number;
  /** On a turn start: the turn stores a `tool_start` record before each tool call runs (stores with leases). */
  recordsStarts?: true;
  /**
   * On the end of a turn that did not complete: what it had done (kept, so a resumed or inspected session shows it).
   */
  executionTree?: ExecutionTreeSnapshot;
  /** On the end of a turn that did not complete: why. */
  error?: LoopResult["error"];
  /** On the end of a turn the runtime stopped: why (e.g. `"role_changed"`). */
  reason?: string;
  /** On a turn end: the turn's usage (so a turn sent again under its run id reports it). */
  usage?: LoopResult["usage"];
};
/** A message record as the runtime writes it: a steered message names the `steer` record it came from. */
export type RuntimeMessageRecord = Extract<HistoryRecord, { kind: "message" }> & {
  /** On the root user message of a steered message: the id of its `steer` record. */
  steerOf?: string;
};

/** A runtime message record before the store stamps it. */
export type NewRuntimeMessageRecord = Omit<RuntimeMessageRecord, "seq" | "at">;

/** A message steered into a session (`ifBusy: "steer"`), and the turn that took it (read it, or ran it). */
export interface SteerState {
  record: SteerRecord;
  /** The run that took the message: read it at a step boundary, or ran it as its input. */
  takenBy: string | undefined;
}

/** A runtime turn record before the store stamps it. */
export type NewRuntimeTurnRecord = Omit<RuntimeTurnRecord, "seq" | "at">;

/** What the records of a session (since its last reset) say about it. */
export interface SessionState {
  /** Root-frame messages, in order. */
  history: Message[];
  /** Where each message of `history` is in the log (its id, `seq`, tokens, turn), index for index. */
  messageRefs: StateMessageRef[];
  /** `estimateMessageTokens` summed over `history`. */
  historyTokens: number;
  /** Child conversations of the current turn chain, by `run_subtask` call id. */
  frames: Record<string, Message[]>;
  /** A turn that started and never ended (the process died). */
  openTurn: string | undefined;
  /** Whether {@link openTurn} stores its tool calls' starts (so a call without one never ran). */
  openTurnRecordsStarts: boolean;
  /** Tool calls of the current turn chain whose start was stored (`tool_start`), by toolCallId. */
  started: Set<string>;
  /** The suspended turn, if the last turn ended suspended. */
  suspended: { runId: string; results: Record<string, ToolResultPart> } | undefined;
  /** Approval requests of the suspended turn with no decision yet. */
  pending: ApprovalRecord[];
  /** Decisions recorded since the turn chain started, by toolCallId. */
  decisions: Map<string, ApprovalRecord>;
  /** Every approval request id seen, with its decision record if any. */
  approvals: Map<string, { request: ApprovalRecord; decision: ApprovalRecord | undefined }>;
  /** Chat context stored on the turn starts of the current chain, by run id and by resumed run id. */
  chatContexts: Map<string, ChatContext>;
  /** Host context stored on the current chain's turn starts, by run id (and by resumed run id). */
  hostContexts: Map<string, JsonValue>;
  /** The run id of the current chain's first turn (the one a resumption continues), if any. */
  chainRunId: string | undefined;
  /** Who waits on the current chain's answer (stored on its first turn's start). */
  waiter: TurnWaiter | undefined;
  /** The output schema (JSON Schema form) stored on the start of the current chain's first turn. */
  outputSchema: JsonSchema | undefined;
  /** Results of the current turn chain's tool calls, stored as each call finished, by toolCallId. */
  toolResults: Record<string, ToolResultPart>;
  /** The role of the last `role` record since the last reset (undefined: none recorded). */
  role: string | undefined;
  /**
   * The most recent turns (at most {@link RECENT_RUNS}, resets included), by run id, in order:
   * how each ended, `null` while open. Lets a turn sent again under its `runId` (a retried
   * dispatch job) be recognised without reading the whole log.
   */
  runs: Map<string, string | null>;
  /** The number of the latest turn started since the last reset (`RuntimeEventLabels.turn`); 0 before the first. */
  turn: number;
  /**
   * Messages steered into the session (`steer` records) since the last reset, by record id: every
   * one no turn took yet, and at most {@link RECENT_RUNS} taken ones (oldest dropped first).
   */
  steers: Map<string, SteerState>;
  /**
   * Where the turns in the context start (at most {@link MAX_TURN_STARTS}, oldest first): the `seq`
   * of each turn chain's start record since the last reset or compaction (a compaction's kept turns
   * included), and the index in `history` of the first root message stored after it. A compaction
   * cuts the history at one of them.
   */
  turnStarts: { seq: number; index: number }[];
  /** Stored queued messages (`ifPending: "queue"`) whose turn has not started, in arrival order. */
  queued: QueuedRecord[];
  /** The queued message whose turn started and never ended (its process died): it is continued, never run again. */
  openQueued: QueuedRecord | undefined;
}

/** Turn starts {@link SessionState.turnStarts} remembers (the most turns a compaction keeps, and one). */
export const MAX_TURN_STARTS = 101;

/** Turns {@link SessionState.runs} remembers. */
export const RECENT_RUNS = 64;

/**
 * Reads a session's records into its current state, incrementally: `apply` the records as they
 * come (a whole `sinceLastReset` load, then only what was appended after `lastSeq`), and take
 * `state()` whenever a turn needs it. Records at or below `lastSeq` are ignored, so applying an
 * overlapping load twice changes nothing. Also keeps the root history's token estimate
 * (`estimateMessageTokens` summed), so checking the emergency limit never walks the history.
 */
export class SessionStateReader {
  lastSeq = 0;
  /** Sum of `estimateMessageTokens` over the root history. */
  historyTokens = 0;
  #history: Message[] = [];
  /** The refs of `#history`'s messages, index for index. */
  #refs: StateMessageRef[] = [];
  /** The `seq` of the start record of each turn chain in the context (see `SessionState.turnStarts`). */
  #turnStarts: number[] = [];
  #frames: Record<string, Message[]> = {};
  #openTurn: string | undefined;
  #openTurnRecordsStarts = false;
  #started = new Set<string>();
  #suspended: SessionState["suspended"];
  #decisions = new Map<string, ApprovalRecord>();
  #approvals = new Map<string, { request: ApprovalRecord; decision: ApprovalRecord | undefined }>();
  /** Chat context of each turn of the current chain, by run id (and by the run id it resumes). */
  #chatContexts = new Map<string, ChatContext>();
  #hostContexts = new Map<string, JsonValue>();
  #chainRunId: string | undefined;
  #waiter: TurnWaiter | undefined;
  #outputSchema: JsonSchema | undefined;
  /** A root message was recorded between an assistant's tool calls and their results. */
  #unordered = false;
  #toolResults = byId<ToolResultPart>();
  #role: string | undefined;
  #runs = new Map<string, string | null>();
  #turn = 0;
  #steers = new Map<string, SteerState>();
  #takenSteers = 0;
  /** Where the root history stood when the current turn chain started (a turn blocked at its input is taken back). */
  #chainStart: { runId: string; length: number; tokens: number } | undefined;
  /** Queued messages by run id, in arrival order: not started, or started until their turn (or its continuation) ends. */
  #queued = new Map<string, { record: QueuedRecord; started: boolean; ended: boolean }>();

  apply(records: readonly HistoryRecord[]): void {
    for (const record of records) {
      if (record.seq <= this.lastSeq) continue;
      this.lastSeq = record.seq;
      switch (record.kind) {
        case "role":
          // A record of another writer may lack the role.
          if (typeof record.role === "string") this.#role = record.role;
          break;
        case "reset":
          this.#reset();
          break;
        case "compaction":
          this.#applyCompaction(record);
          break;
        case "message":
          this.#message(record);
          break;
        case "steer":
          if (!this.#steers.has(record.id)) this.#steers.set(record.id, { record, takenBy: undefined });
          break;
        case "turn":
          this.#turnRecord(record);
          break;
        case "tool_result":
          this.#toolResults[record.toolCallId] = record.result;
          break;
        case "rewind":
          this.#rewind(record);
          break;
        case "tool_start":
          // A record of another writer may lack the ids.
          if (Array.isArray(record.toolCallIds)) for (const id of record.toolCallIds) this.#started.add(id);
          break;
        case "approval": {
          const entry = this.#approvals.get(record.request.requestId);
          if (record.decision === undefined) {
            if (!entry) this.#approvals.set(record.request.requestId, { request: record, decision: undefined });
          } else {
            if (entry) entry.decision = record;
            else this.#approvals.set(record.request.requestId, { request: record, decision: record });
            this.#decisions.set(record.request.toolCallId, record);
          }
          break;
        }
        case "queued":
          if (record.frame === null && typeof record.runId === "string" && !this.#queued.has(record.runId))
            this.#queued.set(record.runId, { record, started: false, ended: false });
          break;
        case "audit":
        case "artifact":
        case "task":
        case "model_call":
        case "prompt":
        case "stop":
          break;
        default: {
          // Every kind of the runtime is handled above (a new one is a compile error here); a host's
          // own kinds reach this point at run time and say nothing about the session's state.
          const further: never = record;
          void further;
        }
      }
    }
  }

  /** A reset: the context starts after it; every state of the chain before it is dropped. */
  #reset(): void {
    this.#role = undefined;
    this.#history = [];
    this.#refs = [];
    this.#turnStarts = [];
    this.historyTokens = 0;
    this.#unordered = false;
    this.#frames = {};
    this.#approvals.clear();
    this.#decisions.clear();
    this.#chatContexts.clear();
    this.#hostContexts.clear();
    this.#chainRunId = undefined;
    this.#waiter = undefined;
    this.#outputSchema = undefined;
    this.#suspended = undefined;
    this.#openTurn = undefined;
    this.#toolResults = byId();
    this.#started.clear();
    this.#turn = 0;
    this.#chainStart = undefined;
    this.#steers.clear();
    this.#takenSteers = 0;
    this.#queued.clear();
  }

  /** A message: the root's joins the history (a steered one is marked taken), a frame's its frame. */
  #message(record: Extract<HistoryRecord, { kind: "message" }>): void {
    if (record.frame === null) {
      const last = this.#history[this.#history.length - 1];
      if (
        record.message.role === "user" &&
        last?.role === "assistant" &&
        last.content.some((part) => part.type === "tool_call")
      )
        this.#unordered = true;
      const tokens = estimateMessageTokens(record.message);
      this.#history.push(record.message);
      this.#refs.push({ id: messageIdOf(record), seq: record.seq, tokens, runId: this.#openTurn });
      this.historyTokens += tokens;
    } else (this.#frames[record.frame] ??= []).push(record.message);
    this.#steerTaken(record);
  }

  /** A turn's start or end: the open turn, the chain's start, contexts, and a suspension. */
  #turnRecord(turn: RuntimeTurnRecord): void {
    this.#trackQueued(turn);
    this.#runs.delete(turn.runId);
    this.#runs.set(turn.runId, turn.phase === "start" ? null : (turn.status ?? "complete"));
    if (this.#runs.size > RECENT_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
    if (turn.phase === "start") {
      this.#turn = turnNumberOf(turn, this.#turn);
      this.#openTurn = turn.runId;
      this.#openTurnRecordsStarts = turn.recordsStarts === true;
      if (turn.resumeOf === undefined) {
        this.#frames = {};
        this.#decisions.clear();
        this.#chatContexts.clear();
        this.#hostContexts.clear();
        this.#toolResults = byId();
        this.#started.clear();
        this.#outputSchema = turn.outputSchema;
        this.#chainRunId = turn.runId;
        this.#waiter = turn.waiter;
        this.#chainStart = { runId: turn.runId, length: this.#history.length, tokens: this.historyTokens };
        this.#turnStarts.push(turn.seq);
        if (this.#turnStarts.length > MAX_TURN_STARTS) this.#turnStarts.shift();
      }
      if (turn.context !== undefined) {
        if (!this.#hostContexts.has(turn.runId)) this.#hostContexts.set(turn.runId, turn.context);
        if (turn.resumeOf !== undefined && !this.#hostContexts.has(turn.resumeOf))
          this.#hostContexts.set(turn.resumeOf, turn.context);
      }
      if (turn.chatContext) {
        if (!this.#chatContexts.has(turn.runId)) this.#chatContexts.set(turn.runId, turn.chatContext);
        if (turn.resumeOf !== undefined && !this.#chatContexts.has(turn.resumeOf))
          this.#chatContexts.set(turn.resumeOf, turn.chatContext);
      }
      this.#suspended = undefined;
    } else {
      if (this.#openTurn === turn.runId) this.#openTurn = undefined;
      // A message a guardrail refused before any model call is in the log, never in the model's context.
      const start = this.#chainStart;
      if (turn.status === "blocked" && turn.error?.code === "input_blocked" && start?.runId === turn.runId) {
        this.#history.length = Math.min(this.#history.length, start.length);
        this.#refs.length = this.#history.length;
        this.historyTokens = start.tokens;
      }
      this.#suspended =
        turn.status === "suspended" ? { runId: turn.runId, results: turn.resume?.results ?? {} } : undefined;
    }
  }

  /** A rewind (root frame): the history resumes before the message it names (see `rewoundHistory`). */
  #rewind(record: RewindRecord): void {
    if (record.frame !== null) return;
    const rewound = rewoundHistory({ history: this.#history, refs: this.#refs }, record);
    if (!rewound) return;
    this.#history = rewound.history;
    this.#refs = rewound.refs;
    this.historyTokens = rewound.tokens;
    this.#chainStart = undefined;
    this.#turnStarts = this.#turnStarts.filter((seq) => seq < record.beforeSeq);
  }

  /** Each turn start in the context with the index in the history of the first root message stored after it. */
  #turnStartIndexes(): { seq: number; index: number }[] {
    if (this.#turnStarts.length === 0) return [];
    const seqs = this.#refs.map((ref) => ref.seq);
    return this.#turnStarts.map((seq) => ({ seq, index: firstAtOrAfter(seqs, seq) }));
  }

  /**
   * A compaction: the root history restarts from its summary note and the messages it keeps (see
   * `compactedHistory`); the turn starts and the current chain's start follow the cut.
   */
  #applyCompaction(record: CompactionRecord): void {
    const next = compactedHistory(
      { messages: this.#history, seqs: this.#refs.map((ref) => ref.seq), tokens: this.historyTokens },
      record,
    );
    const noteTokens = estimateMessageTokens(next.messages[0]!);
    this.#history = next.messages;
    this.#refs = [{ id: record.id, seq: 0, tokens: noteTokens, runId: undefined }, ...this.#refs.slice(next.dropped)];
    this.historyTokens = next.tokens;
    const from = record.keptFromSeq;
    this.#turnStarts = from === undefined ? [] : this.#turnStarts.filter((seq) => seq >= from);
    const start = this.#chainStart;
    if (start && start.length >= next.dropped) {
      this.#chainStart = {
        runId: start.runId,
        length: start.length - next.dropped + 1,
        tokens: start.tokens - next.droppedTokens + noteTokens,
      };
    } else this.#chainStart = undefined;
  }

  /**
   * A turn started or ended: a queued message's turn (or a continuation of it) is marked; one that
   * ended is forgotten once another turn starts (a continuation right after the repair's end keeps it).
   */
  #trackQueued(turn: RuntimeTurnRecord): void {
    if (this.#queued.size === 0) return;
    const base = turn.runId.replace(RETRY_SUFFIX, "");
    const entry = this.#queued.get(base);
    if (turn.phase === "end") {
      if (entry?.started) entry.ended = true;
      return;
    }
    for (const [runId, other] of this.#queued) if (other.ended && runId !== base) this.#queued.delete(runId);
    if (entry) {
      entry.started = true;
      entry.ended = false;
    }
  }

  /** The state now: fresh arrays and maps (the messages themselves are shared; never mutate them). */
  state(): SessionState {
    const frames: Record<string, Message[]> = {};
    for (const key in this.#frames) frames[key] = this.#frames[key]!.slice();
    const approvals = new Map<string, { request: ApprovalRecord; decision: ApprovalRecord | undefined }>();
    const pending: ApprovalRecord[] = [];
    for (const [requestId, { request, decision }] of this.#approvals) {
      approvals.set(requestId, { request, decision });
      if (this.#suspended && !decision) pending.push(request);
    }
    const queued: QueuedRecord[] = [];
    let openQueued: QueuedRecord | undefined;
    for (const { record, started, ended } of this.#queued.values()) {
      if (!started) queued.push(record);
      else if (!ended && this.#openTurn?.replace(RETRY_SUFFIX, "") === record.runId) openQueued = record;
    }
    const order = this.#unordered ? callsTogetherOrder(this.#history) : undefined;
    return {
      history: order ? order.map((i) => this.#history[i]!) : this.#history.slice(),
      messageRefs: order ? order.map((i) => this.#refs[i]!) : this.#refs.slice(),
      historyTokens: this.historyTokens,
      frames,
      openTurn: this.#openTurn,
      openTurnRecordsStarts: this.#openTurn !== undefined && this.#openTurnRecordsStarts,
      started: new Set(this.#started),
      suspended: this.#suspended,
      pending,
      decisions: new Map(this.#decisions),
      approvals,
      chatContexts: new Map(this.#chatContexts),
      hostContexts: new Map(this.#hostContexts),
      chainRunId: this.#chainRunId,
      waiter: this.#waiter,
      outputSchema: this.#outputSchema,
      toolResults: Object.assign(byId<ToolResultPart>(), this.#toolResults),
      role: this.#role,
      runs: new Map(this.#runs),
      turn: this.#turn,
      steers: new Map([...this.#steers].map(([id, steer]) => [id, { ...steer }])),
      turnStarts: this.#turnStartIndexes(),
      queued,
      openQueued,
    };
  }

  /** A message that took a steered message (read it, or ran it): that steer is taken by the open turn. */
  #steerTaken(record: RuntimeMessageRecord): void {
    const steerOf = record.steerOf;
    if (typeof steerOf !== "string") return;
    const steer = this.#steers.get(steerOf);
    if (!steer || steer.takenBy !== undefined) return;
    steer.takenBy = this.#openTurn ?? "";
    // Taken ones are kept only as long as a retried sender may still ask about them.
    if (++this.#takenSteers > RECENT_RUNS) {
      for (const [id, entry] of this.#steers)
        if (entry.takenBy !== undefined) {
          this.#steers.delete(id);
          this.#takenSteers--;
          break;
        }
    }
  }
}

/** The suffix of a continuation's run id (`<runId>:retry-<n>`, a turn continued after its process died). */
const RETRY_SUFFIX = /:retry-\d+$/;

/**
 * An empty record keyed by ids (tool call ids: a new one every call). Without a prototype it is a
 * hash table from the start: a `{}` gets a new hidden class for each new key (one per call across
 * every session), which made storing one result cost microseconds.
 */
function byId<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The number a turn start stands for: the one stored on it, else (older records) counted from the one before. */
function turnNumberOf(start: RuntimeTurnRecord, previous: number): number {
  const stored = start.turn;
  if (typeof stored === "number" && Number.isSafeInteger(stored) && stored > 0) return stored;
  return start.resumeOf === undefined ? previous + 1 : Math.max(previous, 1);
}

/** Reads a session's records (as loaded with `sinceLastReset`) into its current state. */
export function readSessionState(records: readonly HistoryRecord[]): SessionState {
  const reader = new SessionStateReader();
  reader.apply(records);
  return reader.state();
}

/**
 * Moves messages that were recorded between an assistant's tool calls and their results (a
 * silent system message posted while a turn was suspended, say) to just after the results, so
 * the history stays valid for providers.
 */
export function keepCallsTogether(history: Message[]): Message[] {
  return callsTogetherOrder(history).map((i) => history[i]!);
}

/** Tool calls of the last root message when they have no results yet. */
export function danglingCalls(history: readonly Message[]): ToolCallPart[] {
  const last = history[history.length - 1];
  if (last?.role !== "assistant") return [];
  return last.content.filter((p): p is ToolCallPart => p.type === "tool_call");
}

/** A tool message answering `calls`: a known result where there is one, else an error saying why. */
export function closingToolMessage(
  calls: readonly ToolCallPart[],
  known: Record<string, ToolResultPart>,
  why: string,
): Message {
  return {
    role: "tool",
    content: calls.map(
      (call) =>
        known[call.id] ?? { type: "tool_result", toolCallId: call.id, name: call.name, result: why, isError: true },
    ),
    messageType: "tool_result",
  };
}
