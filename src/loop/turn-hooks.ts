import type { HookName, StepInfo, StepRecord, StepSettings, ToolCallInfo, TurnInfo } from "../contracts/hooks.js";
import type { Message, UserMessage } from "../contracts/message.js";
import type { ModelTool } from "../contracts/provider.js";
import type { Level, StepCall, Turn } from "./level.js";
import { usageOf } from "./usage-of.js";
import { errorMessage } from "./tool-result.js";

/** What a hook that was called came to: its value, or `undefined` when it failed (the turn then ends `error`). */
type Called<T> = { ok: true; value: T } | { ok: false };

/**
 * Calls a host hook. A hook that throws (or rejects) fails the turn: the failure is kept on the turn
 * (the first one wins), the turn is aborted so running tools and other levels stop, and every level
 * ends `error` naming the hook. A hook still running when the turn aborts (its wall clock ran out,
 * the host stopped it) is not waited for.
 */
export async function callHook<T>(turn: Turn, hook: HookName, call: () => T | Promise<T>): Promise<Called<T>> {
  try {
    const value = call();
    if (!isThenable(value)) return { ok: true, value };
    let forget = (): void => undefined;
    const aborted = new Promise<"aborted">((resolve) => (forget = turn.signals.whenAborted(() => resolve("aborted"))));
    try {
      const settled = await Promise.race([Promise.resolve(value).then((v) => ({ v })), aborted]);
      return settled === "aborted" ? { ok: false } : { ok: true, value: settled.v };
    } finally {
      forget();
    }
  } catch (error) {
    failTurn(turn, hook, error);
    return { ok: false };
  }
}

/** Fails the turn because of `hook` (the first failure wins) and aborts it. */
export function failTurn(turn: Turn, hook: HookName, error: unknown): void {
  if (turn.hookFailure === undefined)
    turn.hookFailure = { hook, message: `The ${hook} hook failed: ${errorMessage(error)}` };
  turn.abort(new Error(turn.hookFailure.message));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * `target` with the turn's identity fields set (only those known). Assigned one by one: an object
 * spread followed by more properties is a slow path in V8 (about a microsecond each, measured on
 * Node 20), and hooks are called on every step.
 */
export function withTurnInfo<T extends TurnInfo<unknown>>(target: T, info: TurnInfo<unknown>): T {
  if (info.agentId !== undefined) target.agentId = info.agentId;
  if (info.sessionId !== undefined) target.sessionId = info.sessionId;
  if (info.scope !== undefined) target.scope = info.scope;
  if (info.runId !== undefined) target.runId = info.runId;
  if (info.context !== undefined) target.context = info.context;
  return target;
}

/** The turn's identity as hooks are told it (only what is known): made once per turn (`Turn.info`). */
export function turnInfo(turn: Pick<Turn, "agentId" | "sessionId" | "scope" | "runId" | "context">): TurnInfo<unknown> {
  return withTurnInfo({}, turn);
}

/** What `prepareStep` and `stopWhen` are told of a level's step. */
export function stepInfo(
  level: Level,
  iteration: number,
  history: readonly Message[],
  steps: readonly StepRecord[],
): StepInfo<unknown> {
  const { turn } = level;
  const info: StepInfo<unknown> = {
    depth: level.depth,
    parentId: level.parentId,
    iteration,
    model: turn.model,
    // The level's own arrays, read-only (not copied on every step): valid while the hook runs.
    messages: history,
    tools: toolNames(level.modelTools),
    usage: usageOf(turn.budget, turn.pricing !== undefined),
    steps,
  };
  return withTurnInfo(info, turn.info);
}

/** The names of a level's model tools, made once per tool list. */
const namesOf = new WeakMap<readonly ModelTool[], readonly string[]>();
function toolNames(tools: readonly ModelTool[]): readonly string[] {
  let names = namesOf.get(tools);
  if (names === undefined) namesOf.set(tools, (names = Object.freeze(tools.map((t) => t.name))));
  return names;
}

/**
 * Applies `prepareStep`'s settings to the level's own call. Settings never widen: `activeTools`
 * keeps only tools the level offers (the others are named in a warning), a `toolChoice` naming a
 * tool not offered is dropped (warning). A value that is not settings at all fails the turn.
 */
export function stepCall(level: Level, settings: StepSettings | void): StepCall | undefined {
  const { turn } = level;
  const call: StepCall = {
    model: turn.model,
    system: level.systemPrompt,
    messages: undefined,
    tools: level.modelTools,
    toolChoice: undefined,
  };
  if (settings === undefined || settings === null) return call;
  const problem = settingsProblem(settings);
  if (problem !== undefined) {
    failTurn(turn, "prepareStep", new Error(problem));
    return undefined;
  }
  if (settings.model !== undefined) call.model = settings.model;
  if (settings.system !== undefined) call.system = settings.system;
  if (settings.messages !== undefined) call.messages = settings.messages.slice();
  if (settings.activeTools !== undefined) {
    const wanted = new Set(settings.activeTools);
    call.tools = level.modelTools.filter((t) => wanted.has(t.name));
    const offered = new Set(level.modelTools.map((t) => t.name));
    const ignored = settings.activeTools.filter((name) => !offered.has(name));
    if (ignored.length > 0)
      warn(level, `prepareStep named tools this step does not offer; ignored: ${ignored.join(", ")}.`);
  }
  const choice = settings.toolChoice;
  if (choice !== undefined) {
    if (typeof choice === "object" && !call.tools.some((t) => t.name === choice.name))
      warn(level, `prepareStep chose the tool "${choice.name}", which this step does not offer; ignored.`);
    else call.toolChoice = choice;
  }
  return call;
}

function settingsProblem(settings: StepSettings): string | undefined {
  if (typeof settings !== "object") return `prepareStep must return settings or nothing, got ${typeof settings}`;
  const { model, system, messages, activeTools, toolChoice } = settings;
  if (model !== undefined && (typeof model !== "string" || model === ""))
    return "prepareStep: model must be a non-empty string";
  if (system !== undefined && typeof system !== "string") return "prepareStep: system must be a string";
  if (messages !== undefined && !Array.isArray(messages)) return "prepareStep: messages must be an array of messages";
  if (activeTools !== undefined && !(Array.isArray(activeTools) && activeTools.every((n) => typeof n === "string")))
    return "prepareStep: activeTools must be an array of tool names";
  if (
    toolChoice !== undefined &&
    toolChoice !== "auto" &&
    toolChoice !== "required" &&
    toolChoice !== "none" &&
    !(typeof toolChoice === "object" && toolChoice !== null && typeof toolChoice.name === "string")
  )
    return `prepareStep: toolChoice must be "auto", "required", "none" or { name }`;
  return undefined;
}

function warn(level: Level, message: string): void {
  level.turn.sink.emit({
    type: "warning",
    code: "hook_ignored",
    message,
    depth: level.depth,
    parentId: level.parentId,
  });
}

/** What `beforeToolCall` and `afterToolCall` are told of a call. */
export function toolCallInfo(
  level: Level,
  call: { id: string; name: string },
  args: unknown,
  permissionClass: readonly string[],
): ToolCallInfo<unknown> {
  const info: ToolCallInfo<unknown> = {
    toolCallId: call.id,
    name: call.name,
    args,
    permissionClass: [...permissionClass],
    depth: level.depth,
    parentId: level.parentId,
  };
  return withTurnInfo(info, level.turn.info);
}

/** The content `guardInput` is asked about: the history's last message, when it is the user's. */
export function guardedInput(history: readonly Message[]): UserMessage | undefined {
  const last = history[history.length - 1];
  return last?.role === "user" ? last : undefined;
}

const HOOK_NAMES: readonly HookName[] = [
  "prepareStep",
  "stopWhen",
  "beforeToolCall",
  "afterToolCall",
  "guardInput",
  "guardOutput",
];

/** What is wrong with a host's `hooks` option (misuse: thrown before anything runs). */
export function hookProblems(hooks: unknown, label: string): string[] {
  if (hooks === undefined) return [];
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
    return [`${label} must be an object of hook functions`];
  const problems: string[] = [];
  for (const [name, value] of Object.entries(hooks)) {
    if (!(HOOK_NAMES as readonly string[]).includes(name))
      problems.push(`${label}.${name} is not a hook (known: ${HOOK_NAMES.join(", ")})`);
    else if (value !== undefined && typeof value !== "function") problems.push(`${label}.${name} must be a function`);
  }
  return problems;
}
