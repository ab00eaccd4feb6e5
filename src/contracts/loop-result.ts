import type { JsonValue } from "./json-schema.js";
import type { BudgetReason } from "./budget.js";
import type { ExecutionTreeSnapshot } from "./execution-tree.js";
import type { Message, ToolResultPart, Usage } from "./message.js";
import type { PermissionClass } from "./tool-policy.js";

/** A tool call waiting for a human (or policy) decision. */
export interface ApprovalRequest {
  /** Unique within a store. */
  requestId: string;
  toolCallId: string;
  name: string;
  args: unknown;
  depth: number;
  parentId: string | null;
  /** Why approval is needed, e.g. `"tool requires approval"`. */
  reason: string;
  /**
   * Every permission class the call needs (so a rule such as "approve reads, ask for writes"
   * needs no tool names). Absent on requests stored before it existed.
   */
  permissionClass?: PermissionClass[];
  /**
   * Set on a call that waits for another agent (a sync `agents_message` whose target is itself
   * waiting for a decision): the waited session and run. Such a request is not decided by a person;
   * the runtime lists the decisions it waits for instead (with `origin`), and answers it when the
   * waited turn ends.
   */
  waitsOn?: { sessionId: string; agentId: string; runId: string };
  /**
   * Set on the call of a tool with no `execute`: it waits for the client's result
   * (`runtime.submitToolResult`), not for a decision. `pendingApprovals()` leaves it out;
   * `pendingToolCalls()` lists it. @default undefined (an approval request)
   */
  client?: true;
  /**
   * Set on a request listed or reported by a session other than the one that asked it (it surfaced
   * through a delegation chain): where it was asked, and the sessions waiting on it, outermost first.
   */
  origin?: { sessionId: string; agentId: string; chain: { sessionId: string; agentId: string }[] };
}

/**
 * Approve, deny (with a reason the model sees), or suspend the turn until decided elsewhere.
 * `result` on an approval is the call's result as it is, without running the tool (how an answer
 * to `ask_user` reaches the model).
 */
export type ApprovalDecision =
  { approved: true; result?: unknown } | { approved: false; reason?: string } | { suspend: true };

/**
 * Where an approval request was made: the call's session, agent, scope, run and the host's
 * per-turn `context` (whatever of them the caller knows: the runtime gives all).
 */
export interface ApprovalContext<C = JsonValue> {
  /** Every permission class the call needs (the same as `request.permissionClass`). */
  permissionClass?: PermissionClass[];
  sessionId?: string;
  agentId?: string;
  scope?: string;
  runId?: string;
  context?: C;
}

/**
 * Decides approval requests. Must not throw for a normal "no": return `{ approved: false }`.
 * `info` says where the call was made (session, agent, scope, context), so a rule such as
 * "approve refunds under 20 for tenant acme" needs nothing else.
 */
export type ApprovalHandler<C = JsonValue> = (
  request: ApprovalRequest,
  info: ApprovalContext<C>,
) => Promise<ApprovalDecision>;

/** How a run ended. */
export type LoopStatus =
  "complete" | "budget_exceeded" | "iteration_limit" | "aborted" | "error" | "suspended" | "blocked";

/**
 * What a loop run returns (also the payload of the final `done` event). `T` types `structured`
 * (from a zod `outputSchema`).
 */
export interface LoopResult<T = unknown> {
  status: LoopStatus;
  /** Last assistant text of this level. */
  text: string;
  /**
   * The validated result of the finish tool (`final_answer` at the root with `outputSchema`,
   * `finish_subtask` in a sub-task with `output_schema`), when one applied and was accepted.
   */
  structured?: T;
  /** Messages this run appended, in order. */
  messages: Message[];
  executionTree: ExecutionTreeSnapshot;
  /** Summed over every depth. */
  usage: Usage;
  /** Why the run did not complete; a provider error's details are kept (`code`: its error type). */
  error?: {
    message: string;
    reason?: BudgetReason;
    code?: string;
    status?: number;
    retryable?: boolean;
    provider?: string;
  };
  /** When `suspended`: the approvals awaited, at any depth. */
  pendingApprovals?: ApprovalRequest[];
  /**
   * When `suspended`: what to pass back as `resume` (add the decisions) together with
   * `history: [...history, ...messages]` to continue the turn.
   */
  resume?: ResumeState;
}

/**
 * What a turn needs to go on where it stopped: the child conversations of `run_subtask` calls
 * still open (keyed by that call's toolCallId) and the decisions for pending approvals (by toolCallId).
 */
export interface ResumeState {
  frames: Record<string, Message[]>;
  /**
   * By toolCallId. `requestId` (optional) names the approval request the decision answers;
   * `result` on an approval is the call's result, given without running the tool.
   */
  decisions: Record<
    string,
    { approved: boolean; reason?: string; requestId?: string; result?: unknown; isError?: boolean }
  >;
  /**
   * Results of calls that already completed in a batch that was suspended (by toolCallId):
   * reused on resume so nothing runs twice. Filled in by the loop in a suspended result's `resume`.
   */
  results?: Record<string, ToolResultPart>;
}
