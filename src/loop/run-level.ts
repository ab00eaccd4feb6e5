import { ProviderError } from "../errors/errors.js";
import { estimateMessageTokens, estimateSystemTokens, estimateTokens } from "../context/estimate-tokens.js";
import { pruneHistory } from "../context/prune-history.js";
import type { AssistantMessage, Message, ToolCallPart, ToolMessage } from "../contracts/message.js";
import type { Tool } from "../contracts/tool.js";
import { callModel } from "./call-model.js";
import { usageOf } from "./usage-of.js";
import { reportBudget, type ChildOutcome, type RunChild } from "./execute-plan.js";
import type { BatchOutcome, Level, SubtaskPlan } from "./level.js";
import type { LoopResult, LoopStatus } from "../contracts/loop-result.js";
import { runBatch } from "./run-batch.js";
import { FINISH_SUBTASK, finishSubtaskTool, runSubtaskTool, runSubtaskToolWithoutSchema } from "./subtask-tools.js";
import { echoName } from "./tool-result.js";
import type { StepRecord } from "../contracts/hooks.js";
import { failTurn } from "./turn-hooks.js";
import { guardInput, guardOutput, prepareStep, stopWhen, withText } from "./level-hooks.js";

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

const EMPTY_TREE: LoopResult["executionTree"] = Object.freeze({ version: 1, nodes: [] });

/** What a level's run came to, with what its parent needs to suspend and resume it. */
export type LevelRun = ChildOutcome;

/**
 * One level of the loop: call the model, run its tool calls, repeat until it answers without
 * tools, a limit is hit, or the turn is aborted or suspended.
 */
/** Why the level must stop before its next step (budget spent, turn aborted), else undefined. */
function stopOf(level: Level): [LoopStatus, Partial<LoopResult>] | undefined {
  const { budget, signal, hookFailure } = level.turn;
  if (hookFailure) {
    if (!hookFailure.reported) {
      hookFailure.reported = true;
      level.turn.sink.emit({
        type: "error",
        message: hookFailure.message,
        code: "hook_failed",
        depth: level.depth,
        parentId: level.parentId,
      });
    }
    return ["error", { error: { message: hookFailure.message, code: "hook_failed" } }];
  }
  const spent = budget.exceeded;
  if (spent) {
    reportBudget(level, spent);
    const message = `Budget exceeded: ${spent.reason} (limit ${spent.limit}, observed ${spent.observed})`;
    return ["budget_exceeded", { error: { message, reason: spent.reason } }];
  }
  if (signal.aborted) return ["aborted", { error: { message: "The turn was aborted." } }];
  return undefined;
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

export async function runLevel(
  level: Level,
  history: Message[],
  appended: Message[],
  historyTokens?: number,
): Promise<LevelRun> {
  const { turn, depth, parentId } = level;
  const { budget, sink } = turn;
  let text = "";
  let lastHadToolCalls = false;
  let tree: LoopResult["executionTree"] | undefined;
  const finish = (status: LoopStatus, extra: Partial<LoopResult> = {}, batch?: BatchOutcome): LevelRun => {
    // Only the entry level's result is returned to the host: children skip the tree copy.
    const result: LoopResult = {
      status,
      text,
      messages: appended,
      executionTree: level.entry ? (tree ??= turn.tree.snapshot()) : EMPTY_TREE,
      usage: usageOf(budget, turn.pricing !== undefined),
      ...extra,
    };
    const resume = batch?.resume ?? { frames: {}, decisions: {}, results: {} };
    const pendingApprovals = batch?.pendingApprovals ?? [];
    if (status === "suspended") {
      result.pendingApprovals = pendingApprovals;
      result.resume = resume;
    }
    return { result, history, resume, pendingApprovals };
  };
  // Running estimate of the request context, so pruning is only considered when it may be needed.
  let tokens =
    historyTokens === undefined
      ? estimateTokens(history, level.systemPrompt)
      : historyTokens + estimateSystemTokens(level.systemPrompt);
  /** Appends a message of this level and holds the level until the consumer has it. */
  const push = (message: Message): Promise<void> => {
    history.push(message);
    tokens += estimateMessageTokens(message);
    appended.push(message);
    return sink.emitAndWait({ type: "message", message, depth, parentId });
  };
  const stopped = (): LevelRun | undefined => {
    const stop = stopOf(level);
    return stop && finish(stop[0], stop[1]);
  };
  /** Stops the level: why it must (a hook failed, the budget is spent, the turn was aborted). */
  const halt = (): LevelRun => stopped() ?? finish("aborted", { error: { message: "The turn was aborted." } });
  /** Ends the level `"blocked"` by a guardrail: its text is not the answer. */
  const blocked = (guard: "input" | "output", reason: string): LevelRun => {
    text = "";
    sink.emit({ type: "guardrail_tripped", guard, reason, depth, parentId });
    const code = guard === "input" ? "input_blocked" : "output_blocked";
    return finish("blocked", { error: { message: `Blocked by the ${guard} guardrail: ${reason}`, code } });
  };
  /** Ends the level after a batch (suspended, or its finish tool accepted), else undefined. */
  const afterBatch = async (batch: BatchOutcome, calls: ToolCallPart[]): Promise<LevelRun | undefined> => {
    if (batch.suspended) return finish("suspended", {}, batch);
    await push(toolMessage(batch, calls));
    if (!batch.finished) return undefined;
    const structured = batch.finished.value;
    const verdict = await guardOutput(level, () => JSON.stringify(structured) ?? "");
    if (verdict === undefined) return halt();
    if (verdict.kind === "block") return blocked("output", verdict.reason);
    if (verdict.kind === "replace") {
      failTurn(turn, "guardOutput", new Error("a structured answer cannot be replaced, only blocked"));
      return halt();
    }
    return finish("complete", { structured });
  };

  if (turn.resume) {
    const last = history[history.length - 1];
    const calls = pendingCalls(history);
    if (calls) {
      lastHadToolCalls = true;
      const ended = await afterBatch(await runBatch(level, calls, runChild, true), calls);
      if (ended) return ended;
    } else if (last?.role === "assistant") {
      text = lastText(last);
      return finish("complete");
    } else if (last?.role === "tool" && level.outputValidator) {
      const accepted = acceptedFinish(history, level);
      if (accepted) return finish("complete", { structured: accepted.value });
    }
  } else if (level.entry && turn.hooks?.guardInput) {
    const verdict = await guardInput(level, history);
    if (verdict === undefined) return halt();
    if (verdict.kind === "block") return blocked("input", verdict.reason);
  }

  const steps: StepRecord[] = [];
  const maxIterations = budget.limits.maxIterationsPerLevel;
  for (let iteration = 1; ; iteration++) {
    const halted = stopped();
    if (halted) return halted;
    if (iteration > maxIterations)
      return finish("iteration_limit", { error: { message: iterationLimit(level, lastHadToolCalls) } });
    const call = await prepareStep(level, iteration, history, steps);
    if (call === undefined || turn.signal.aborted) return halt();
    level.stepTools = call.tools === level.modelTools ? undefined : new Set(call.tools.map((t) => t.name));
    if (budget.tryLlmCall()) return stopped()!;
    sink.emit({ type: "llm_call_start", iteration, model: call.model, provider: turn.provider.id, depth, parentId });
    const messages = call.messages ?? history;
    const estimated =
      call.messages === undefined && call.system === level.systemPrompt
        ? tokens
        : estimateTokens(messages, call.system);
    const response = await callModel(
      level,
      call,
      estimated > budget.limits.maxHistoryTokens ? prune(level, messages, call.system) : messages,
    );
    const message = response.message;
    const step: StepRecord = {
      iteration,
      model: call.model,
      text: response.text,
      toolCalls: response.toolCalls,
      toolResults: [],
      finishReason: response.finish,
    };
    steps.push(step);
    if (message && message.content.some((p) => p.type === "text")) text = response.text;
    if (response.aborted || response.error !== undefined) {
      if (message) await push(message);
      const halted = stopped();
      if (halted) return halted;
      return finish("error", { error: reportFailure(level, response.error) });
    }
    const calls = response.toolCalls;
    if (calls.length === 0) {
      lastHadToolCalls = false;
      if (response.finish === "length") warnCutOff(level);
      if (level.outputValidator) {
        if (message) await push(message);
        await push({ role: "user", content: finishReminder(level) });
        continue;
      }
      let final: AssistantMessage = message ?? { role: "assistant", content: [], messageType: "text" };
      const verdict = await guardOutput(level, () => text);
      if (verdict === undefined) return halt();
      if (verdict.kind === "block") return blocked("output", verdict.reason);
      if (verdict.kind === "replace") {
        text = verdict.text;
        final = withText(final, text);
      }
      if (depth === 0 && turn.tree.size > 0) final.executionTree = tree = turn.tree.snapshot();
      if (depth === 0) final.usage = usageOf(budget, turn.pricing !== undefined);
      await push(final);
      return finish("complete");
    }
    lastHadToolCalls = true;
    await push(message!);
    sink.emit({ type: "tool_calls_preparing", names: calls.map((c) => c.name), depth, parentId });
    const ended = await afterBatch(await runBatch(level, calls, runChild, false), calls);
    if (ended) return ended;
    const results = history[history.length - 1];
    if (results?.role === "tool") step.toolResults = results.content;
    const stop = await stopWhen(level, iteration, history, steps);
    if (stop === undefined) return halt();
    if (stop) {
      if (!level.outputValidator) return finish("complete");
      const message = `stopWhen ended the level before its ${level.finishName ?? FINISH_SUBTASK} was called.`;
      return finish("error", { error: { message, code: "stopped_by_hook" } });
    }
  }
}

/** The tool message of a batch: its results in call order (a call without one reads "Not run."). */
function toolMessage(batch: BatchOutcome, calls: ToolCallPart[]): ToolMessage {
  return {
    role: "tool",
    content: batch.results.map((r, i) => r ?? missingResult(calls[i]!)),
    messageType: "tool_result",
  };
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

function missingResult(call: ToolCallPart) {
  return { type: "tool_result" as const, toolCallId: call.id, name: call.name, result: "Not run.", isError: true };
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
