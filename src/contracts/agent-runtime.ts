import type { EventEmitter } from "eventemitter3";
import type { AgentRegistry } from "./agent-registry.js";
import type { CompactionResult } from "./compaction.js";
import type { AnyZodSchema, JsonSchema, JsonValue } from "./json-schema.js";
import type { TenantGuard } from "./tenant-guard.js";
import type { LoopEvent } from "./loop-event.js";
import type { ApprovalRequest } from "./loop-result.js";
import type { UserMessage, UserPart } from "./message.js";
import type { Question, QuestionAnswer } from "./plan.js";
import type { AuditRecord, SessionSelector, SessionStore, SessionSummary } from "./session-store.js";
import type { TaskApi } from "./task.js";
import type { TurnResult } from "./turn-result.js";
import type { ChatContext } from "./tool-policy.js";
import type { InferToolInput } from "./tool.js";

export type { TurnResult } from "./turn-result.js";

/** Options of `runtime.auditLog`. */
export interface AuditLogQuery {
  /** Only records stored after this `seq` (page on with the last record's `seq`). @default 0 */
  afterSeq?: number;
  /** At most this many records. @default all */
  limit?: number;
  /** The session must be in this scope, else it is "not found". @default any scope */
  scope?: string;
  /**
   * The session must have a scope that starts with this (a plain prefix, see
   * `ListSessionsQuery.scopePrefix`; `""` = any scoped session), else it is "not found". Not
   * together with `scope` (`InvalidArgumentError`).
   * @default any scope
   */
  scopePrefix?: string;
}

/** What `pendingApprovals` and `pendingQuestions` take. */
export interface PendingQuery {
  /** That session's only. @default every session */
  sessionId?: string;
  /** That scope's only (exact match). @default every scope */
  scope?: string;
  /**
   * Only those of sessions whose scope starts with this: a plain prefix (`%`, `_`, `*`, `\` are
   * literal; use a separator, `"acme/"`, so that `"acme"` does not also match `"acme2"`). `""`
   * lists every scoped session's, never an unscoped one's. Not together with `scope`
   * (`InvalidArgumentError`). With a store that indexes approvals, read from the index: the cost
   * does not grow with the number of sessions.
   * @default every scope
   */
  scopePrefix?: string;
}

/** A question (`ask_user`) waiting for `answerQuestion`, as stored. */
export interface PendingQuestion {
  /** Pass it to `answerQuestion` (the id of the question's approval request). */
  questionId: string;
  /** The `ask_user` call that asked (the id its tool part carries in a UI stream). */
  toolCallId: string;
  sessionId: string;
  agentId: string;
  runId: string;
  question: Question;
  /** When the question was stored (ISO). */
  at: string;
  /** The sessions waiting on this question through sync `agents_message` calls, outermost first. */
  chain?: WaitingSession[];
}

/**
 * What a host sends to an agent. `C` types `context` (see `createAgentRuntime<C>()`).
 */
export interface SendInput<C = JsonValue> {
  agentId: string;
  /** The message. Leave it out only with `regenerate` (which runs a stored message again). */
  content?: string | UserPart[];
  /** @default "latest-or-create" */
  session?: SessionSelector;
  /**
   * The tenant / end user the message comes from. Sessions are resolved (and created) only in
   * this scope, and everything the turn sets off (delegation, background agents, notices) stays
   * in it. An explicit session id of another scope is "not found".
   * @default undefined (the unscoped space, for single-user apps)
   */
  scope?: string;
  /** @default { kind: "thread" } */
  chatContext?: ChatContext;
  signal?: AbortSignal;
  /**
   * Root structured output for this turn (see `LoopOptions.outputSchema`): the model ends through
   * `final_answer` and the validated value is the result's `structured`. Its JSON Schema form is
   * stored on the turn start, so a turn resumed after an approval (in any process) still ends
   * through it; there it is validated as JSON Schema (a zod transform does not apply after a resume).
   * @default undefined (the turn ends with text)
   */
  outputSchema?: AnyZodSchema | JsonSchema;
  /**
   * The turn's run id, as an idempotency key (a dispatch job's id, say): sent again under the
   * same `runId` to the same session (while it is among the session's last 64 turns), nothing
   * runs twice. A turn of that id that ended resolves
   * with its outcome rebuilt from the log (`storedTurnResult`); one that started and never ended
   * (its process died) is repaired, then continued by a turn whose run id is
   * `<runId>:retry-<n>` (the model sees the stored tool results; a call without a stored result is
   * reported to it as "may or may not have taken effect", never run again). Letters, digits and
   * `-_.:`, 1 to 128 characters.
   * @default a new UUID
   */
  runId?: string;
  /**
   * The host's data for this turn (tenant, user, plan limits, a request id): tools read it as
   * `ctx.context`, `approve` as `info.context`, a `policy` function as its third argument. It is
   * JSON, copied and stored with the turn's start, so a turn resumed after an approval (in any
   * process) sees the same value; delegated, background and sub-task turns the turn starts inherit
   * it. Not shown to the model. At most 64 KiB of JSON, nested at most 32 deep; anything that is
   * not JSON throws `InvalidArgumentError`.
   * @default undefined
   */
  context?: C;
  /**
   * What happens when the session has a decision pending (an approval or a question, its own or
   * one of an agent it waits on):
   * - `"queue"`: the message is stored (a `QueuedRecord`) and `send` / `stream` return at once:
   *   `send` with `status: "queued"` (and `queuedMessageId`), `stream` after a `message_queued`
   *   event. Whichever process ends the decision (or, after a crash, next touches the session:
   *   a message, a decision, `pendingApprovals` / `pendingQuestions` of that session) runs the
   *   queued messages once the resumed turn has ended, in arrival order, each exactly once, as
   *   the turn `runId` (its events reach that process's `runtime.events`). `signal` does not reach
   *   a queued message's turn; `outputSchema` is kept in its JSON Schema form (a zod transform does
   *   not apply);
   * - `"reject"`: `send` throws `PendingDecisionError` (naming the pending requests) and nothing changes;
   * - `"supersede"`: the pending decisions are denied with reason `"superseded"` (an
   *   `approval_resolved` event each; a later decision on one rejects with
   *   `ApprovalSupersededError`), then the message runs.
   * @default "queue"
   */
  ifPending?: "queue" | "reject" | "supersede";
  /**
   * What happens when a turn of the session is running (in this process or another that shares
   * the store):
   * - `"queue"`: the message runs once that turn (and anything queued before) has ended;
   * - `"steer"`: the message is stored, and the running turn reads it at its next step boundary
   *   (after its current tool batch, before its next model call) as a user message of its
   *   conversation (a `message_steered` event); `send` resolves with the outcome of that turn. A
   *   turn that ends before another step (it answered) leaves the message to run next, as its own
   *   turn (as with `"queue"`; `send` then resolves with that turn's outcome). A sub-task never
   *   sees it: only the turn's root level reads it;
   * - `"interrupt"`: the running turn is stopped (status `"aborted"`, `reason: "interrupted"`, a
   *   `turn_stopped` event; its tools get their abort signal), then the message runs;
   * - `"reject"`: `send` throws `SessionBusyError` and nothing is stored.
   * With no turn running, every mode sends the message as `"queue"` does (`ifPending` applies).
   * `stream` with `"steer"` yields the running turn's events from then on when it runs in this
   * runtime, and ends with its `done`.
   * @default "queue"
   */
  ifBusy?: "queue" | "steer" | "interrupt" | "reject";
  /**
   * The host's id for this user message (a UI's own message id), stored with it: `editOf`,
   * `runtime.rewind` and `forkSession` name the message by it. Unique among the session's current
   * messages (a message a rewind took out of the context frees its id): the same id again with the
   * same content is a retry and runs nothing twice (it resolves with the outcome of the turn that
   * answered that message, or continues it when its process died); with other content it throws
   * `InvalidArgumentError`. 1 to 256 characters, no control characters, no lone surrogates.
   * @default undefined (the message's id is the id the runtime stores it under)
   */
  messageId?: string;
  /**
   * Edit: the id of a user message of the session. The model's context resumes before it (a
   * `rewind` record, stored with the new turn's start), and `content` is sent in its place. Pass
   * `messageId` too to keep the message's id (as AI SDK `useChat` does: `editOf` and `messageId`
   * the same id). Every edit runs (an unchanged edit runs the message again); give `runId` to make
   * a retried request run once. An unknown id, or one that is not a user message's, throws
   * `InvalidArgumentError`.
   * @default undefined (a new message)
   */
  editOf?: string;
  /**
   * Regenerate: with no `content`, the last answer leaves the model's context and the last user
   * message of the session runs again, under its own id (an edit of it with the same content).
   * No user message to run again throws `InvalidArgumentError`.
   * @default false
   */
  regenerate?: boolean;
}

/** Options of `runtime.stopTurn` (with a tenant guard: a session outside it is "not found"). */
export interface StopTurnOptions extends TenantGuard {
  /**
   * Stop only this turn: the run id of the running turn, or of the turn it resumes (the run id a
   * suspended turn's result carried). @default whichever turn runs
   */
  runId?: string;
  /** Stored on the turn's end record, on its `turn_stopped` event and as its result's `reason`. @default "stopped" */
  reason?: string;
}

/**
 * What `runtime.rewind` takes: the message the context resumes before, and the tenant guard (a
 * session outside it is "not found").
 */
export interface RewindOptions extends TenantGuard {
  /** The id of a root user or assistant message of the session's current context. */
  before: string;
}

/**
 * What `runtime.forkSession` takes: where the copy ends, the new session's name, and the tenant
 * guard (a session outside it is "not found").
 */
export interface ForkSessionOptions extends TenantGuard {
  /**
   * The id of a root user or assistant message of the source's current context: the fork's history
   * stops before it.
   * @default undefined (the whole current context)
   */
  before?: string;
  /** The new session's name. @default the source's name */
  name?: string;
}

/**
 * A decision for `resolveApproval` (with an optional idempotency key and tenant guard: with
 * `scope` / `scopePrefix` set, a request of a session outside them is "not found").
 */
export interface ResolveDecision extends TenantGuard {
  approved: boolean;
  reason?: string;
  /**
   * Idempotency key of this decision (a dispatch job's id, say): when the decision stored for the
   * request carries the same `decisionId`, a repeated call resolves with the resumed turn's
   * outcome (rebuilt from the log) instead of rejecting with `ApprovalAlreadyResolvedError`.
   * @default a new UUID (every call is a distinct decider)
   */
  decisionId?: string;
}

/** Where `postSystemMessage` goes. */
export interface SystemMessageTarget {
  /** That session (when `scope` is given, it must be in it, else "not found"). */
  sessionId?: string;
  /** That agent's `latest-or-create` session in `scope`. */
  agentId?: string;
  /** The scope to stay in. @default undefined (the unscoped space, for `agentId` targets) */
  scope?: string;
}

/**
 * What a runtime event is about, beyond its session (the task event catalogue's `task_id`, `step_idx`,
 * `sub_agent_id` and `turn`). Each is set only where it applies; all are optional and additive.
 */
export interface RuntimeEventLabels {
  /**
   * The task the session holds (`runtime.tasks`): set on every event of a task's session, turns
   * and lifecycle events alike. @default undefined (the session is not a task's)
   */
  taskId?: string;
  /**
   * The 0-based index in the approved plan's `steps` of the step a sub-task carries out: the
   * model names it with `run_subtask`'s `plan_step` (the step's 1-based `step_number`). Set on
   * the `run_subtask` call's own `tool_call_update` events and on every event inside that
   * sub-task (nested sub-tasks inherit it unless they name their own step).
   * @default undefined (not inside a sub-task that names a plan step)
   */
  stepIndex?: number;
  /**
   * The background agent's session id (the catalogue's sub-agent): set on every event of a
   * background session (`agents_start_background`), turns and lifecycle events alike.
   * @default undefined (not a background agent's session)
   */
  subagentId?: string;
  /**
   * The turn's number in its session, from 1. Read from the store (the turn starts since the
   * session's last reset), so every process numbers a session's turns alike. A turn resumed after
   * an approval or a question, or continued after a crash, keeps its number. A reset (`clear`,
   * an emergency context reset) numbers again from 1. Set on the events of a turn only.
   * @default undefined (events outside a turn: task and background-agent lifecycle, queued messages)
   */
  turn?: number;
}

/**
 * A loop event with where it came from, a per-runtime monotonic `seq`, a timestamp (ms), and the
 * labels of {@link RuntimeEventLabels} where they apply.
 */
export type RuntimeEvent = LoopEvent & {
  sessionId: string;
  agentId: string;
  runId: string;
  seq: number;
  ts: number;
} & RuntimeEventLabels;

/** A session waiting, through `agents_message`, on a request asked further down a delegation chain. */
export interface WaitingSession {
  sessionId: string;
  agentId: string;
}

/** An approval waiting for a decision, as stored. */
export interface PendingApproval {
  requestId: string;
  sessionId: string;
  agentId: string;
  runId: string;
  request: ApprovalRequest;
  /** When the request was stored (ISO). */
  at: string;
  /**
   * The sessions waiting on this request through sync `agents_message` calls, outermost first
   * (the conversation the user sees is the first): set when it was asked by a delegated agent.
   */
  chain?: WaitingSession[];
}

/**
 * A call of a tool with no `execute` (it runs in the client), waiting for `submitToolResult`, as
 * stored.
 */
export interface PendingToolCall {
  /** The call's id: pass it to `submitToolResult` (the id the UI stream's tool part carries). */
  toolCallId: string;
  /** The tool's name. */
  name: string;
  /** The arguments to run it with: valid for its input schema, as the `beforeToolCall` hook left them. */
  args: unknown;
  sessionId: string;
  agentId: string;
  runId: string;
  /** When the call was stored (ISO). */
  at: string;
  /** The sessions waiting on this call through sync `agents_message` calls, outermost first. */
  chain?: WaitingSession[];
}

/**
 * What `submitToolResult` takes: the client's result for the call, with an optional tenant guard
 * (a call of a session outside `scope` / `scopePrefix` is "not found").
 */
export interface ClientToolResult extends TenantGuard {
  /**
   * The result the model reads: JSON, at most 256 KiB of it, valid for the tool's
   * `outputSchema` when it has one (unless `isError`).
   */
  output: unknown;
  /** The client could not run the call: `output` (say, its error text) reaches the model as an error result. @default false */
  isError?: boolean;
  /**
   * The session the call belongs to, or one waiting on it (a chat's own session): needed only
   * when two pending calls of the guard's sessions share the id (ids are the model's, unique per
   * turn), and lets a repeated submit find a call that is no longer pending.
   * @default undefined (every session the guard allows)
   */
  sessionId?: string;
  /** Idempotency key, as `ResolveDecision.decisionId`. @default a new UUID */
  decisionId?: string;
}

/**
 * A turn a runtime started on its own, as handed to a turn dispatcher (see
 * `AgentRuntime.setTurnDispatcher`): plain JSON, to be run by `runDispatchedTurn` in any process.
 * It carries its share of the limits of the user message it descends from, so a chain of agents
 * spread over many processes stays as bounded as in one.
 */
export interface DispatchedTurn {
  /**
   * The turn's run id: the same hand-off always has the same one (derived from the tool call), so running it twice runs
   * it once.
   */
  runId: string;
  /** The session the turn runs in. */
  sessionId: string;
  /** The session's agent. */
  agentId: string;
  /** The message the turn answers (a user message, or a `<system_message>` from another agent). */
  message: UserMessage;
  /** Agents waiting on this turn through `agents_message`, outermost first. */
  chain: string[];
  /** Agent-to-agent hops from the user message this turn descends from (checked against `maxAgentHops`). */
  hops: number;
  /**
   * Model calls this turn and every turn it starts may still make together: its share of the root turn's
   * `maxTotalLlmCalls`.
   */
  maxLlmCalls: number;
  /**
   * Background agents this turn and every turn it starts may still start together: its share of `maxBackgroundAgents`.
   */
  maxBackgroundAgents: number;
  /** The host context of the turn that started this one (inherited). */
  context?: JsonValue;
}

/** Events the runtime emits on `runtime.events`. */
export type RuntimeEvents = { event: [RuntimeEvent] };

/**
 * The runtime event of one `type`, e.g. `RuntimeEventOf<"approval_request">` (the loop's event
 * of that type with the runtime's labels).
 */
export type RuntimeEventOf<T extends RuntimeEvent["type"]> = Extract<RuntimeEvent, { type: T }>;

/** The host-facing runtime. `C` types the host context of `send` / `stream` (`SendInput.context`). */
export interface AgentRuntime<C = JsonValue> {
  /**
   * Runs one turn; queued per session (one message at a time, in arrival order). A session that
   * waits for a decision stores the message and resolves at once with `status: "queued"` (see
   * `SendInput.ifPending`).
   */
  send<S extends AnyZodSchema | JsonSchema = JsonSchema>(
    input: SendInput<C> & { outputSchema?: S },
  ): Promise<TurnResult<InferToolInput<S>>>;
  /**
   * The same as `send`, as events; ends with the turn's `done`, after its end record is stored (or
   * with `message_queued` when the message was stored behind a pending decision).
   *
   * Breaking out of the loop (or never reading) does not stop the turn: it is stored as it runs
   * and others may be listening on `events`. The turn never waits for the reader: a reader that
   * falls `maxStreamBacklog` events behind (default 10,000) gets a `warning` with code
   * `stream_overflow` after the events queued so far, and the stream ends there, without `done`.
   * To stop a turn, abort the `signal` you passed:
   * @example
   * const controller = new AbortController();
   * for await (const event of runtime.stream({ agentId: "todo", content: "Plan my week", signal: controller.signal }))
   * {
   *   if (event.type === "chunk" && userPressedStop()) controller.abort(); // the turn ends "aborted"
   * }
   */
  stream(input: SendInput<C>): AsyncIterable<RuntimeEvent>;
  /**
   * Records `text` from agent `origin` as a `<system_message>` in the target session and, unless
   * `silent`, runs a turn on it. Resolves once recorded and, unless silent, once that turn finished
   * (or once stored as a queued message, when the session waits for a decision: see `SendInput.ifPending`).
   */
  postSystemMessage(
    target: SystemMessageTarget,
    text: string,
    options: { origin: string; silent?: boolean },
  ): Promise<void>;
  /**
   * Every session's events. A listener that throws is reported to `onError` (`listener_failed`); the listeners after it
   * still get the event.
   */
  events: EventEmitter<RuntimeEvents>;
  store: SessionStore;
  registry: AgentRegistry;
  /**
   * Approvals awaiting a decision, read from the store (so also those of other processes).
   * `scope`: that scope's only (exact match); `scopePrefix`: those of every scope starting with
   * it; neither: every scope. With a store that indexes approvals (`ApprovalIndexStore`: memory,
   * SQLite, Postgres) the cost does not grow with the number of sessions.
   */
  pendingApprovals(query?: PendingQuery): Promise<PendingApproval[]>;
  /**
   * Decides an approval and, once every approval of that turn is decided, resumes the turn.
   * Exactly once: of several calls for one request, in one process or many, one resumes the
   * turn; the others reject with `ApprovalAlreadyResolvedError`.
   */
  resolveApproval(requestId: string, decision: ResolveDecision): Promise<TurnResult>;
  /**
   * The session's audit records, oldest first: one per tool call of every turn (its `entry` is an
   * `AuditEntry`), read from the store, so also those written by other processes. Page with
   * `afterSeq` (the last record's `seq`) and `limit`. Throws `SessionNotFoundError` for an unknown
   * session or one outside `scope` / `scopePrefix`.
   * @example
   * for (const { entry } of await runtime.auditLog(sessionId)) console.log(entry.tool, entry.decision,
   * entry.argsDigest);
   */
  auditLog(sessionId: string, query?: AuditLogQuery): Promise<AuditRecord[]>;
  /**
   * Answers a question the agent asked with `ask_user` and resumes its turn; the answer is the
   * call's result (`{ answer: value, label }` for an option, `{ answer: text, custom: true }` for
   * free text). A value that is not an option's, or text where `allow_custom` is not set, throws
   * `InvalidArgumentError` and changes nothing. Exactly once, like `resolveApproval`: a second
   * answer (from any process) rejects with `ApprovalAlreadyResolvedError`.
   */
  answerQuestion(
    questionId: string,
    answer: QuestionAnswer & { decisionId?: string } & TenantGuard,
  ): Promise<TurnResult>;
  /**
   * Questions awaiting an answer, read from the store (so also other processes'). Questions are
   * not listed by `pendingApprovals`, nor approvals here. `scope` / `scopePrefix` as there.
   */
  pendingQuestions(query?: PendingQuery): Promise<PendingQuestion[]>;
  /**
   * Calls of client tools (tools with no `execute`) waiting for their result, read from the store
   * (so also other processes'). Neither approvals nor questions are listed here, nor these there.
   * `scope` / `scopePrefix` / `sessionId` as in `pendingApprovals` (with `sessionId`, also the
   * calls of agents it waits on, with their `chain`).
   */
  pendingToolCalls(query?: PendingQuery): Promise<PendingToolCall[]>;
  /**
   * Stores the client's result for a client tool call and, once nothing else of its turn is
   * pending, resumes the turn and returns its outcome. Exactly once, like `resolveApproval`: of
   * several calls for one tool call (from any process) one stores its result; the others reject
   * with `ApprovalAlreadyResolvedError` (the same `decisionId` again gets the resumed turn's
   * outcome). An unknown id, or one outside the tenant guard, rejects with
   * `ApprovalNotFoundError`; an output that is not JSON, too large, or not valid for the tool's
   * `outputSchema` with `InvalidArgumentError`, and nothing is stored.
   */
  submitToolResult(toolCallId: string, result: ClientToolResult): Promise<TurnResult>;
  /**
   * Switches the session's role: recorded in its log and used from its next turn. A
   * turn of the session running in this runtime is stopped first (it ends `aborted`, its end
   * record has `reason: "role_changed"`). Emits `role_changed`; switching to the current role
   * does nothing. Unknown role → `InvalidArgumentError`; unknown session → `SessionNotFoundError`.
   */
  setRole(sessionId: string, role: string): Promise<void>;
  /**
   * Stops the turn running on the session, in this process or in another that shares the store:
   * it ends `"aborted"` with `reason` (a `turn_stopped` event, the result's `reason`), its running
   * tools and model call get their abort signal, and what it stored stays (tool results of calls
   * that finished, the stopped calls answered with an error result), so the session goes on with
   * the next message. Resolves `true` once the turn was told: when it runs in this runtime, after
   * it has ended; when it runs in another process, once the stop is stored (that process sees the
   * stop through the store's `"stop"` signal, or at the turn's next step boundary when the signal
   * was lost). Resolves `false` when no turn runs (a session waiting for a decision has none:
   * its pending approvals stay pending) or the running turn is not `runId`. Unknown session, or
   * one outside `scope` / `scopePrefix` → `SessionNotFoundError`.
   * @example
   * await runtime.stopTurn(sessionId, { reason: "user_pressed_stop", scope: userId });
   */
  stopTurn(sessionId: string, options?: StopTurnOptions): Promise<boolean>;
  /**
   * Rewinds the conversation: the model's context resumes before message `before` (the host's
   * `messageId` of a user message, or the id an assistant message's `message` event, session
   * snapshots and the UI stream carry). Nothing is deleted: a `rewind` record is appended (it lists
   * the tool calls that ran after that point; what they did is not undone), the log and the audit
   * entries stay, decided approvals stay decided. A turn left open by a crash is closed first.
   * Refused while a turn of the session runs (in any process: `SessionBusyError`) or a decision is
   * pending (`PendingDecisionError`); an unknown session, or one outside the tenant guard, throws
   * `SessionNotFoundError`; a `before` that is not a user or assistant message of the current
   * context throws `InvalidArgumentError`.
   * @example
   * await runtime.rewind(sessionId, { before: "msg-3", scope: userId });
   */
  rewind(sessionId: string, options: RewindOptions): Promise<void>;
  /**
   * Forks the conversation: a new session of the same agent, in the same scope, whose history is a
   * copy of the source's current context up to `before` (the messages themselves, with their ids;
   * not the source's approvals, audit entries or artifacts, so nothing decided there is decided or
   * run again here). Its attributes carry `forkedFrom: { sessionId, before }` (and the source's
   * role); the source is not changed, and later changes to it do not reach the fork. Refused as
   * `rewind` is (a running turn, a pending decision, outside the tenant guard, an unknown `before`).
   * A fork of a task's session is a plain session (the task stays with its own).
   */
  forkSession(sessionId: string, options?: ForkSessionOptions): Promise<SessionSummary>;
  /**
   * Compacts the session's context now: its older turns are replaced in the model's context by a
   * summary (written as `AgentRuntimeOptions.compaction` says; `instructions` reach the summary's
   * writer), the latest `keepRecentTurns` stay verbatim, and a `compaction` record is stored (the
   * log keeps every message). A turn waiting on a decision stays whole with its pending call, so
   * the decision resumes it as before. Emits `context_compacted`; resolves `compacted: false` when
   * nothing is older than the turns kept. Works with `compaction: false` too.
   *
   * Refused with `SessionBusyError` while a turn of the session runs (in this runtime, or in
   * another that holds the session's lease). Unknown session, or one outside `scope` /
   * `scopePrefix` → `SessionNotFoundError`.
   * @example
   * await runtime.compact(sessionId, { instructions: "Keep every file path we touched." });
   */
  compact(sessionId: string, options?: { instructions?: string } & TenantGuard): Promise<CompactionResult>;
  /** Tasks: plan, review, act. See {@link TaskApi}. */
  tasks: TaskApi;
  /**
   * For dispatchers (`createPgBossDispatcher` installs one on `start()` and removes it on
   * `close()`): hands every turn this runtime starts on its own (an `agents_message` with
   * `mode: "async"`, a background agent's first message, a `send_agent_message`, a background
   * agent's end notice to its parent) to `dispatch` instead of running it here. The tool call that
   * starts such a turn waits until `dispatch` resolves (the turn is stored durably) and fails with
   * an error result the model reads when it rejects; the turn then runs wherever the dispatcher
   * sends it, through {@link AgentRuntime.runDispatchedTurn}. `undefined` runs them here again.
   * @default none (such turns run in this process)
   */
  setTurnDispatcher(dispatch: ((turn: DispatchedTurn) => Promise<void>) | undefined): void;
  /**
   * For dispatchers: runs a turn handed over through {@link AgentRuntime.setTurnDispatcher} (from
   * this or another process) on its session, in the session's order, under its lease. Runs once:
   * the same `turn.runId` again gets the stored outcome (a turn whose process died is continued).
   * Throws `SessionNotFoundError` / `AgentNotFoundError` when the session or agent is gone.
   */
  runDispatchedTurn(turn: DispatchedTurn): Promise<TurnResult>;
  /** Waits for queued turns to finish; later calls reject. */
  close(): Promise<void>;
}
