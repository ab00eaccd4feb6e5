import { estimateMessageTokens, estimateSystemTokens, estimateTokens } from "../context/estimate-tokens.js";
import type { StepRecord } from "../contracts/hooks.js";
import type { LoopResult, LoopStatus } from "../contracts/loop-result.js";
import type { Message, ToolCallPart, ToolMessage } from "../contracts/message.js";
import { reportBudget, type ChildOutcome } from "./execute-plan.js";
import { guardOutput } from "./level-hooks.js";
import type { BatchOutcome, Level } from "./level.js";
import { failTurn } from "./turn-hooks.js";
import { usageOf } from "./usage-of.js";

/** What a level's run came to, with what its parent needs to suspend and resume it. */
export type LevelRun = ChildOutcome;

const EMPTY_TREE: LoopResult["executionTree"] = Object.freeze({ version: 1, nodes: [] });

/**
 * Where one level's run stands: its conversation, what it appended, its answer so far and the
 * running token estimate of its context, with the ways the level ends (each a `LevelRun`).
 */
export class LevelProgress {
  /** The level's last assistant text (its answer when it ends). */
  text = "";
  /** Whether the last response called tools (the iteration limit's warning says so). */
  lastHadToolCalls = false;
  /** The execution tree snapshot, once taken (the entry level's result and final message share it). */
  tree: LoopResult["executionTree"] | undefined;
  /** Running estimate of the request context, so pruning is only considered when it may be needed. */
  tokens: number;
  /** The level's finished steps, as hooks see them. */
  readonly steps: StepRecord[] = [];

  constructor(
    readonly level: Level,
    readonly history: Message[],
    readonly appended: Message[],
    historyTokens: number | undefined,
  ) {
    this.tokens =
      historyTokens === undefined
        ? estimateTokens(history, level.systemPrompt)
        : historyTokens + estimateSystemTokens(level.systemPrompt);
  }

  /** The level's end with `status`. */
  finish(status: LoopStatus, extra: Partial<LoopResult> = {}, batch?: BatchOutcome): LevelRun {
    const { level } = this;
    const { turn } = level;
    // Only the entry level's result is returned to the host: children skip the tree copy.
    const result: LoopResult = {
      status,
      text: this.text,
      messages: this.appended,
      executionTree: level.entry ? (this.tree ??= turn.tree.snapshot()) : EMPTY_TREE,
      usage: usageOf(turn.budget, turn.pricing !== undefined),
      ...extra,
    };
    const resume = batch?.resume ?? { frames: {}, decisions: {}, results: {} };
    const pendingApprovals = batch?.pendingApprovals ?? [];
    if (status === "suspended") {
      result.pendingApprovals = pendingApprovals;
      result.resume = resume;
    }
    return { result, history: this.history, resume, pendingApprovals };
  }

  /** Appends a message of this level and holds the level until the consumer has it. */
  push(message: Message): Promise<void> {
    const { depth, parentId, turn } = this.level;
    this.history.push(message);
    this.tokens += estimateMessageTokens(message);
    this.appended.push(message);
    return turn.sink.emitAndWait({ type: "message", message, depth, parentId });
  }

  /**
   * At a step boundary: asks the runtime (`stepBoundary`) for a stop or steered messages; the
   * entry level adds those to its conversation, each stored (`message_steered`) before it goes on.
   */
  async takeSteered(): Promise<void> {
    const { turn, depth, parentId, entry } = this.level;
    const steered = await turn.stepBoundary!(entry);
    for (const { message, messageId } of steered) {
      this.history.push(message);
      this.tokens += estimateMessageTokens(message);
      this.appended.push(message);
      await turn.sink.emitAndWait({ type: "message_steered", message, messageId, depth, parentId });
    }
  }

  /** The level's end when it must stop before its next step (a hook failed, budget spent, turn aborted). */
  stopped(): LevelRun | undefined {
    const stop = stopOf(this.level);
    return stop && this.finish(stop[0], stop[1]);
  }

  /** Stops the level: why it must, or aborted when nothing else says why. */
  halt(): LevelRun {
    return this.stopped() ?? this.finish("aborted", { error: { message: "The turn was aborted." } });
  }

  /** Ends the level `"blocked"` by a guardrail: its text is not the answer. */
  blocked(guard: "input" | "output", reason: string): LevelRun {
    const { depth, parentId, turn } = this.level;
    this.text = "";
    turn.sink.emit({ type: "guardrail_tripped", guard, reason, depth, parentId });
    const code = guard === "input" ? "input_blocked" : "output_blocked";
    return this.finish("blocked", { error: { message: `Blocked by the ${guard} guardrail: ${reason}`, code } });
  }

  /** Ends the level after a batch (suspended, or its finish tool accepted), else undefined. */
  async afterBatch(batch: BatchOutcome, calls: ToolCallPart[]): Promise<LevelRun | undefined> {
    if (batch.suspended) return this.finish("suspended", {}, batch);
    await this.push(toolMessage(batch, calls));
    if (!batch.finished) return undefined;
    const structured = batch.finished.value;
    const verdict = await guardOutput(this.level, () => JSON.stringify(structured) ?? "");
    if (verdict === undefined) return this.halt();
    if (verdict.kind === "block") return this.blocked("output", verdict.reason);
    if (verdict.kind === "replace") {
      failTurn(this.level.turn, "guardOutput", new Error("a structured answer cannot be replaced, only blocked"));
      return this.halt();
    }
    return this.finish("complete", { structured });
  }
}

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

/** The tool message of a batch: its results in call order (a call without one reads "Not run."). */
function toolMessage(batch: BatchOutcome, calls: ToolCallPart[]): ToolMessage {
  return {
    role: "tool",
    content: batch.results.map((r, i) => r ?? missingResult(calls[i]!)),
    messageType: "tool_result",
  };
}

function missingResult(call: ToolCallPart) {
  return { type: "tool_result" as const, toolCallId: call.id, name: call.name, result: "Not run.", isError: true };
}
