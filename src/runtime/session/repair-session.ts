import { emergencyVerdict, summarizeForReset } from "../../context/emergency-reset.js";
import { estimateMessageTokens, estimateSystemTokens } from "../../context/estimate-tokens.js";
import type { Message } from "../../contracts/message.js";
import { systemMessage } from "../../messages/system-message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { ApprovalRecord, NewRecord } from "../../contracts/session-store.js";
import type { ToolCallPart, ToolResultPart } from "../../contracts/message.js";
import { RUN_SUBTASK } from "../../loop/subtask-tools.js";
import { approvalDecisionRecord, resumeDecision, type ResumeDecision } from "../records/approval-decision.js";
import { RUNTIME_ORIGIN } from "../records/compaction-state.js";
import {
  closingToolMessage,
  danglingCalls,
  type NewRuntimeTurnRecord,
  type SessionState,
} from "../records/session-state.js";

/** What must be stored and said before a new turn can run on a session. */
export interface SessionRepair {
  records: NewRecord[];
  events: LoopEvent[];
  /** The root history, valid for every provider (every tool call answered). */
  history: Message[];
  /** `estimateMessageTokens` summed over `history`. */
  historyTokens: number;
}

const CRASHED =
  "Not completed: the run executing this call stopped before it finished (the process ended). It may or may not have taken effect.";
const SUPERSEDED = "Not run: its approval was superseded by a new message.";

/**
 * Closes what an earlier run left open: a turn that never ended (the process died) ends as
 * `error`; a suspended turn's pending approvals are denied as `"superseded"`; dangling root tool
 * calls get results (kept results of a suspended batch, else a synthetic error). Takes over
 * `state.history` (each state read hands out a fresh array) and extends it.
 */
export function repairSession(state: SessionState): SessionRepair {
  const records: NewRecord[] = [];
  const events: LoopEvent[] = [];
  const history = state.history; // a fresh array per state read: ours to extend
  let historyTokens = state.historyTokens;
  const id = () => globalThis.crypto.randomUUID();
  let why = CRASHED;
  if (state.openTurn !== undefined) {
    const end: NewRuntimeTurnRecord = {
      id: id(),
      frame: null,
      kind: "turn",
      runId: state.openTurn,
      phase: "end",
      status: "error",
    };
    records.push(end);
    events.push({
      type: "warning",
      code: "crash_recovered",
      message: `The previous turn (${state.openTurn}) did not finish; it was closed as an error.`,
      depth: 0,
      parentId: null,
    });
    // Its undecided approvals can no longer be decided: retire them (they leave the pending index).
    for (const { request, decision } of state.approvals.values()) {
      if (decision === undefined)
        records.push(
          approvalDecisionRecord(request.request, request.frame, { approved: false, reason: "interrupted" }),
        );
    }
  } else if (state.suspended) {
    why = SUPERSEDED;
    for (const pending of state.pending) {
      records.push(approvalDecisionRecord(pending.request, pending.frame, { approved: false, reason: "superseded" }));
      events.push({
        type: "approval_resolved",
        requestId: pending.request.requestId,
        approved: false,
        reason: "superseded",
        depth: pending.request.depth,
        parentId: pending.request.parentId,
      });
    }
  }
  const calls = danglingCalls(history);
  if (calls.length > 0) {
    // A call whose result was stored finished: its result is kept, never the "may or may not" notice.
    const message = closingToolMessage(calls, { ...state.toolResults, ...state.suspended?.results }, why);
    records.push({ id: id(), frame: null, kind: "message", message });
    history.push(message);
    historyTokens += estimateMessageTokens(message);
  }
  return { records, events, history, historyTokens };
}

/** What continuing a crashed turn takes (see {@link crashResume}). */
export interface CrashResume {
  /** Stored before the continuation's start: the crashed turn's end (`error`), its retired approvals. */
  records: NewRecord[];
  events: LoopEvent[];
  /** Results the continuation takes as given: the stored ones, and the notice for calls that had started. */
  results: Record<string, ToolResultPart>;
  /** Decisions of the approvals retired here (`interrupted`), by tool-call id. */
  decisions: Record<string, ResumeDecision>;
}

/**
 * When the turn a crash left open (`state.openTurn`, a turn that stores its calls' starts) has a
 * root tool call that never ran (no start stored, no result; or one whose decision gives its
 * result: a denial, an answer), what continuing it takes: the continuation runs those calls once
 * (every other call keeps its stored result, and a call whose start is stored without a result
 * reads "may or may not have taken effect"), then goes on as the turn would have. `undefined`
 * when nothing of it would run: the turn is closed as before ({@link repairSession}).
 */
export function crashResume(state: SessionState): CrashResume | undefined {
  if (state.openTurn === undefined || !state.openTurnRecordsStarts) return undefined;
  const calls = danglingCalls(state.history);
  const retired = new Map<string, ApprovalRecord>();
  for (const { request, decision } of state.approvals.values())
    if (decision === undefined) retired.set(request.request.toolCallId, request);
  const crashed = (id: string) => state.started.has(id) && !retired.has(id) && !givesResult(state.decisions.get(id));
  const runs = (call: ToolCallPart, depth: number): boolean => {
    if (state.toolResults[call.id] !== undefined || depth > MAX_FRAMES) return false;
    if (call.name !== RUN_SUBTASK) return !crashed(call.id);
    const frame = state.frames[call.id];
    return frame === undefined || danglingCalls(frame).some((inner) => runs(inner, depth + 1));
  };
  if (!calls.some((call) => runs(call, 0))) return undefined;
  const results: Record<string, ToolResultPart> = { ...state.toolResults };
  const notice = (id: string, name: string): ToolResultPart => ({
    type: "tool_result",
    toolCallId: id,
    name,
    result: CRASHED,
    isError: true,
  });
  // Every started call without a result, at any depth; a sub-task with nothing left to run ends the same way.
  const names = callNames(state);
  for (const id of state.started)
    if (results[id] === undefined && crashed(id)) results[id] = notice(id, names.get(id) ?? "");
  for (const [id, frame] of Object.entries(state.frames))
    if (
      results[id] === undefined &&
      !danglingCalls(frame).some((inner) => runs(inner, 1)) &&
      danglingCalls(frame).length > 0
    )
      results[id] = notice(id, RUN_SUBTASK);
  const records: NewRecord[] = [
    {
      id: globalThis.crypto.randomUUID(),
      frame: null,
      kind: "turn",
      runId: state.openTurn,
      phase: "end",
      status: "error",
    },
  ];
  const decisions: Record<string, ResumeDecision> = {};
  for (const [toolCallId, request] of retired) {
    records.push(approvalDecisionRecord(request.request, request.frame, { approved: false, reason: "interrupted" }));
    decisions[toolCallId] = resumeDecision(
      request.request.requestId,
      { approved: false, reason: "interrupted" },
      undefined,
    );
  }
  const events: LoopEvent[] = [
    {
      type: "warning",
      code: "crash_recovered",
      message: `The previous turn (${state.openTurn}) did not finish; it is continued: its calls that never started run now.`,
      depth: 0,
      parentId: null,
    },
  ];
  return { records, events, results, decisions };
}

/** Frames followed below the root when looking for a call that never ran (sub-tasks are bounded by `maxDepth`). */
const MAX_FRAMES = 16;

/** Whether a decision gives its call's result without running it (a denial, an answer). */
function givesResult(decision: ApprovalRecord | undefined): boolean {
  return decision !== undefined && (decision.decision === "denied" || decision.answer !== undefined);
}

/** The tool name of each call of the chain's assistant messages (root and frames), by id. */
function callNames(state: SessionState): Map<string, string> {
  const names = new Map<string, string>();
  for (const messages of [state.history, ...Object.values(state.frames)])
    for (const message of messages)
      if (message.role === "assistant")
        for (const part of message.content) if (part.type === "tool_call") names.set(part.id, part.name);
  return names;
}

export { RUNTIME_ORIGIN };

/**
 * Emergency reset: when the history plus the new message reaches `limit` estimated
 * tokens, a reset marker (with a summary) is stored before the turn, the history restarts from a
 * silent summary note, and a `context_reset` warning says so.
 */
export function emergencyReset(
  repair: SessionRepair,
  input: Message | undefined,
  system: string,
  limit?: number,
): SessionRepair {
  // The same verdict as needsEmergencyReset over history + input + system, from the kept sum.
  const check = emergencyVerdict(
    repair.historyTokens + (input ? estimateMessageTokens(input) : 0) + estimateSystemTokens(system),
    limit,
  );
  if (!check.needed) return repair;
  const summary = summarizeForReset(repair.history);
  const note = systemMessage(
    RUNTIME_ORIGIN,
    `The conversation was reset: its context (~${check.estimatedTokens} tokens) reached the emergency limit of ${check.limit}. What came before, in short:\n${summary}`,
    { silent: true },
  );
  const id = () => globalThis.crypto.randomUUID();
  return {
    records: [
      ...repair.records,
      { id: id(), frame: null, kind: "reset", summary },
      { id: id(), frame: null, kind: "message", message: note },
    ],
    events: [
      ...repair.events,
      {
        type: "warning",
        code: "context_reset",
        message: `Context reset: ~${check.estimatedTokens} estimated tokens reached the emergency limit (${check.limit}); a summary note replaces the earlier history.`,
        depth: 0,
        parentId: null,
      },
    ],
    history: [note],
    historyTokens: estimateMessageTokens(note),
  };
}

/**
 * Queued messages stored before an emergency reset stay queued after it: copies (same run id, new
 * record id) follow the reset marker. The one about to run (`runId`) is not copied.
 */
export function carryQueued(
  repair: SessionRepair,
  queued: SessionState["queued"],
  runId: string | undefined,
): SessionRepair {
  if (queued.length === 0 || !repair.records.some((record) => record.kind === "reset")) return repair;
  const copies = queued
    .filter((queued) => queued.runId !== runId)
    .map(({ seq: _seq, at: _at, ...queued }) => ({ ...queued, id: `${queued.id}:${globalThis.crypto.randomUUID()}` }));
  return { ...repair, records: [...repair.records, ...copies] };
}
