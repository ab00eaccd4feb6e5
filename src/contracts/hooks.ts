import type { JsonValue } from "./json-schema.js";
import type { Message, ToolCallPart, ToolResultPart, UserPart, Usage } from "./message.js";
import type { FinishReason, ToolChoice } from "./provider.js";
import type { PermissionClass } from "./tool-policy.js";

/** Who a hook is called for: the turn's identity, as known (the bare loop knows what its options say). */
export interface TurnInfo<C = JsonValue> {
  agentId?: string;
  sessionId?: string;
  scope?: string;
  runId?: string;
  /** The turn's host context (`SendInput.context`; the bare loop's `context` option). */
  context?: C;
}

/** One finished step of a level (a model call and the tool calls it made), as hooks see it. */
export interface StepRecord {
  /** Counts from 1 within the level. */
  iteration: number;
  /** The model that answered. */
  model: string;
  /** The text of the response. */
  text: string;
  toolCalls: readonly ToolCallPart[];
  /** The results the model reads, in call order (empty for a step without tool calls). */
  toolResults: readonly ToolResultPart[];
  finishReason: FinishReason | undefined;
}

/**
 * A step as `prepareStep` and `stopWhen` see it. For `prepareStep`, `iteration` is the model call
 * about to be made and `steps` the level's finished steps; for `stopWhen`, the step just finished
 * is the last of `steps` and `messages` include its tool results.
 */
export interface StepInfo<C = JsonValue> extends TurnInfo<C> {
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`; null at the root. */
  parentId: string | null;
  iteration: number;
  /** The model the level calls unless a hook says otherwise. */
  model: string;
  /**
   * The level's conversation so far: the level's own array, read-only and valid while the hook
   * runs (copy it to keep it; `StepSettings.messages` replaces it for one call).
   */
  messages: readonly Message[];
  /** The names of the tools the level offers the model. */
  tools: readonly string[];
  /** Usage of the whole turn so far, every depth summed. */
  usage: Usage;
  /** The level's finished steps, oldest first (read-only, valid while the hook runs, like `messages`). */
  steps: readonly StepRecord[];
}

/** What `prepareStep` may change, for the one model call it was asked about. Absent fields keep the level's own. */
export interface StepSettings {
  /** Another model of the same provider. */
  model?: string;
  /** Names of tools to offer: only a subset of `StepInfo.tools` (other names are ignored, with a warning). */
  activeTools?: string[];
  toolChoice?: ToolChoice;
  /** The system prompt for this call. */
  system?: string;
  /** The messages for this call (what the level keeps is unchanged). */
  messages?: Message[];
}

/** A tool call as `beforeToolCall` and `afterToolCall` see it. */
export interface ToolCallInfo<C = JsonValue> extends TurnInfo<C> {
  toolCallId: string;
  name: string;
  /** The arguments the tool runs with (validated, defaults applied). */
  args: unknown;
  /** Every permission class the call needs. */
  permissionClass: PermissionClass[];
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`; null at the root. */
  parentId: string | null;
}

/** What `beforeToolCall` decides: block the call (the model reads `block`), or run it with other arguments. */
export type BeforeToolCallDecision = { block: string } | { args: unknown } | void;

/** What `afterToolCall` replaces: what the model reads and what is stored. */
export type AfterToolCallDecision = { result?: unknown; isError?: boolean } | void;

/** What `guardInput` is given: the message that starts the turn. */
export type GuardInput<C = JsonValue> = { content: string | UserPart[] } & TurnInfo<C>;

/** What `guardOutput` is given: the turn's final answer, before it is stored. */
export type GuardOutput<C = JsonValue> = { text: string } & TurnInfo<C>;

/**
 * Hooks on a turn's lifecycle: how a host shapes each step. Given to `createAgentRuntime` (every
 * turn it runs, at every depth: sub-tasks, delegated, background, task and dispatched turns) or to
 * `runUnifiedAgentLoop`.
 *
 * Hooks never widen what the toolbelt, the policy or an approval allowed: `activeTools` only
 * narrows, `beforeToolCall` runs after the policy and any approval (rewritten arguments are
 * validated again, and a call they would newly make need an approval is refused). A hook that
 * throws ends the turn with status `"error"`, naming the hook. Time spent in hooks counts against
 * the wall-clock budget. A hook must not mutate what it is given.
 */
export interface RuntimeHooks<C = JsonValue> {
  /** Before every model call, at every depth: narrow or change what this one call gets. */
  prepareStep?(step: StepInfo<C>): StepSettings | void | Promise<StepSettings | void>;
  /** After every step whose response had tool calls, once their results are in: `true` = no further model call at this level. */
  stopWhen?(step: StepInfo<C>): boolean | Promise<boolean>;
  /** After the policy and any approval, before the tool (or sub-task) runs: block it, or rewrite its arguments. */
  beforeToolCall?(call: ToolCallInfo<C>): BeforeToolCallDecision | Promise<BeforeToolCallDecision>;
  /** After the tool ran: replace what the model reads and what is stored. */
  afterToolCall?(
    call: ToolCallInfo<C>,
    outcome: { result: unknown; isError: boolean },
  ): AfterToolCallDecision | Promise<AfterToolCallDecision>;
  /** Before the first model call of a turn (nothing spent yet): `{ block }` ends the turn `"blocked"`. */
  guardInput?(input: GuardInput<C>): { block: string } | void | Promise<{ block: string } | void>;
  /**
   * Before the turn's final answer is stored: `{ replace }` stores and returns that text instead,
   * `{ block }` ends the turn `"blocked"` (the answer is not stored).
   */
  guardOutput?(
    output: GuardOutput<C>,
  ): { block: string } | { replace: string } | void | Promise<{ block: string } | { replace: string } | void>;
}

/** The hooks' names, as a hook failure names them. */
export type HookName = keyof RuntimeHooks;
