import { emergencyVerdict, summarizeForReset } from "../../context/emergency-reset.js";
import { estimateMessageTokens, estimateSystemTokens } from "../../context/estimate-tokens.js";
import type { Message } from "../../contracts/message.js";
import { systemMessage } from "../../messages/system-message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { NewRecord } from "../../contracts/session-store.js";
import { approvalDecisionRecord } from "../records/approval-decision.js";
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
