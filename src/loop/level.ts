import type { ToolCallPart, ToolResultPart } from "../contracts/message.js";
import type { ToolPolicy } from "../contracts/tool-policy.js";
import type { ModelRequest, ModelTool, PricingTable, Provider } from "../contracts/provider.js";
import type { JsonSchema } from "../contracts/json-schema.js";
import type { ValueValidator } from "../schema/validate.js";
import type { Tool } from "../contracts/tool.js";
import type { TurnBudget } from "./budget.js";
import type { EventSink } from "./event-sink.js";
import type { SignalHub } from "./signal-hub.js";
import type { ExecutionTree } from "./execution-tree.js";
import type { ApprovalHandler, ApprovalRequest, ResumeState } from "../contracts/loop-result.js";
import type { ToolRefusal } from "../contracts/loop-event.js";
import type { SubtaskPromptInfo } from "./subtask-tools.js";

/** Everything shared by all levels of one turn. */
export interface Turn {
  provider: Provider;
  model: string;
  budget: TurnBudget;
  tree: ExecutionTree;
  /** Aborted by the host's signal, the wall-clock deadline, or the consumer leaving. */
  signal: AbortSignal;
  approve: ApprovalHandler | undefined;
  /** The host's policy, when given (then also enforced at dispatch). */
  policy: ToolPolicy | undefined;
  /** What tools see as `ctx.policy`. */
  toolPolicy: ToolPolicy;
  host: unknown;
  pricing: PricingTable | undefined;
  resume: ResumeState | undefined;
  sessionId: string | undefined;
  agentId: string | undefined;
  toolTimeoutMs: number | undefined;
  request: Pick<ModelRequest, "maxOutputTokens" | "temperature" | "providerOptions">;
  /** Whether `request` has anything to add to each model request. */
  hasRequestOptions: boolean;
  subtaskPrompt: (info: SubtaskPromptInfo) => string;
  /** Where every level of the turn puts its events. */
  sink: EventSink;
  /** Hands out per-call abort signals. */
  signals: SignalHub;
  /** Rejects when the turn is aborted (shared, so racing a tool against it adds no listener). */
  aborted: Promise<never>;
  /** A new id for a streamed assistant message, unique in the turn (and, by its prefix, across turns). */
  streamIds: () => string;
  /** Tool-call ids used in this turn at any depth: a provider's duplicates are rewritten against it. */
  callIds: Set<string>;
}

/** One depth of the recursion. */
export interface Level {
  turn: Turn;
  /** The level `runUnifiedAgentLoop` was called for (its result goes to the host). */
  entry: boolean;
  depth: number;
  parentId: string | null;
  systemPrompt: string;
  tools: Map<string, Tool>;
  modelTools: ModelTool[];
  offersSubtask: boolean;
  outputSchema: JsonSchema | undefined;
  outputValidator: ValueValidator | undefined;
  /** Name of the finish tool when `outputValidator` is set. @default "finish_subtask" */
  finishName?: string;
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

/** A tool call as planned before it runs. */
export interface CallPlan {
  call: ToolCallPart;
  kind: "refuse" | "tool" | "subtask" | "finish";
  tool: Tool | undefined;
  /** Arguments as the model sent them (parsed JSON), for events and previews. */
  args: unknown;
  /** Arguments after validation (zod defaults/transforms applied), for `execute`. */
  input: unknown;
  refusal: string | undefined;
  /** Why the call is refused (with `refusal`), for the `end` event. */
  refused?: ToolRefusal;
  needsApproval: boolean;
  /** `result`: the call's result given with the approval (the tool does not run). */
  decision: { approved: boolean; reason?: string; result?: unknown } | undefined;
  /** Validator of a sub-task's `output_schema`, compiled while planning. */
  outputValidator: ValueValidator | undefined;
  /** The approval request's id, once asked. */
  requestId: string | undefined;
  /** The `start` event was emitted already (in an earlier phase or run). */
  started: boolean;
  startedAt: number;
}
