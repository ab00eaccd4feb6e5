import type { BudgetReason } from "./budget.js";
import type { CompactionSource } from "./compaction.js";
import type { ApprovalRequest, LoopResult } from "./loop-result.js";
import type { Message, UserMessage } from "./message.js";
import type { Plan, PlanSummary, Question } from "./plan.js";

/** Fields every loop event carries: where in the sub-task tree it happened. */
export interface EventOrigin {
  /** 0 at the root. */
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`; null at the root. */
  parentId: string | null;
}

/** A model call is about to start (`iteration` counts from 1 within the level). */
export interface LlmCallStartEvent extends EventOrigin {
  type: "llm_call_start";
  iteration: number;
  /** The model this call asks for (after `prepareStep`). Set by the loop; absent in events recorded before it was. */
  model?: string;
  /** The id of the provider the call goes to (`Provider.id`). Set by the loop; absent in events recorded before it was. */
  provider?: string;
}

/** Streamed assistant text. `done: true` closes a streamed message; `streamId` names the stream. */
export interface ChunkEvent extends EventOrigin {
  type: "chunk";
  content: string;
  done?: boolean;
  streamId?: string;
}

/** An assistant message began streaming text. */
export interface MessageStreamStartedEvent extends EventOrigin {
  type: "message_stream_started";
  streamId: string;
}

/** A streamed assistant message ended as the level's answer. */
export interface MessageStreamCompletedEvent extends EventOrigin {
  type: "message_stream_completed";
  streamId: string;
}

/**
 * A streamed message did not end as an answer: `reason` is `"tool_calls"` (the model went on to
 * call tools; its text stays in the message as their preamble), `"aborted"` or `"error"`.
 */
export interface MessageStreamCancelledEvent extends EventOrigin {
  type: "message_stream_cancelled";
  streamId: string;
  reason: string;
}

/** Streamed model reasoning. */
export interface ThinkingEvent extends EventOrigin {
  type: "thinking";
  content: string;
}

/** A finished message of this level, to persist. */
export interface LoopMessageEvent extends EventOrigin {
  type: "message";
  message: Message;
  /**
   * The id the runtime stored the message under: what `runtime.rewind`'s `before` and
   * `forkSession`'s `before` take. A turn's first root answer is stored under the turn's `runId`
   * (the id the AI SDK UI stream gives its assistant message).
   * @default undefined (the bare loop stores nothing)
   */
  messageId?: string;
}

/** The model asked for tools; they are about to be dispatched. */
export interface ToolCallsPreparingEvent extends EventOrigin {
  type: "tool_calls_preparing";
  names: string[];
}

/**
 * The model is writing a tool call's arguments (a provider that streams them: every built-in
 * adapter does). `delta` is the next piece of the arguments' JSON text, not valid JSON on its own;
 * the first event of a call says it began and may have an empty `delta`. `toolCallId` is the id
 * the call is stored under, the one its `tool_call_update` events carry. For display only: the
 * call's `start` event carries the arguments that count, and a call that is never completed (the
 * response was cut off or failed) gets no `start`. Bounded by the loop: see `TOOL_INPUT_LIMITS`.
 */
export interface ToolInputDeltaEvent extends EventOrigin {
  type: "tool_input_delta";
  toolCallId: string;
  /** The tool's name, as the model named it. */
  name: string;
  delta: string;
  /** The named tool has no `execute`: it runs in the client (see `ToolCallUpdateEvent.client`). */
  client?: true;
}

/**
 * Why a call was not run, on its `end` event (its result is the refusal the model reads):
 * `unknown_tool` (not in the toolbelt), `not_permitted` (its permission class, or `run_subtask`
 * without `subagent`), `mcp_server_not_allowed`, `invalid_arguments` (not JSON, or the schema
 * says no), `depth_limit` (sub-task nesting), `approval_check_failed` (a `requiresApproval`
 * function threw), `budget_exceeded` and `aborted` (the turn could not run it any more), and
 * `hook_blocked` (the host's `beforeToolCall` hook blocked it).
 */
export type ToolRefusal =
  | "unknown_tool"
  | "not_permitted"
  | "mcp_server_not_allowed"
  | "invalid_arguments"
  | "depth_limit"
  | "approval_check_failed"
  | "budget_exceeded"
  | "aborted"
  | "hook_blocked";

/** A tool call started or ended. Every `start` gets exactly one `end`. */
export interface ToolCallUpdateEvent extends EventOrigin {
  type: "tool_call_update";
  toolCallId: string;
  name: string;
  status: "start" | "end";
  args?: unknown;
  result?: unknown;
  isError?: boolean;
  durationMs?: number;
  /** On `end`: the call was not run, and why (a denied approval is not a refusal: see `approval_resolved`). */
  refused?: ToolRefusal;
  /**
   * The tool has no `execute`: the call runs in the client. Set on its `start` (a
   * `client_tool_call` event follows once the call goes to the client, after any approval, and
   * the turn waits for `runtime.submitToolResult`) and on its `end` (the client's result).
   */
  client?: true;
  /**
   * On `end`: what the host's hooks changed: `"args"` (`beforeToolCall` ran the tool with other
   * arguments), `"result"` (`afterToolCall` replaced what the model reads).
   */
  rewritten?: ("args" | "result")[];
}

/**
 * How much a tool's log line matters (`ctx.log`); the catalogue's `log.*` events (`toTaskEvents`) are named after it.
 */
export type ToolLogLevel = "debug" | "info" | "warn" | "error";

/**
 * A line a running tool wrote with `ctx.log(level, message)` (the progress of a long call, say),
 * between the call's `start` and `end`. Bounded by the loop: see `TOOL_LOG_LIMITS`.
 */
export interface ToolLogEvent extends EventOrigin {
  type: "tool_log";
  toolCallId: string;
  /** The tool's name. */
  name: string;
  level: ToolLogLevel;
  /** At most `TOOL_LOG_LIMITS.lineChars` characters (a longer line is cut, ending in "…"). */
  message: string;
}

/** A tool call waits for approval. */
export interface ApprovalRequestEvent extends EventOrigin {
  type: "approval_request";
  request: ApprovalRequest;
}

/**
 * A call of a tool with no `execute` waits for the client to run it: the turn suspends until
 * `runtime.submitToolResult(request.toolCallId, { output })` (the call's `start` went out before,
 * with `client: true`; its `end` comes in the resumed turn). Through a delegation chain, the call
 * an agent further down made is reported in the waiting session's stream with `request.origin`.
 */
export interface ClientToolCallEvent extends EventOrigin {
  type: "client_tool_call";
  /** The call (`toolCallId`, `name`, `args`), with `client: true`. */
  request: ApprovalRequest;
}

/** An approval was decided. */
export interface ApprovalResolvedEvent extends EventOrigin {
  type: "approval_resolved";
  requestId: string;
  approved: boolean;
  reason?: string;
}

/**
 * A message sent with `ifPending: "queue"` (the default) waits: the session has decisions pending
 * (`pendingRequestIds`). It runs once they are decided and the resumed turn has ended. A message
 * sent by the host (`send`, `stream`, `postSystemMessage`) is stored before this event (see
 * `QueuedRecord`), and its turn will have the event's `runId`.
 */
export interface MessageQueuedEvent extends EventOrigin {
  type: "message_queued";
  sessionId: string;
  /**
   * The stored queued message's id (`queued:<runId>`); absent for a message of another agent,
   * which waits in the memory of the process that sent it.
   * @default undefined
   */
  queuedMessageId?: string;
  /** The approvals and questions the message waits behind (`resolveApproval` / `answerQuestion` take them). */
  pendingRequestIds: string[];
}

/** Usage of one model call. */
export interface UsageEvent extends EventOrigin {
  type: "usage";
  inputTokens: number;
  outputTokens: number;
  model: string;
  costUsd?: number;
  cachedInputTokens?: number;
  /** The reasoning tokens among `outputTokens`, when the provider reports them. */
  reasoningTokens?: number;
}

/** A budget was spent; the turn stops. Emitted once per turn. */
export interface BudgetExceededEvent extends EventOrigin {
  type: "budget_exceeded";
  reason: BudgetReason;
  limit: number;
  observed: number;
}

/** Something the host should know about; the run goes on. */
export interface WarningEvent extends EventOrigin {
  type: "warning";
  code: string;
  message: string;
}

/** The level failed (provider error, script ran out, ...). */
export interface LoopErrorEvent extends EventOrigin {
  type: "error";
  message: string;
  /** A provider error's type or code, when it had one. */
  code?: string;
  /** A provider error's HTTP status. */
  status?: number;
  /** Whether a provider error may succeed on retry. */
  retryable?: boolean;
  /** The provider's id, for a provider error. */
  provider?: string;
}

/** A task's lifecycle state. */
export type TaskStatus = "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";

/** A task moved from one status to another (`from` null at creation). */
export interface TaskStatusEvent extends EventOrigin {
  type: "task_status";
  taskId: string;
  from: TaskStatus | null;
  to: TaskStatus;
}

/** Plan generation began. */
export interface PlanningStartedEvent extends EventOrigin {
  type: "planning_started";
  taskId?: string;
}

/** An artifact was stored by `create_artifact` (`preview`: the first characters of its content). */
export interface ArtifactCreatedEvent extends EventOrigin {
  type: "artifact_created";
  artifactId: string;
  filename: string;
  kind: string;
  preview: string;
}

/** A plan was submitted with `create_artifact` (kind `plan`) and parsed. */
export interface PlanReadyEvent extends EventOrigin {
  type: "plan_ready";
  artifactId: string;
  /** The parsed plan: what a reviewer is shown, and what the actor gets on approval. */
  plan: Plan;
  /** The same plan in the task view's shape (goal, step titles and descriptions; see {@link PlanSummary}). */
  summary: PlanSummary;
  taskId?: string;
}

/** The agent asks the user (`ask_user`); the turn waits for `answerQuestion(questionId, ...)`. */
export interface QuestionEvent extends EventOrigin {
  type: "question";
  questionId: string;
  /** The `ask_user` call that asked (its `tool_call_update` events carry the same id). Always set by the runtime. */
  toolCallId?: string;
  question: Question;
}

/** A session switched roles (`from` null when it ran without one). */
export interface RoleChangedEvent extends EventOrigin {
  type: "role_changed";
  sessionId: string;
  from: string | null;
  to: string;
}

/** A background agent's lifecycle state. */
export type SubagentStatus = "created" | "running" | "waiting_for_merge" | "completed" | "failed" | "closed";

/** A background agent (session `sessionId`, started from `parentSessionId`) moved in its lifecycle. */
export interface SubagentStatusEvent extends EventOrigin {
  type: "subagent_status";
  sessionId: string;
  parentSessionId: string;
  from: SubagentStatus | null;
  to: SubagentStatus;
}

/** Last event of the root level. */
export interface DoneEvent extends EventOrigin {
  type: "done";
  result: LoopResult;
}

/**
 * A preliminary result of a running tool call: a value its `execute` (an async generator) yielded,
 * between the call's `start` and `end` (the AI SDK UI stream's preliminary `tool-output-available`).
 * The value is a plain JSON copy, bounded by the loop (see `TOOL_PROGRESS_LIMITS`); the model reads
 * only the call's result.
 */
export interface ToolProgressEvent extends EventOrigin {
  type: "tool_progress";
  toolCallId: string;
  /** The tool's name. */
  name: string;
  progress: unknown;
}

/**
 * A guardrail hook blocked the turn: `guardInput` before any model call, or `guardOutput` before
 * the final answer was stored. The turn ends with status `"blocked"`.
 */
export interface GuardrailTrippedEvent extends EventOrigin {
  type: "guardrail_tripped";
  guard: "input" | "output";
  reason: string;
}

/**
 * A message sent with `ifBusy: "steer"` reached the running turn: it was read at a step boundary
 * of the root level (after a tool batch, before the next model call) and stored as a user message
 * of the turn's conversation, which the model sees from its next call on. Always at depth 0.
 */
export interface MessageSteeredEvent extends EventOrigin {
  type: "message_steered";
  /** The message as stored. */
  message: UserMessage;
  /** The id of its stored `message` record. */
  messageId: string;
}

/**
 * The runtime stopped the turn before it ended on its own: `runtime.stopTurn` (from any process),
 * a message sent with `ifBusy: "interrupt"` (`reason: "interrupted"`), a role switch
 * (`"role_changed"`) or a cancelled task (`"task_cancelled"`). Comes just before the turn's
 * `done`, whose status is `"aborted"`; `reason` is also the result's `reason`.
 */
export interface TurnStoppedEvent extends EventOrigin {
  type: "turn_stopped";
  reason: string;
}

/**
 * A session's context was compacted: its older turns were replaced in the model's context by
 * `summary` (a `compaction` record; the log keeps every message). `trigger` says whether a turn
 * did it before its first model call (`"auto"`, past `triggerTokens`) or `runtime.compact` did.
 */
export interface ContextCompactedEvent extends EventOrigin {
  type: "context_compacted";
  sessionId: string;
  trigger: "auto" | "manual";
  source: CompactionSource;
  summary: string;
  /** Estimated context size before and after (the system prompt and the messages). */
  tokensBefore: number;
  tokensAfter: number;
  /** Root messages the summary replaced. */
  summarizedMessages: number;
  /** The stored `compaction` record's id. */
  recordId: string;
}

/** Every event the loop yields. Plain JSON, discriminated on `type`. */
export type LoopEvent =
  | LlmCallStartEvent
  | ChunkEvent
  | MessageStreamStartedEvent
  | MessageStreamCompletedEvent
  | MessageStreamCancelledEvent
  | ThinkingEvent
  | LoopMessageEvent
  | ToolCallsPreparingEvent
  | ToolInputDeltaEvent
  | ToolCallUpdateEvent
  | ToolLogEvent
  | ToolProgressEvent
  | ApprovalRequestEvent
  | ClientToolCallEvent
  | ApprovalResolvedEvent
  | MessageQueuedEvent
  | UsageEvent
  | BudgetExceededEvent
  | WarningEvent
  | LoopErrorEvent
  | TaskStatusEvent
  | PlanningStartedEvent
  | ArtifactCreatedEvent
  | PlanReadyEvent
  | QuestionEvent
  | RoleChangedEvent
  | SubagentStatusEvent
  | GuardrailTrippedEvent
  | MessageSteeredEvent
  | TurnStoppedEvent
  | ContextCompactedEvent
  | DoneEvent;
