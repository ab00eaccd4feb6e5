import type { AssistantMessage, Message, ToolCallPart, ToolResultPart, UserMessage } from "../contracts/message.js";
import type { ToolPolicy } from "../contracts/tool-policy.js";
import type {
  ModelCaller,
  ModelRequest,
  ModelTool,
  PricingTable,
  Provider,
  ToolChoice,
} from "../contracts/provider.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import type { ValueValidator } from "../schema/validate.js";
import type { Tool } from "../contracts/tool.js";
import type { TurnBudget } from "./budget.js";
import type { EventSink } from "./event-sink.js";
import type { SignalHub } from "./signal-hub.js";
import type { ExecutionTree } from "./execution-tree.js";
import type { ApprovalHandler, ApprovalRequest, ResumeState } from "../contracts/loop-result.js";
import type { ToolRefusal } from "../contracts/loop-event.js";
import type { RunSubtaskArgs, SubtaskPromptInfo } from "./subtask-tools.js";
import type { HookName, RuntimeHooks, TurnInfo } from "../contracts/hooks.js";

/** A call about to start, as the turn's `beforeToolCall` (the runtime's start record and lease check) is told of it. */
export interface StartingCall {
  toolCallId: string;
  /** A tool runs its `execute` (a side effect may follow); a sub-task runs a child level. */
  kind: "tool" | "subtask";
}

/** What one model call gets: the level's own, or what `prepareStep` narrowed or changed. */
export interface StepCall {
  model: string;
  system: string;
  /** The messages for this call; `undefined` = the level's history (pruned when over the limit). */
  messages: Message[] | undefined;
  tools: ModelTool[];
  toolChoice: ToolChoice | undefined;
}
/** The host's hooks of a turn, typed for the loop (which keeps the host context as `unknown`). */
export type LoopHooks = RuntimeHooks<unknown>;

/** Why the turn ended because of a hook: set once, by the first hook that failed. */
export interface HookFailure {
  hook: HookName;
  message: string;
  /** Whether its `error` event went out (once per turn). */
  reported?: boolean;
}

/** Everything shared by all levels of one turn. */
export interface Turn {
  provider: Provider;
  model: string;
  budget: TurnBudget;
  tree: ExecutionTree;
  /** Aborted by the host's signal, the wall-clock deadline, or the consumer leaving. */
  signal: AbortSignal;
  approve: ApprovalHandler<unknown> | undefined;
  /** The host's policy, when given (then also enforced at dispatch). */
  policy: ToolPolicy | undefined;
  /**
   * Whether the agent's tool lists keep the loop's own tools (a toolbelt from `composeToolbelt`
   * for an agent; both true otherwise). Without `runSubtask` no level offers or runs a sub-task;
   * without `finishSubtask` a sub-task cannot have an `output_schema`.
   */
  loopTools: { runSubtask: boolean; finishSubtask: boolean };
  /** What tools see as `ctx.policy`. */
  toolPolicy: ToolPolicy;
  /** `ctx.host` (the loop's `context` option). */
  host: unknown;
  /** `ctx.context`: the host's data for the turn. */
  context: unknown;
  /** `ctx.scope`. */
  scope: string | undefined;
  /** `ctx.runId`. */
  runId: string | undefined;
  /** Prefix of every call's `ctx.callKey` (unique per turn chain). */
  callKeyPrefix: string;
  /** The runtime's internals for its own tools (`ctx[RUNTIME_HOST]`). */
  runtimeHost: unknown;
  /** Awaited before each tool call starts (the runtime's lease check); see `LoopInternals`. */
  beforeToolCall: ((call: StartingCall) => Promise<void>) | undefined;
  /** `ctx.leaseToken`. */
  leaseToken: number | undefined;
  pricing: PricingTable | undefined;
  resume: ResumeState | undefined;
  sessionId: string | undefined;
  agentId: string | undefined;
  toolTimeoutMs: number | undefined;
  request: Pick<ModelRequest, "maxOutputTokens" | "temperature" | "providerOptions">;
  /** Whether `request` has anything to add to each model request. */
  hasRequestOptions: boolean;
  /** The turn's part of every request's `caller` (agent, session, run, role), as known. */
  caller: Omit<ModelCaller, "depth" | "parentId" | "subtaskTitle">;
  subtaskPrompt: (info: SubtaskPromptInfo) => string;
  /** Where every level of the turn puts its events. */
  sink: EventSink;
  /** Hands out per-call abort signals. */
  signals: SignalHub;
  /** A new id for a streamed assistant message, unique in the turn (and, by its prefix, across turns). */
  streamIds: () => string;
  /** Tool-call ids used in this turn at any depth: a provider's duplicates are rewritten against it. */
  callIds: Set<string>;
  /** See `LoopInternals.onModelCall`. */
  onModelCall: ((call: ModelCallInfo) => void) | undefined;
  /** See `LoopInternals.stepBoundary`. */
  stepBoundary: ((root: boolean) => Promise<readonly { message: UserMessage; messageId: string }[]>) | undefined;
  /** The host's hooks (`LoopOptions.hooks`). */
  hooks: LoopHooks | undefined;
  /** Set when a host hook failed: every level then ends `error` naming it. */
  hookFailure: HookFailure | undefined;
  /** Who the turn runs for, as hooks are told (made once). */
  info: TurnInfo<unknown>;
  /** Aborts the turn (every level, running tool and provider call). */
  abort: (reason: Error) => void;
}

/** One depth of the recursion. */
export interface Level {
  turn: Turn;
  /** The level `runUnifiedAgentLoop` was called for (its result goes to the host). */
  entry: boolean;
  depth: number;
  parentId: string | null;
  systemPrompt: string;
  /** The `title` of the `run_subtask` call this level runs (sub-task levels only). */
  subtaskTitle?: string;
  tools: Map<string, Tool>;
  modelTools: ModelTool[];
  offersSubtask: boolean;
  outputSchema: JsonSchema | undefined;
  outputValidator: ValueValidator | undefined;
  /** Name of the finish tool when `outputValidator` is set. @default "finish_subtask" */
  finishName?: string;
  /**
   * The tools the current step offered the model, when `prepareStep` narrowed them: a call to any
   * other tool is refused like an unknown one. @default undefined (every tool of the level)
   */
  stepTools?: ReadonlySet<string>;
  /** The level's own model call (see `ownCall`), made on first use. */
  ownCall?: StepCall;
}

/** What a level's run of one batch of tool calls came to. */
export interface BatchOutcome {
  /** In the model's call order; absent entries belong to suspended calls. */
  results: (ToolResultPart | undefined)[];
  suspended: boolean;
  pendingApprovals: ApprovalRequest[];
  /** Accepted `finish_subtask` result, if any. */
  finished: { value: unknown } | undefined;
  /** Resume material collected from suspended children and this batch (suspended batches only). */
  resume: (ResumeState & { results: Record<string, ToolResultPart> }) | undefined;
}

/**
 * What every phase of a planned call carries. Plans are values: a phase that learns something
 * (approval, a resumed start) returns a new plan instead of changing this one.
 */
interface PlanBase {
  readonly call: ToolCallPart;
  /** Arguments as the model sent them (parsed JSON), for events and previews. */
  readonly args: unknown;
  /** When the call's `start` event went out (in an earlier phase or run); `undefined` until then. */
  readonly startedAt: number | undefined;
  /** What the host's `beforeToolCall` hook changed (`["args"]`), for the `end` event and the audit. */
  readonly rewritten?: readonly "args"[];
}

/** A call that ends without running: refused, or denied at approval. Its result is an error the model reads. */
export interface RefusePlan extends PlanBase {
  readonly kind: "refuse";
  readonly refusal: string;
  /** Why the call is refused, for the `end` event (absent for a denial). */
  readonly refused?: ToolRefusal;
}

/** A call whose result was given with its approval (an answered question): the tool does not run. */
export interface AnsweredPlan extends PlanBase {
  readonly kind: "answered";
  readonly result: unknown;
  /** The given result is an error (a waited agent that failed, a client that could not run the call). */
  readonly isError?: boolean;
  /** The client tool whose result this is (a tool with no `execute`): the `afterToolCall` hook sees it. */
  readonly clientTool?: Tool;
}

/** A permitted tool call with valid arguments. */
export interface ToolPlan extends PlanBase {
  readonly kind: "tool";
  readonly tool: Tool;
  /** Arguments after validation (zod defaults/transforms applied), for `execute`. */
  readonly input: unknown;
  /** Whether the call waits for an approval (a function `requiresApproval` is asked while approvals settle). */
  readonly needsApproval: boolean;
}

/** An intercepted `run_subtask` call. */
export interface SubtaskPlan extends PlanBase {
  readonly kind: "subtask";
  readonly input: RunSubtaskArgs;
  /** Validator of the sub-task's `output_schema`, compiled while planning. */
  readonly outputValidator: ValueValidator | undefined;
}

/** An intercepted `finish_subtask` call (or the level's own finish tool). */
export interface FinishPlan extends PlanBase {
  readonly kind: "finish";
  readonly input: unknown;
  readonly outputValidator: ValueValidator;
}

/** A tool call as planned before it runs, one member per outcome (pi's prepared call / immediate outcome). */
export type CallPlan = RefusePlan | AnsweredPlan | ToolPlan | SubtaskPlan | FinishPlan;

/** What `planCall` decides: approvals (and so `answered`) come later. */
export type PlannedCall = Exclude<CallPlan, AnsweredPlan>;

/** One model call as the loop reports it to `LoopInternals.onModelCall` (after the response, before its message). */
export interface ModelCallInfo {
  /** The assistant message the call produced, the very object the `message` event then carries. */
  message: AssistantMessage | undefined;
  depth: number;
  parentId: string | null;
  model: string;
  /** The provider's `id`. */
  provider: string;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  costUsd?: number;
  /** What the model saw: the system prompt and tools of the request (shared objects: do not mutate). */
  system: string;
  tools: ModelRequest["tools"];
  messagesCount: number;
  /** Why the call failed, when it did. */
  error?: string;
}
