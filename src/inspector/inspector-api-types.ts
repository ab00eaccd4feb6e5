import type { PendingApproval, PendingQuestion } from "../contracts/agent-runtime.js";
import type { AuditEntry } from "../contracts/audit-entry.js";
import type { TaskStatus } from "../contracts/loop-event.js";
import type { Plan } from "../contracts/plan.js";

/**
 * Response bodies of the inspector's HTTP API (`createInspector`), shared by the server and the
 * page. Every body is plain JSON. Errors are `{ error: string }` ({@link InspectorError}) with the
 * HTTP status.
 *
 * @module
 */

/** Every error response: `{ error }` with the status (401, 403, 404, 409, 400, 503). */
export interface InspectorError {
  error: string;
}

/** `GET {base}api/me`: who is looking. `csrfToken` goes in the `x-agentry-csrf` header of every POST. */
export interface MeResponse {
  /** `""` = every scope. */
  scopePrefix: string;
  canAct: boolean;
  csrfToken: string;
}

/**
 * A session's state, computed from its last turn record and its pending decisions:
 * `running` (a turn started and has not ended), `waiting` (an approval or question is pending),
 * `failed` (the last turn ended `error`), `budget_exceeded` (the last turn ended on a budget stop),
 * `idle` (anything else).
 */
export type SessionState = "idle" | "running" | "waiting" | "failed" | "budget_exceeded";

/** The states, in the order the page offers them as filters. */
export const sessionStates: readonly SessionState[] = ["idle", "running", "waiting", "failed", "budget_exceeded"];

/** One row of the session list. */
export interface SessionRow {
  sessionId: string;
  agentId: string;
  scope?: string;
  name?: string;
  createdAt: string;
  updatedAt: string;
  lastSnippet?: string;
  state: SessionState;
}

/**
 * `GET {base}api/sessions?state=&agentId=&scopePrefix=&q=&cursor=&limit=`: newest first.
 * `nextCursor` is present when there may be more: pass it back as `cursor`.
 */
export interface SessionListResponse {
  items: SessionRow[];
  nextCursor?: string;
}

/**
 * What a node of a turn's execution tree stands for. A `rewind` node (after the turn it follows)
 * says the model's context resumed before a message there, and how many tool calls that ran after
 * it were not undone.
 */
export type TreeNodeKind =
  | "turn"
  | "model_call"
  | "tool_call"
  | "subtask"
  | "delegation"
  | "background"
  | "approval"
  | "question"
  | "steered"
  | "rewind"
  | "compaction";

/** Token counts of a node (a model call's usage, or the sum over a subtree). */
export interface NodeTokens {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

/** One node of a turn's execution tree, compact. */
export interface TreeNode {
  /** Unique within the session (pass it to `api/sessions/:id/nodes/:nodeId`). */
  id: string;
  kind: TreeNodeKind;
  /** Short text for the card header (tool name, model, sub-task title, target agent...). */
  label: string;
  /** E.g. `ok`, `error`, `running`, `approved`, `denied`, `pending`, or a turn's `LoopStatus`. */
  status?: string;
  /** ISO. */
  startedAt?: string;
  durationMs?: number;
  tokens?: NodeTokens;
  /** From `src/providers/pricing.ts` when the model's price is known. */
  costUsd?: number;
  /** A short error message when the node failed. */
  error?: string;
  /** The node ended on a budget stop. */
  budgetStop?: boolean;
  /** For `delegation` / `background`: the target session (open it in the inspector). */
  sessionId?: string;
  children: TreeNode[];
}

/** A turn: the root of its execution tree. */
export type TurnNode = TreeNode & { runId: string; turnNumber: number };

/** `GET {base}api/sessions/:id`: the session and every turn's tree. */
export interface SessionDetailResponse {
  session: SessionRow;
  turns: TurnNode[];
  /** The `seq` of the last record this answer read (0 for an empty log): open the live stream after it. */
  lastSeq: number;
}

/** A tool offered to the model, as it saw it. */
export interface OfferedTool {
  name: string;
  description: string;
  inputSchema: unknown;
}

/** Detail of a `model_call` node: what the agent really saw, and what it answered. */
export interface ModelCallDetail {
  kind: "model_call";
  model?: string;
  provider?: string;
  /** `undefined` when the call was stored before the runtime recorded prompts. */
  system?: string;
  tools?: OfferedTool[];
  /** Messages of the request (history included). */
  messagesCount?: number;
  /** The assistant message the call produced (text, thinking, tool calls). */
  response?: unknown;
  tokens?: NodeTokens;
  costUsd?: number;
  durationMs?: number;
}

/** Detail of a `tool_call` node (args and result passed through the host's `redact`). */
export interface ToolCallDetail {
  kind: "tool_call";
  toolCallId: string;
  name: string;
  args: unknown;
  result?: unknown;
  isError?: boolean;
  decision?: AuditEntry["decision"];
  /** The audit entry's `argsDigest`. */
  digest?: string;
  audit?: AuditEntry;
}

/** Detail of a compaction node (`c:<recordId>`): the summary the context starts from, and its sizes. */
export interface CompactionDetail {
  kind: "compaction";
  summary: string;
  /** Who wrote it: `model`, `host`, or `fallback` (the model-free note). */
  source: string;
  /** `auto` (a turn past `triggerTokens`) or `manual` (`runtime.compact`). */
  trigger: "auto" | "manual";
  tokensBefore: number;
  tokensAfter: number;
  summarizedMessages: number;
  /** `runtime.compact`'s instructions. */
  instructions?: string;
}

/** Detail of any other node: its tree node only. */
export interface OtherNodeDetail {
  kind: "other";
  node: TreeNode;
}

/** `GET {base}api/sessions/:id/nodes/:nodeId`. */
export type NodeDetailResponse = ModelCallDetail | ToolCallDetail | CompactionDetail | OtherNodeDetail;

/**
 * One message of `GET {base}api/sessions/:id/live?afterSeq=N` (a `text/event-stream`).
 * `record`: a stored record (SSE `event: record`, `id:` = seq); `turn`: the refreshed tree of the
 * turn the records belong to (`event: turn`). Heartbeats are SSE comments.
 */
export type LiveMessage =
  { type: "record"; seq: number; record: unknown } | { type: "turn"; seq: number; turn: TurnNode };

/** `GET {base}api/pending`: decisions waiting, within the caller's scopes. */
export interface PendingResponse {
  approvals: PendingApproval[];
  questions: PendingQuestion[];
}

/** One row of the task list. */
export interface TaskRow {
  taskId: string;
  sessionId: string;
  agentId: string;
  state: TaskStatus;
  title: string;
  /** The plan under review or approved, when it parses. */
  plan?: Plan;
  /** The agent that carries the plan out, when not the task's own, and its session once approved. */
  actorAgentId?: string;
  actorSessionId?: string;
  /** The task this one follows up on. */
  continues?: string;
  updatedAt: string;
}

/** `GET {base}api/tasks?cursor=`. */
export interface TaskListResponse {
  items: TaskRow[];
  nextCursor?: string;
}

/** How `api/cost` groups. */
export type CostGroupBy = "scope" | "agent" | "day";

/** One row of the cost view. `key`: the scope (`""` = unscoped), the agent id, or the day (`YYYY-MM-DD`, UTC). */
export interface CostRow {
  key: string;
  tokens: NodeTokens;
  costUsd: number;
  turns: number;
}

/** `GET {base}api/cost?groupBy=scope|agent|day&from=&to=`. */
export interface CostResponse {
  rows: CostRow[];
}

/** Body of `POST {base}api/approvals/:requestId`. */
export interface ApprovalDecisionBody {
  approved: boolean;
  reason?: string;
}

/** Body of `POST {base}api/questions/:questionId`. */
export type QuestionAnswerBody = { value: string } | { text: string };

/** Body of `POST {base}api/tasks/:taskId/revise`. */
export interface TaskReviseBody {
  feedback: string;
}

/** Response of every successful POST. */
export interface ActionResponse {
  ok: true;
  /** The resumed turn's status, when the action ran one. */
  status?: string;
}
