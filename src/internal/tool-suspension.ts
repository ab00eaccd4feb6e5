import type { ApprovalRequest } from "../contracts/loop-result.js";

/** What a suspended call waits on: another agent's turn, itself waiting for decisions. */
export interface CallWait {
  /** The id the wait gets as an approval request (deterministic: the same call waits under the same id). */
  requestId: string;
  /** Why, as the request's `reason`. */
  reason: string;
  /** The waited turn: its session, agent and run. */
  sessionId: string;
  agentId: string;
  runId: string;
  /** The decisions it waits for, where they were asked (at any depth of the chain). */
  requests: ApprovalRequest[];
}

/**
 * Thrown by one of the package's own tools (never a host's: the class is not exported) to suspend
 * its call after it started: the turn ends `suspended` with the call waiting under `wait.requestId`,
 * and a resumed turn gets the call's result from that request's decision (`ResumeState.decisions`).
 */
export class ToolSuspension extends Error {
  constructor(readonly wait: CallWait) {
    super(`The call waits (${wait.requestId})`);
    this.name = "ToolSuspension";
  }
}
