import type { ApprovalRequest, ResumeState } from "../../contracts/loop-result.js";
import type { NewRecord } from "../../contracts/session-store.js";
import type { SessionState } from "./session-state.js";

/** A decision on an approval request, as the runtime stores it. */
export interface ApprovalDecisionInput {
  approved: boolean;
  /** Kept on denials only. */
  reason?: string;
  /** Unique per decider (compare-and-set between processes). */
  decisionId?: string;
  /** An `ask_user` question's answer: the call's result. */
  answer?: unknown;
  /** `answer` is an error result (a waited agent that did not complete). */
  answerIsError?: boolean;
}

/**
 * The record of a decision on `request`: id `<requestId>:decision`, in the request's frame. Every
 * decision the runtime stores (a host's handler, `resolveApproval`/`answerQuestion`, a superseded
 * or interrupted request) is made here, so they all read back the same.
 */
export function approvalDecisionRecord(
  request: ApprovalRequest,
  frame: string | null,
  decision: ApprovalDecisionInput,
): NewRecord {
  return {
    id: `${request.requestId}:decision`,
    frame,
    kind: "approval",
    request,
    decision: decision.approved ? "approved" : "denied",
    ...(decision.decisionId !== undefined && { decisionId: decision.decisionId }),
    ...(!decision.approved && decision.reason !== undefined && { reason: decision.reason }),
    ...(decision.answer !== undefined && { answer: decision.answer }),
    ...(decision.answerIsError === true && { answerIsError: true as const }),
  };
}

/** A decision as a resumed loop takes it (`resume.decisions`, by tool-call id). */
export type ResumeDecision = ResumeState["decisions"][string];

/** The loop's form of a decision: `result` is the call's given result (an answered question). */
export function resumeDecision(
  requestId: string,
  decision: { approved: boolean; reason?: string | undefined },
  result: unknown,
  isError?: boolean,
): ResumeDecision {
  return {
    approved: decision.approved,
    requestId,
    ...(decision.reason !== undefined && { reason: decision.reason }),
    ...(result !== undefined && { result }),
    ...(isError === true && { isError: true }),
  };
}

/** The stored decisions of a session's suspended turn, in the loop's form. */
export function storedDecisions(state: SessionState): Record<string, ResumeDecision> {
  const decisions: Record<string, ResumeDecision> = {};
  for (const [toolCallId, record] of state.decisions) {
    decisions[toolCallId] = resumeDecision(
      record.request.requestId,
      { approved: record.decision === "approved", reason: record.reason },
      record.answer,
      record.answerIsError === true,
    );
  }
  return decisions;
}
