/**
 * `@agentry/core`: embed LLM agents in your application.
 *
 * Tools and policy, the unified agent loop with sub-tasks and budgets, agents, sessions and the
 * runtime. Imports nothing from `node:*`: runs in Node, Bun, Deno, browsers and edge runtimes.
 * Provider adapters and stores with extra dependencies live behind subpaths
 * (`@agentry/core/openai`, `@agentry/core/anthropic`, `@agentry/core/node`, `@agentry/core/sqlite`).
 *
 * @module \@agentry/core
 */

// --- errors ---
export { AgentryError } from "./errors/agentry-error.js";
export {
  AgentConfigError,
  AgentNotFoundError,
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  ApprovalSupersededError,
  PendingDecisionError,
  InvalidArgumentError,
  ProviderError,
  UnsupportedContentError,
  SessionNotFoundError,
  SessionOwnershipError,
  SessionStoreError,
  LeaseLostError,
  SessionBusyError,
  DispatchError,
} from "./errors/errors.js";

// --- messages ---
export type {
  AssistantMessage,
  AssistantPart,
  AudioPart,
  ImagePart,
  FilePart,
  Message,
  MessageType,
  TextPart,
  ThinkingPart,
  ToolCallPart,
  ToolMessage,
  ToolResultContent,
  ToolResultContentPart,
  ToolResultPart,
  Usage,
  UserMessage,
  UserPart,
} from "./contracts/message.js";

// --- schema ---
export type { JsonSchema, JsonValue } from "./contracts/json-schema.js";

// --- tools ---
export type { Tool, ToolContext, InferToolInput } from "./contracts/tool.js";
export { defineTool } from "./tools/define-tool.js";
export type { ToolDefinition } from "./tools/define-tool.js";

// --- policy ---
export type { ChatContext, PermissionClass, ToolPolicy } from "./contracts/tool-policy.js";
// (policy functions: see block below)
// >>> policy block
export { composeToolbelt } from "./policy/compose-toolbelt.js";
export type { ComposeToolbeltOptions, ToolbeltWarningCode } from "./policy/compose-toolbelt.js";
export { defaultPolicy } from "./policy/default-policy.js";
export type { DefaultPolicyOptions } from "./policy/default-policy.js";
export { isPathInside } from "./policy/is-path-inside.js";
export { scopeTools } from "./policy/scope-tools.js";
// <<< policy block

// --- plan, review, act ---
export { roles } from "./modes/roles.js";
export type { RoleDefinition } from "./modes/roles.js";
export { defineRole } from "./modes/define-role.js";
export { PlanSchema, QuestionSchema } from "./modes/plan-format.js";
export type { Plan, PlanStep, PlanSummary, Question, QuestionOption, QuestionAnswer } from "./contracts/plan.js";
export { parsePlan } from "./modes/parse-plan.js";

// --- providers (contract) ---
export type {
  ModelCaller,
  ModelEvent,
  ModelRequest,
  ToolChoice,
  PricingTable,
  Provider,
} from "./contracts/provider.js";

// --- loop ---
export type { BudgetLimits, BudgetReason } from "./contracts/budget.js";
export type { ExecutionTreeNode, ExecutionTreeSnapshot } from "./contracts/execution-tree.js";
export type {
  ApprovalContext,
  ApprovalDecision,
  ApprovalHandler,
  ApprovalRequest,
  LoopResult,
  LoopStatus,
  ResumeState,
} from "./contracts/loop-result.js";
// One event type by name: `RuntimeEventOf<"approval_request">` (see the runtime block).
export type {
  LoopErrorEvent,
  LoopEvent,
  LoopMessageEvent,
  PlanReadyEvent,
  TaskStatus,
} from "./contracts/loop-event.js";
export type {
  AfterToolCallDecision,
  BeforeToolCallDecision,
  GuardInput,
  GuardOutput,
  RuntimeHooks,
  StepInfo,
  StepRecord,
  StepSettings,
  ToolCallInfo,
  TurnInfo,
} from "./contracts/hooks.js";
// >>> loop block
export { runUnifiedAgentLoop } from "./loop/run-unified-agent-loop.js";
export type { LoopOptions } from "./loop/run-unified-agent-loop.js";
export { DEFAULT_BUDGET, createTurnBudget } from "./loop/budget.js";
// A type only: `createTurnBudget` is the one way to make a budget.
export type { TurnBudget } from "./loop/budget.js";
// <<< loop block

// --- agents ---
// >>> agents block
export type { AgentListQuery, AgentRegistry } from "./contracts/agent-registry.js";
export { createAgentRegistry } from "./agents/create-agent-registry.js";
export type { AgentRegistryConfig } from "./agents/create-agent-registry.js";
export type { Skill } from "./agents/skill.js";
export type { PromptSection, PromptSectionContext, PromptSectionSource } from "./agents/prompt-section.js";
// <<< agents block
export type { AgentDefinition } from "./contracts/agent-definition.js";

// --- sessions ---
export type {
  AcquireLeaseOptions,
  AppendOptions,
  ApprovalIndexStore,
  CreateSessionInit,
  HistoryRecord,
  IndexedApproval,
  LeasableSessionStore,
  ListPendingApprovalsQuery,
  ListSessionsQuery,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionLease,
  SessionStore,
  SessionSummary,
  SignalingSessionStore,
  StoreSignal,
} from "./contracts/session-store.js";
export {
  isApprovalIndexStore,
  isLeasableSessionStore,
  isPrunableSessionStore,
  isSignalingSessionStore,
} from "./sessions/session-store.js";
export type { AuditEntry } from "./contracts/audit-entry.js";
// >>> sessions block
export { MemorySessionStore } from "./sessions/memory-session-store.js";
export { resolveSession } from "./sessions/resolve-session.js";
export type { ResolveSessionOptions, ResolveSessionResult } from "./sessions/resolve-session.js";
export type { SessionSelector } from "./contracts/session-store.js";
// <<< sessions block

// --- runtime ---
// >>> runtime block
export { createAgentRuntime } from "./runtime/create-agent-runtime.js";
export type { AgentRuntimeOptions, PolicyTurn } from "./runtime/create-agent-runtime.js";
export type { ExternalAgentHandler, ExternalAgentReply, ExternalAgentRequest } from "./runtime/create-agent-runtime.js";
export type {
  AuditLogQuery,
  ResolveDecision,
  AgentRuntime,
  DispatchedTurn,
  PendingApproval,
  PendingQuery,
  PendingQuestion,
  PendingToolCall,
  RuntimeEvent,
  RuntimeEventLabels,
  RuntimeEventOf,
  SendInput,
  StopTurnOptions,
  RewindOptions,
  ForkSessionOptions,
  TurnResult,
} from "./contracts/agent-runtime.js";
export type { Artifact, Task, TaskApi, TaskCreateInput } from "./contracts/task.js";
export type { CompactionOptions, CompactionResult } from "./contracts/compaction.js";
export type { TenantGuard } from "./contracts/tenant-guard.js";
// <<< runtime block

// >>> delivery block
export { createEventBatcher, isImmediateEvent } from "./delivery/create-event-batcher.js";
export type { EventBatcher, EventBatcherOptions } from "./delivery/create-event-batcher.js";
export { toServerSentEvents } from "./delivery/to-server-sent-events.js";
export type { ServerSentEventsOptions } from "./delivery/to-server-sent-events.js";
export { createEventLog } from "./delivery/create-event-log.js";
export type {
  EventLog,
  EventLogOptions,
  ResumedEvent,
  ResumeOptions,
  SessionSnapshotEvent,
} from "./delivery/create-event-log.js";
export { eventRecordOf } from "./delivery/stored-events.js";
export type { EventRecord } from "./delivery/stored-events.js";
export type { DeliverableEvent } from "./delivery/deliverable-event.js";
export type { DeliveredDoneEvent, DoneDelivery, DoneOutcome } from "./delivery/done-outcome.js";
// <<< delivery block
