import { ProviderError } from "../errors/errors.js";
import { estimateTokens } from "../context/estimate-tokens.js";
import { pruneHistory } from "../context/prune-history.js";
import type { AssistantMessage, Message, ToolCallPart } from "../contracts/message.js";
import type { Tool } from "../contracts/tool.js";
import { callModel } from "./call-model.js";
import { usageOf } from "./usage-of.js";
import type { RunChild } from "./execute-plan.js";
import type { Level, SubtaskPlan } from "./level.js";
import type { LoopResult } from "../contracts/loop-result.js";
import type { FinishReason } from "../contracts/provider.js";
import { LevelProgress, type LevelRun } from "./level-progress.js";
import { runBatch } from "./run-batch.js";
import { FINISH_SUBTASK, finishSubtaskTool, runSubtaskTool, runSubtaskToolWithoutSchema } from "./subtask-tools.js";
import { echoName } from "./tool-result.js";
import type { StepRecord } from "../contracts/hooks.js";
import { guardInput, guardOutput, ownCall, PASS, prepareStep, stopWhen, withText } from "./level-hooks.js";

/** The tools a level offers the model: its toolbelt plus the loop's own sub-task tools. */
export function modelToolsFor(
  level: Pick<Level, "turn" | "tools" | "offersSubtask" | "outputSchema" | "finishName">,
): Level["modelTools"] {
  const list: Level["modelTools"] = [];
  for (const tool of level.tools.values())
    list.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema });
  if (level.offersSubtask) list.push(level.turn.loopTools.finishSubtask ? runSubtaskTool : runSubtaskToolWithoutSchema);
  if (level.outputSchema) list.push(finishSubtaskTool(level.outputSchema, level.finishName));
  return list;
}

/** Whether a level at `depth` offers `run_subtask`. */
export function offersSubtaskAt(level: Pick<Level, "turn">, depth: number): boolean {
  const { turn } = level;
  return (
    turn.loopTools.runSubtask &&
    depth < turn.budget.limits.maxDepth &&
    (!turn.policy || turn.policy.classes.includes("subagent"))
  );
}

/** The last message when it is an assistant message whose tool calls have no results yet. */
function pendingCalls(history: readonly Message[]): ToolCallPart[] | undefined {
  const last = history[history.length - 1];
  if (last?.role !== "assistant") return undefined;
  const calls = last.content.filter((p): p is ToolCallPart => p.type === "tool_call");
  return calls.length > 0 ? calls : undefined;
}

function lastText(message: AssistantMessage): string {
  let text = "";
  for (const part of message.content) if (part.type === "text") text += part.text;
  return text;
}

/**
 * One level of the loop: call the model, run its tool calls, repeat until it answers without
 * tools, a limit is hit, or the turn is aborted, suspended or stopped by a hook.
 */
export async function runLevel(
  level: Level,
  history: Message[],
  appended: Message[],
  historyTokens?: number,
): Promise<LevelRun> {
  const run = new LevelProgress(level, history, appended, historyTokens);
  const started = level.turn.resume ? await resumeLevel(run) : await guardLevelInput(run);
  if (started) return started;
  for (let iteration = 1; ; iteration++) {
    const ended = await runStep(run, iteration);
    if (ended) return ended;
  }
}

/** Continues a resumed level where it stopped: its pending calls, or the answer it had already given. */
async function resumeLevel(run: LevelProgress): Promise<LevelRun | undefined> {
  const { level, history } = run;
  const last = history[history.length - 1];
  const calls = pendingCalls(history);
  if (calls) {
    run.lastHadToolCalls = true;
    return run.afterBatch(await runBatch(level, calls, runChild, true), calls);
  }
  if (last?.role === "assistant") {
    run.text = lastText(last);
    return run.finish("complete");
  }
  if (last?.role === "tool" && level.outputValidator) {
    const accepted = acceptedFinish(history, level);
    if (accepted) return run.finish("complete", { structured: accepted.value });
  }
  return undefined;
}

/** The host's `guardInput`, before the entry level's first model call. */
async function guardLevelInput(run: LevelProgress): Promise<LevelRun | undefined> {
  const { level } = run;
  if (!level.entry || !level.turn.hooks?.guardInput) return undefined;
  const verdict = await guardInput(level, run.history);
  if (verdict === undefined) return run.halt();
  if (verdict.kind === "block") return run.blocked("input", verdict.reason);
  return undefined;
}

/** One step: a model call and the tool calls it asks for. Returns how the level ended, or undefined to go on. */
async function runStep(run: LevelProgress, iteration: number): Promise<LevelRun | undefined> {
  const { level, history } = run;
  const { turn, depth, parentId } = level;
  const { budget, sink } = turn;
  // A step boundary (a batch ran since the last model call): the runtime's stop requests and steered messages.
  if (turn.stepBoundary && (iteration > 1 || run.lastHadToolCalls)) await run.takeSteered();
  const halted = run.stopped();
  if (halted) return halted;
  if (iteration > budget.limits.maxIterationsPerLevel)
    return run.finish("iteration_limit", { error: { message: iterationLimit(level, run.lastHadToolCalls) } });
  // Hooks are awaited only when given: a turn without them pays nothing for them.
  const call = turn.hooks?.prepareStep ? await prepareStep(level, iteration, history, run.steps) : ownCall(level);
  if (call === undefined || turn.signal.aborted) return run.halt();
  level.stepTools = call.tools === level.modelTools ? undefined : new Set(call.tools.map((t) => t.name));
  if (budget.tryLlmCall()) return run.stopped()!;
  sink.emit({ type: "llm_call_start", iteration, model: call.model, provider: turn.provider.id, depth, parentId });
  const messages = call.messages ?? history;
  const estimated =
    call.messages === undefined && call.system === level.systemPrompt
      ? run.tokens
      : estimateTokens(messages, call.system);
  const sent = estimated > budget.limits.maxHistoryTokens ? prune(level, messages, call.system) : messages;
  const response = await callModel(level, call, sent);
  const { message, toolCalls: calls } = response;
  // The level's steps are kept for the hooks that read them.
  const step: StepRecord | undefined =
    turn.hooks?.prepareStep || turn.hooks?.stopWhen
      ? {
          iteration,
          model: call.model,
          text: response.text,
          toolCalls: calls,
          toolResults: [],
          finishReason: response.finish,
        }
      : undefined;
  if (step) run.steps.push(step);
  if (message && message.content.some((p) => p.type === "text")) run.text = response.text;
  if (response.aborted || response.error !== undefined) {
    if (message) await run.push(message);
    return run.stopped() ?? run.finish("error", { error: reportFailure(level, response.error) });
  }
  if (calls.length === 0) return answer(run, response.finish, message);
  run.lastHadToolCalls = true;
  await run.push(message!);
  sink.emit({ type: "tool_calls_preparing", names: calls.map((c) => c.name), depth, parentId });
  const ended = await run.afterBatch(await runBatch(level, calls, runChild, false), calls);
  if (ended) return ended;
  const results = history[history.length - 1];
  if (step && results?.role === "tool") step.toolResults = results.content;
  const stop = turn.hooks?.stopWhen ? await stopWhen(level, iteration, history, run.steps) : false;
  if (stop === undefined) return run.halt();
  if (!stop) return undefined;
  if (!level.outputValidator) return run.finish("complete");
  const why = `stopWhen ended the level before its ${level.finishName ?? FINISH_SUBTASK} was called.`;
  return run.finish("error", { error: { message: why, code: "stopped_by_hook" } });
}

/**
 * A response without tool calls: the level's answer (guarded by `guardOutput` at the entry level),
 * or, for a level that must end through its finish tool, a reminder and another step.
 */
async function answer(
  run: LevelProgress,
  finish: FinishReason | undefined,
  message: AssistantMessage | undefined,
): Promise<LevelRun | undefined> {
  const { level } = run;
  const { turn, depth } = level;
  run.lastHadToolCalls = false;
  if (finish === "length") warnCutOff(level);
  if (level.outputValidator) {
    if (message) await run.push(message);
    await run.push({ role: "user", content: finishReminder(level) });
    return undefined;
  }
  let final: AssistantMessage = message ?? { role: "assistant", content: [], messageType: "text" };
  const verdict = level.entry && turn.hooks?.guardOutput ? await guardOutput(level, () => run.text) : PASS;
  if (verdict === undefined) return run.halt();
  if (verdict.kind === "block") return run.blocked("output", verdict.reason);
  if (verdict.kind === "replace") {
    run.text = verdict.text;
    final = withText(final, verdict.text);
  }
  if (depth === 0 && turn.tree.size > 0) final.executionTree = run.tree = turn.tree.snapshot();
  if (depth === 0) final.usage = usageOf(turn.budget, turn.pricing !== undefined);
  await run.push(final);
  return run.finish("complete");
}

/** Emits a failed model call's `error` event; returns the error the level's result carries. */
function reportFailure(level: Level, error: unknown): NonNullable<LoopResult["error"]> {
  const reason = error instanceof Error ? error.message : String(error);
  // A provider's details (a 400 and a 401 must not look alike) travel with the message.
  const details = providerDetails(error);
  level.turn.sink.emit({ type: "error", message: reason, ...details, depth: level.depth, parentId: level.parentId });
  return { message: reason, ...details };
}

/** Warns that a response was cut off by the output token limit. */
function warnCutOff(level: Level): void {
  const message = "The response was cut off by the output token limit.";
  level.turn.sink.emit({
    type: "warning",
    code: "max_output_tokens",
    message,
    depth: level.depth,
    parentId: level.parentId,
  });
}

/**
 * The iteration limit's error message; when the last response still called tools, a `tool_loop_exhausted` warning
 * first.
 */
function iterationLimit(level: Level, lastHadToolCalls: boolean): string {
  const { depth, parentId } = level;
  const maxIterations = level.turn.budget.limits.maxIterationsPerLevel;
  if (lastHadToolCalls) {
    const message = `Stopped after ${maxIterations} model calls at depth ${depth}: the tool loop did not finish.`;
    level.turn.sink.emit({ type: "warning", code: "tool_loop_exhausted", message, depth, parentId });
  }
  return `Iteration limit reached (${maxIterations} model calls at depth ${depth}).`;
}

/** What a level with an output schema is told when it answers in plain text. */
function finishReminder(level: Level): string {
  return level.finishName
    ? `You must end by calling ${level.finishName} with { result } matching the required schema; a plain-text answer is not accepted.`
    : `You must end this sub-task by calling ${FINISH_SUBTASK} with a result that matches the required schema.`;
}

/** The history cut to `maxHistoryTokens` for one request (oldest turns first), with a warning saying what went. */
function prune(level: Level, history: Message[], system: string): Message[] {
  const { turn, depth, parentId } = level;
  const limit = turn.budget.limits.maxHistoryTokens;
  const pruned = pruneHistory(history, { maxTokens: limit, system });
  if (pruned.dropped > 0 || !pruned.fits) {
    const what =
      pruned.dropped > 0
        ? `dropped the ${pruned.dropped} oldest messages (~${pruned.droppedTokens} tokens)`
        : "could not drop anything";
    turn.sink.emit({
      type: "warning",
      code: "history_pruned",
      message: `History over maxHistoryTokens (${limit}): ${what}; ~${pruned.estimatedTokens} tokens sent${pruned.fits ? "" : " (still over the limit)"}.`,
      depth,
      parentId,
    });
  }
  return pruned.messages;
}

function acceptedFinish(history: readonly Message[], level: Level): { value: unknown } | undefined {
  const name = level.finishName ?? FINISH_SUBTASK;
  const last = history[history.length - 1];
  const previous = history[history.length - 2];
  if (last?.role !== "tool" || previous?.role !== "assistant") return undefined;
  for (const part of last.content) {
    if (part.name !== name || part.isError) continue;
    const call = previous.content.find((p): p is ToolCallPart => p.type === "tool_call" && p.id === part.toolCallId);
    if (!call) continue;
    const raw = (call.args as { result?: unknown } | null)?.result;
    // Validated again so a zod schema's transforms and defaults apply to the resumed value too.
    try {
      const checked = level.outputValidator?.(raw);
      return { value: checked?.ok ? checked.value : raw };
    } catch {
      return { value: raw };
    }
  }
  return undefined;
}

/** Runs (or resumes) the child level of a `run_subtask` call. */
const runChild: RunChild = async (parent: Level, plan: SubtaskPlan) => {
  const { turn } = parent;
  const args = plan.input;
  const depth = parent.depth + 1;
  let tools: Map<string, Tool> = parent.tools;
  if (args.tools) {
    tools = new Map();
    for (const name of args.tools) {
      const tool = parent.tools.get(name);
      if (tool) tools.set(name, tool);
    }
    const unknown = args.tools.filter((name) => !parent.tools.has(name));
    if (unknown.length > 0) {
      // Names and title come from the model: quoted cut short, so a warning stays small.
      const listed =
        unknown.slice(0, 20).map(echoName).join(", ") +
        (unknown.length > 20 ? `, and ${unknown.length - 20} more` : "");
      turn.sink.emit({
        type: "warning",
        code: "subtask_tools_ignored",
        message: `Sub-task "${echoName(args.title)}" asked for tools its parent lacks; ignored: ${listed}.`,
        depth,
        parentId: plan.call.id,
      });
    }
  }
  const outputSchema = args.output_schema;
  const child: Level = {
    turn,
    entry: false,
    depth,
    parentId: plan.call.id,
    systemPrompt: turn.subtaskPrompt({
      title: args.title,
      depth,
      maxDepth: turn.budget.limits.maxDepth,
      ...(outputSchema && { outputSchema }),
    }),
    subtaskTitle: args.title,
    tools,
    modelTools: [],
    offersSubtask: offersSubtaskAt(parent, depth),
    outputSchema,
    outputValidator: plan.outputValidator,
  };
  child.modelTools = modelToolsFor(child);
  const frame = turn.resume?.frames[plan.call.id];
  const appended: Message[] = [];
  let history: Message[];
  if (frame) {
    history = frame.slice();
  } else {
    const opening: Message = { role: "user", content: args.instructions };
    history = [opening];
    appended.push(opening);
    await turn.sink.emitAndWait({ type: "message", message: opening, depth, parentId: plan.call.id });
  }
  return runLevel(child, history, appended);
};

/** `code`, `status`, `retryable` and `provider` of a `ProviderError` (empty for other errors). */
function providerDetails(error: unknown): { code?: string; status?: number; retryable?: boolean; provider?: string } {
  if (!ProviderError.isInstance(error)) return {};
  return {
    ...(error.errorType !== undefined && { code: error.errorType }),
    ...(error.status !== undefined && { status: error.status }),
    retryable: error.retryable,
    provider: error.provider,
  };
}
