import { isAbortError } from "../internal/abort.js";
import type { Message, ToolResultPart } from "../messages/message.js";
import type { ToolContext } from "../tools/tool.js";
import type { BudgetViolation } from "./budget.js";
import type { CallPlan, Level } from "./level.js";
import type { LoopEvent } from "./loop-event.js";
import type { ApprovalRequest, LoopResult, ResumeState } from "./loop-types.js";
import type { RunSubtaskArgs } from "./subtask-tools.js";
import { errorMessage, normaliseResult, truncateResult } from "./tool-result.js";

/** How a child level ended, as the parent needs it. */
export interface ChildOutcome {
  result: LoopResult;
  /** The child's whole conversation (its frame). */
  history: Message[];
  resume: ResumeState & { results: Record<string, ToolResultPart> };
  pendingApprovals: ApprovalRequest[];
}

/** Runs a sub-task's child level; injected to keep the module graph one-way. */
export type RunChild = (level: Level, plan: CallPlan) => AsyncGenerator<LoopEvent, ChildOutcome>;

/** What running one call came to. `result` is undefined when the call is suspended. */
export interface PlanOutcome {
  result: ToolResultPart | undefined;
  finished?: { value: unknown };
  child?: ChildOutcome;
}

/** The `budget_exceeded` event of the turn, the first time only. */
export function budgetEvent(level: Level, violation: BudgetViolation): LoopEvent | undefined {
  const budget = level.turn.budget;
  if (budget.reported) return undefined;
  budget.reported = true;
  return { type: "budget_exceeded", reason: violation.reason, limit: violation.limit, observed: violation.observed, depth: level.depth, parentId: level.parentId };
}

/** Emits the `start` event of a call (once) and opens its tree node. */
export function startCall(level: Level, plan: CallPlan): LoopEvent | undefined {
  if (plan.started) return undefined;
  plan.started = true;
  plan.startedAt = Date.now();
  const { call } = plan;
  const title = plan.kind === "subtask" ? (plan.input as RunSubtaskArgs).title : undefined;
  level.turn.tree.start(call.id, level.parentId, call.name, plan.args, title);
  return { type: "tool_call_update", toolCallId: call.id, name: call.name, status: "start", args: plan.args, depth: level.depth, parentId: level.parentId };
}

function endCall(level: Level, plan: CallPlan, result: unknown, isError: boolean): { event: LoopEvent; part: ToolResultPart } {
  const durationMs = plan.startedAt === 0 ? 0 : Date.now() - plan.startedAt;
  const { call } = plan;
  level.turn.tree.end(call.id, result, isError, durationMs);
  const event: LoopEvent = { type: "tool_call_update", toolCallId: call.id, name: call.name, status: "end", result, durationMs, depth: level.depth, parentId: level.parentId };
  const part: ToolResultPart = { type: "tool_result", toolCallId: call.id, name: call.name, result };
  if (isError) {
    event.isError = true;
    part.isError = true;
  }
  return { event, part };
}

/**
 * Runs one planned call: budget reservation, lock, execution with timeout and abort, result
 * truncation. Yields its `start` (unless already out) and `end` events; never throws for a tool's fault.
 */
export async function* executePlan(level: Level, plan: CallPlan, runChild: RunChild): AsyncGenerator<LoopEvent, PlanOutcome> {
  const finish = function* (result: unknown, isError: boolean): Generator<LoopEvent, PlanOutcome> {
    const start = startCall(level, plan);
    if (start) yield start;
    const { event, part } = endCall(level, plan, result, isError);
    yield event;
    return { result: part };
  };
  const { turn } = level;
  if (plan.kind === "refuse") return yield* finish(plan.refusal ?? "Refused.", true);
  if (plan.decision && !plan.decision.approved) {
    return yield* finish(`Denied: the call was not approved${plan.decision.reason ? ` (${plan.decision.reason})` : ""}.`, true);
  }
  if (plan.kind === "finish") {
    const checked = level.outputValidator!((plan.input as { result?: unknown } | undefined)?.result);
    if (!checked.ok) return yield* finish(`The result does not match the required output_schema: ${checked.message}. Fix it and call finish_subtask again.`, true);
    const outcome = yield* finish("Result accepted.", false);
    return { ...outcome, finished: { value: checked.value } };
  }
  const violation = plan.kind === "subtask" ? turn.budget.trySubtask() : turn.budget.tryToolCall();
  if (violation) {
    const event = budgetEvent(level, violation);
    if (event) yield event;
    return yield* finish(`Not run: the turn's budget is spent (${violation.reason}, limit ${violation.limit}).`, true);
  }
  if (turn.signal.aborted) return yield* finish("Not run: the turn was aborted.", true);

  if (plan.kind === "subtask") {
    const start = startCall(level, plan);
    if (start) yield start;
    const child = yield* runChild(level, plan);
    if (child.result.status === "suspended") return { result: undefined, child };
    const { status } = child.result;
    if (status === "complete") {
      const value = level.outputValidator === undefined && child.result.structured === undefined ? child.result.text : child.result.structured;
      const { event, part } = endCall(level, plan, value, false);
      yield event;
      return { result: part, child };
    }
    const why =
      status === "iteration_limit"
        ? "the sub-task hit its iteration limit before finishing"
        : status === "budget_exceeded"
          ? "the turn's budget is spent"
          : status === "aborted"
            ? "the turn was aborted"
            : (child.result.error?.message ?? "it failed");
    const { event, part } = endCall(level, plan, `Sub-task did not complete: ${why}.${child.result.text ? ` Partial result: ${child.result.text}` : ""}`, true);
    yield event;
    return { result: part, child };
  }

  const tool = plan.tool!;
  const lockName = tool.exclusiveLock;
  let release: (() => void) | undefined;
  if (lockName !== undefined) release = await acquire(turn.budget.locks, lockName);
  try {
    const start = startCall(level, plan);
    if (start) yield start;
    const outcome = await runTool(level, plan);
    if (outcome.budget) {
      const event = budgetEvent(level, outcome.budget);
      if (event) yield event;
    }
    const { event, part } = endCall(level, plan, outcome.value, outcome.isError);
    yield event;
    return { result: part };
  } finally {
    release?.();
  }
}

async function runTool(level: Level, plan: CallPlan): Promise<{ value: unknown; isError: boolean; budget?: BudgetViolation }> {
  const { turn } = level;
  const tool = plan.tool!;
  const timeoutMs = tool.timeoutMs ?? turn.toolTimeoutMs;
  let signal = turn.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  let controller: AbortController | undefined;
  if (timeoutMs !== undefined) {
    controller = new AbortController();
    signal = controller.signal;
    const parent = turn.signal;
    const onAbort = () => controller!.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    timer = setTimeout(() => {
      timedOut = true;
      parent.removeEventListener("abort", onAbort);
      controller!.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  }
  const ctx: ToolContext = { toolCallId: plan.call.id, depth: level.depth, parentId: level.parentId, signal, policy: turn.toolPolicy, host: turn.host };
  if (turn.sessionId !== undefined) ctx.sessionId = turn.sessionId;
  if (turn.agentId !== undefined) ctx.agentId = turn.agentId;
  let raw: unknown;
  try {
    raw = await raceAbort(tool.execute(plan.input, ctx), signal);
  } catch (error) {
    if (timedOut) return { value: `Tool "${tool.name}" timed out after ${timeoutMs} ms.`, isError: true };
    if (turn.signal.aborted && (isAbortError(error) || signal.aborted)) return { value: "Aborted: the turn was stopped.", isError: true };
    return { value: `Error: ${errorMessage(error)}`, isError: true };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  const normal = normaliseResult(raw);
  const kept = turn.budget.admitResultBytes(normal.bytes);
  const spent = turn.budget.exceeded?.reason === "bytes" ? turn.budget.exceeded : undefined;
  if (kept >= normal.bytes) return { value: normal.value, isError: false, budget: spent };
  const text = normal.text ?? JSON.stringify(normal.value);
  return { value: truncateResult(text, normal.bytes, kept), isError: false, budget: spent };
}

function raceAbort<T>(value: T | Promise<T>, signal: AbortSignal): Promise<T> | T {
  if (!(value instanceof Promise)) return value;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    value.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

async function acquire(locks: Map<string, Promise<void>>, name: string): Promise<() => void> {
  const previous = locks.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  locks.set(name, tail);
  await previous;
  return () => {
    release();
    if (locks.get(name) === tail) locks.delete(name);
  };
}
