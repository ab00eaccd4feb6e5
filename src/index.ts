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
export type { AgentryErrorOptions } from "./errors/agentry-error.js";
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
export type { ConfigProblem } from "./errors/errors.js";

// --- messages ---
export type {
  AssistantMessage,
  AssistantPart,
  ImagePart,
  FilePart,
  FileSource,
  Message,
  MessageType,
  TextPart,
  ThinkingPart,
  ToolCallPart,
  ToolMessage,
  ToolResultPart,
  Usage,
  UserMessage,
  UserPart,
} from "./contracts/message.js";

// --- schema ---
export type { JsonSchema, JsonValue, AnyZodSchema } from "./contracts/json-schema.js";
export { toJsonSchema } from "./schema/to-json-schema.js";

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
export { resolveWorkspacePath } from "./policy/resolve-workspace-path.js";
export type { WorkspacePathResult } from "./policy/resolve-workspace-path.js";
export { scopeTools } from "./policy/scope-tools.js";
// <<< policy block

// --- plan, review, act ---
export { applyRole, roles } from "./modes/roles.js";
export type { RoleDefinition } from "./modes/roles.js";
export { defineRole } from "./modes/define-role.js";
export { FORMAT_VERSION, PlanSchema, QuestionFieldsSchema, QuestionSchema } from "./modes/plan-format.js";
export type { Plan, PlanStep, PlanSummary, Question, QuestionOption, QuestionAnswer } from "./contracts/plan.js";
export { checkQuestion, parsePlan, parseQuestion } from "./modes/parse-plan.js";
export type { FormatParseResult } from "./modes/parse-plan.js";
export { messageTypeOf } from "./modes/message-type-of.js";
export { isDeclaredReadOnly } from "./tools/declared-read-only.js";

// --- providers (contract) ---
export type {
  FinishReason,
  ModelCaller,
  ModelEvent,
  ModelPricing,
  ModelRequest,
  ToolChoice,
  ModelTool,
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
export type {
  ApprovalRequestEvent,
  ApprovalResolvedEvent,
  MessageQueuedEvent,
  ArtifactCreatedEvent,
  BudgetExceededEvent,
  ChunkEvent,
  MessageStreamCancelledEvent,
  MessageStreamCompletedEvent,
  MessageStreamStartedEvent,
  DoneEvent,
  ErrorEvent,
  EventOrigin,
  GuardrailTrippedEvent,
  LlmCallStartEvent,
  LoopErrorEvent,
  LoopEvent,
  LoopMessageEvent,
  MessageEvent,
  PlanningStartedEvent,
  PlanReadyEvent,
  QuestionEvent,
  RoleChangedEvent,
  SubagentStatus,
  SubagentStatusEvent,
  TaskStatus,
  TaskStatusEvent,
  ThinkingEvent,
  ToolCallsPreparingEvent,
  ToolCallUpdateEvent,
  ToolLogEvent,
  ToolLogLevel,
  ToolRefusal,
  UsageEvent,
  WarningEvent,
} from "./contracts/loop-event.js";
export type {
  AfterToolCallDecision,
  BeforeToolCallDecision,
  GuardInput,
  GuardOutput,
  HookName,
  RuntimeHooks,
  StepInfo,
  StepRecord,
  StepSettings,
  ToolCallInfo,
  TurnInfo,
} from "./contracts/hooks.js";
// >>> loop block
export { runUnifiedAgentLoop } from "./loop/run-unified-agent-loop.js";
export { TOOL_LOG_LIMITS } from "./loop/tool-log.js";
export type { LoopOptions } from "./loop/run-unified-agent-loop.js";
export { DEFAULT_BUDGET, TurnBudget, createTurnBudget } from "./loop/budget.js";
export type { BudgetCounters, BudgetViolation } from "./loop/budget.js";
export { buildSubtaskSystemPrompt, FINISH_SUBTASK, RUN_SUBTASK } from "./loop/subtask-tools.js";
export type { RunSubtaskArgs, SubtaskPromptInfo } from "./loop/subtask-tools.js";
export { computeCostUsd } from "./providers/pricing.js";
// <<< loop block

// --- agents ---
// >>> agents block
export type { AgentListQuery, AgentRegistry } from "./contracts/agent-registry.js";
export { AGENT_ID_PATTERN, agentDefinitionSchema, BUDGET_KEYS, MAX_GLOB_LENGTH } from "./agents/agent-schema.js";
export { parseAgentDefinition } from "./agents/parse-agent-definition.js";
export type { ParseAgentDefinitionOptions, ParseAgentDefinitionResult } from "./agents/parse-agent-definition.js";
export { createAgentRegistry } from "./agents/create-agent-registry.js";
export type { AgentRegistryConfig } from "./agents/create-agent-registry.js";
export { agentVisibility, canSeeAgent, visibleAgents } from "./agents/agent-visibility.js";
export type { AgentVisibility } from "./agents/agent-visibility.js";
export { scopeSkills } from "./agents/scope-skills.js";
export type { Skill } from "./agents/skill.js";
export type { PromptSection, PromptSectionContext, PromptSectionSource } from "./agents/prompt-section.js";
export { buildSystemPrompt, DEFAULT_SYSTEM_PROMPT, SUBTASK_PROMPT_LINE } from "./agents/build-system-prompt.js";
export type { BuildSystemPromptOptions } from "./agents/build-system-prompt.js";
// <<< agents block
export type { AgentChatSettings, AgentDefinition } from "./contracts/agent-definition.js";

// --- sessions ---
export type {
  AcquireLeaseOptions,
  AppendOptions,
  ApprovalIndexStore,
  ApprovalRecord,
  ArtifactRecord,
  AuditRecord,
  CreateSessionInit,
  HistoryRecord,
  IndexedApproval,
  LeasableSessionStore,
  ListPendingApprovalsQuery,
  ListSessionsQuery,
  LoadOptions,
  MessageRecord,
  NewRecord,
  PrunableSessionStore,
  RecordBase,
  ResetRecord,
  RoleRecord,
  SessionLease,
  SessionStore,
  SessionSummary,
  TaskRecord,
  ToolResultRecord,
  TurnRecord,
} from "./contracts/session-store.js";
export { isApprovalIndexStore, isLeasableSessionStore, isPrunableSessionStore } from "./sessions/session-store.js";
export type { AuditDecision, AuditEntry } from "./contracts/audit-entry.js";
// >>> sessions block
export { MemorySessionStore } from "./sessions/memory-session-store.js";
export { resolveSession } from "./sessions/resolve-session.js";
export type { ResolveSessionOptions, ResolveSessionResult } from "./sessions/resolve-session.js";
export type { SessionSelector } from "./contracts/session-store.js";
// <<< sessions block

// --- runtime ---
// >>> runtime block
export { createAgentRuntime } from "./runtime/create-agent-runtime.js";
export { storedTurnResult } from "./runtime/create-agent-runtime.js";
export type { AgentRuntimeOptions, PolicyTurn, RuntimeErrorInfo } from "./runtime/create-agent-runtime.js";
export type { ExternalAgentHandler, ExternalAgentReply, ExternalAgentRequest } from "./runtime/create-agent-runtime.js";
export type {
  AuditLogQuery,
  ResolveDecision,
  AgentRuntime,
  DispatchedTurn,
  PendingApproval,
  PendingQuery,
  PendingQuestion,
  WaitingSession,
  RuntimeEvent,
  RuntimeEventLabels,
  RuntimeEvents,
  SendInput,
  SystemMessageTarget,
  TurnResult,
} from "./contracts/agent-runtime.js";
export type { Artifact, Task, TaskApi } from "./contracts/task.js";
export type { TenantGuard } from "./contracts/tenant-guard.js";
export { systemMessage, unwrapSystemMessage, wrapSystemMessage } from "./messages/system-message.js";
// <<< runtime block

// >>> delivery block
export { createEventBatcher, IMMEDIATE_EVENT_TYPES, isImmediateEvent } from "./delivery/create-event-batcher.js";
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
export {
  EVENT_RECORD_KIND,
  eventRecordOf,
  MAX_PENDING_STORED_EVENTS,
  MAX_STORED_STREAM_CHARS,
} from "./delivery/stored-events.js";
export type { EventRecord } from "./delivery/stored-events.js";
export type { DeliverableEvent, DeliveryStamp } from "./delivery/deliverable-event.js";
export type { DeliveredDoneEvent, DoneDelivery, DoneOutcome } from "./delivery/done-outcome.js";
// <<< delivery block

// >>> context block
export {
  CHARS_PER_TOKEN,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  estimateMessageTokens,
  estimateTokens,
} from "./context/estimate-tokens.js";
export { pruneHistory } from "./context/prune-history.js";
export type { PruneHistoryOptions, PruneHistoryResult } from "./context/prune-history.js";
export {
  EMERGENCY_CONTEXT_LIMIT,
  RESET_SUMMARY_MAX_CHARS,
  needsEmergencyReset,
  summarizeForReset,
} from "./context/emergency-reset.js";
export type { NeedsEmergencyResetOptions, NeedsEmergencyResetResult } from "./context/emergency-reset.js";
// <<< context block
