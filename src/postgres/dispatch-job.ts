import type { DispatchedTurn, SendInput } from "../contracts/agent-runtime.js";
import type { QuestionAnswer } from "../contracts/plan.js";
import type { TenantGuard } from "../contracts/tenant-guard.js";
import type { JsonValue } from "../contracts/json-schema.js";

/** A row of `dispatch_jobs`: one piece of work sent to a session (a turn, a decision). */
export interface JobRow {
  id: string;
  kind: "send" | "resolve" | "answer" | "agent_turn";
  payload: SendPayload | ResolvePayload | AnswerPayload | DispatchedTurn;
  /** Its sender aborted it: a turn not started yet starts aborted. */
  cancelled?: boolean;
}
/** What a dispatched turn carries to the worker. */
export interface SendPayload {
  agentId: string;
  content: SendInput["content"];
  scope?: string;
  chatContext?: SendInput["chatContext"];
  outputSchema?: unknown;
  /** The turn's host context (`SendInput.context`), checked and copied at send. */
  context?: JsonValue;
  ifPending?: SendInput["ifPending"];
  created: boolean;
  /** The turn's run id: the sender's `jobId` (the job's own id is namespaced). @default the job's id */
  runId?: string;
}
/** What a dispatched approval decision carries to the worker (with the caller's tenant guard, checked again there). */
export interface ResolvePayload {
  requestId: string;
  decision: { approved: boolean; reason?: string } & TenantGuard;
}
/**
 * What a dispatched answer to a question carries to the worker (with the caller's tenant guard, checked again there).
 */
export interface AnswerPayload {
  questionId: string;
  answer: QuestionAnswer & TenantGuard;
}
/** A row of `dispatch_events`: an event of a job, or its outcome. */
export interface EventRow {
  ord: string;
  kind: "event" | "result" | "error";
  body: unknown;
}
/** An error as it travels from the worker to the caller. */
export interface SerializedError {
  name: string;
  message: string;
  requestId?: string;
  sessionId?: string;
  agentId?: string;
  /** `PendingDecisionError`'s pending requests. */
  requestIds?: string[];
}

/** What `send` / `stream` take: the runtime's `SendInput` (`session` as a selector or an explicit id). */
export type DispatchInput = Omit<SendInput, "runId"> & {
  /**
   * Idempotency key of this send (an HTTP request id, say): the turn's `runId`, and the job's key
   * within the scope, agent and `session` selector it was sent with. A second send with the same
   * `jobId` and the same scope, agent and selector enqueues nothing and waits for the same turn's
   * outcome (its events from the start); with another scope (a tenant reusing a request id) it
   * is another job, which neither sees nor cancels the first. Letters, digits and `-_.:`, 1 to
   * 100 characters.
   * @default a new UUID
   */
  jobId?: string;
};
