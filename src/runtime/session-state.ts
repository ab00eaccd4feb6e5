import type { Message, ToolCallPart, ToolResultPart } from "../messages/message.js";
import type { ApprovalRecord, HistoryRecord, TurnRecord } from "../sessions/session-store.js";
import type { ChatContext } from "../policy/tool-policy.js";

/** The resume material stored on the end record of a suspended turn (an extra field of that record). */
export interface StoredResume {
  results: Record<string, ToolResultPart>;
}

/** A turn record as the runtime writes it (extra optional fields are allowed on records). */
export type RuntimeTurnRecord = TurnRecord & { resumeOf?: string; resume?: StoredResume; chatContext?: ChatContext };
/** A runtime turn record before the store stamps it. */
export type NewRuntimeTurnRecord = Omit<RuntimeTurnRecord, "seq" | "at">;

/** What the records of a session (since its last reset) say about it. */
export interface SessionState {
  /** Root-frame messages, in order. */
  history: Message[];
  /** Child conversations of the current turn chain, by `run_subtask` call id. */
  frames: Record<string, Message[]>;
  /** A turn that started and never ended (the process died). */
  openTurn: string | undefined;
  /** The suspended turn, if the last turn ended suspended. */
  suspended: { runId: string; results: Record<string, ToolResultPart> } | undefined;
  /** Approval requests of the suspended turn with no decision yet. */
  pending: ApprovalRecord[];
  /** Decisions recorded since the turn chain started, by toolCallId. */
  decisions: Map<string, ApprovalRecord>;
  /** Every approval request id seen, with its decision record if any. */
  approvals: Map<string, { request: ApprovalRecord; decision: ApprovalRecord | undefined }>;
  lastSeq: number;
}

/** Reads a session's records (as loaded with `sinceLastReset`) into its current state. */
export function readSessionState(records: readonly HistoryRecord[]): SessionState {
  const state: SessionState = {
    history: [],
    frames: {},
    openTurn: undefined,
    suspended: undefined,
    pending: [],
    decisions: new Map(),
    approvals: new Map(),
    lastSeq: 0,
  };
  for (const record of records) {
    state.lastSeq = record.seq;
    switch (record.kind) {
      case "reset":
        state.history = [];
        state.frames = {};
        state.approvals.clear();
        state.decisions.clear();
        state.suspended = undefined;
        state.openTurn = undefined;
        break;
      case "message":
        if (record.frame === null) state.history.push(record.message);
        else (state.frames[record.frame] ??= []).push(record.message);
        break;
      case "turn": {
        const turn = record as RuntimeTurnRecord;
        if (turn.phase === "start") {
          state.openTurn = turn.runId;
          if (turn.resumeOf === undefined) {
            state.frames = {};
            state.decisions.clear();
          }
          state.suspended = undefined;
        } else {
          if (state.openTurn === turn.runId) state.openTurn = undefined;
          state.suspended = turn.status === "suspended" ? { runId: turn.runId, results: turn.resume?.results ?? {} } : undefined;
        }
        break;
      }
      case "approval": {
        const entry = state.approvals.get(record.request.requestId);
        if (record.decision === undefined) {
          if (!entry) state.approvals.set(record.request.requestId, { request: record, decision: undefined });
        } else {
          if (entry) entry.decision = record;
          else state.approvals.set(record.request.requestId, { request: record, decision: record });
          state.decisions.set(record.request.toolCallId, record);
        }
        break;
      }
    }
  }
  if (state.suspended) {
    for (const { request, decision } of state.approvals.values()) if (!decision) state.pending.push(request);
  }
  state.history = keepCallsTogether(state.history);
  return state;
}

/**
 * Moves messages that were recorded between an assistant's tool calls and their results (a
 * silent system message posted while a turn was suspended, say) to just after the results, so
 * the history stays valid for providers.
 */
export function keepCallsTogether(history: Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    out.push(message);
    if (message.role !== "assistant" || !message.content.some((p) => p.type === "tool_call")) continue;
    const waiting: Message[] = [];
    let j = i + 1;
    while (j < history.length && history[j]!.role !== "tool" && history[j]!.role !== "assistant") waiting.push(history[j++]!);
    if (waiting.length > 0 && history[j]?.role === "tool") {
      out.push(history[j]!, ...waiting);
      i = j;
    } else if (waiting.length > 0 && j >= history.length) {
      // Still waiting for results (suspended turn): results will come after; keep the others after them.
      out.pop();
      out.push(...waiting, message);
      i = j - 1;
    }
  }
  return out;
}

/** Tool calls of the last root message when they have no results yet. */
export function danglingCalls(history: readonly Message[]): ToolCallPart[] {
  const last = history[history.length - 1];
  if (last?.role !== "assistant") return [];
  return last.content.filter((p): p is ToolCallPart => p.type === "tool_call");
}

/** A tool message answering `calls`: a known result where there is one, else an error saying why. */
export function closingToolMessage(calls: readonly ToolCallPart[], known: Record<string, ToolResultPart>, why: string): Message {
  return {
    role: "tool",
    content: calls.map((call) => known[call.id] ?? { type: "tool_result", toolCallId: call.id, name: call.name, result: why, isError: true }),
  };
}
