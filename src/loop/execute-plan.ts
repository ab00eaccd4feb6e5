import { isAbortError } from "../internal/abort.js";
import type { Message, ToolResultPart } from "../contracts/message.js";
import { LEVEL_TOOLS, RUNTIME_HOST } from "../internal/runtime-host.js";
import { ToolSuspension, type CallWait } from "../internal/tool-suspension.js";
import type { ToolContext } from "../contracts/tool.js";
import type { BudgetViolation } from "./budget.js";
import type { CallPlan, FinishPlan, Level, SubtaskPlan, ToolPlan, Turn } from "./level.js";
import type { LoopEvent, ToolLogLevel, ToolRefusal } from "../contracts/loop-event.js";
import type { ApprovalRequest, LoopResult, ResumeState } from "../contracts/loop-result.js";
import { timerDelay } from "../internal/timer-delay.js";
import { capResult, errorMessage, readResult } from "./tool-result.js";
import { writeToolLog, type ToolLogTarget } from "./tool-log.js";

/** How a child level ended, as the parent needs it. */
export interface ChildOutcome {
  result: LoopResult;
  /** The child's whole conversation (its frame). */
  history: Message[];
  resume: ResumeState & { results: Record<string, ToolResultPart> };
  pendingApprovals: ApprovalRequest[];
}

/** Runs a sub-task's child level; injected to keep the module graph one-way. */
export type RunChild = (level: Level, plan: SubtaskPlan) => Promise<ChildOutcome>;

/** What running one call came to. `result` is undefined when the call is suspended. */
export interface PlanOutcome {
  result: ToolResultPart | undefined;
  /** The call suspended after it started (it waits for another agent's decisions): no result yet. */
  suspension?: ApprovalRequest;
  finished?: { value: unknown };
  child?: ChildOutcome;
}

/** Emits the turn's `budget_exceeded` event, the first time only. */
export function reportBudget(level: Level, violation: BudgetViolation): void {
  const budget = level.turn.budget;
  if (budget.reported) return;
  budget.reported = true;
  level.turn.sink.emit({
    type: "budget_exceeded",
    reason: violation.reason,
    limit: violation.limit,
    observed: violation.observed,
    depth: level.depth,
    parentId: level.parentId,
  });
}

/**
 * Emits the `start` event of a call and opens its tree node, unless the plan started already;
 * returns when the call started (the plan is not changed: a caller keeps the time it needs).
 */
export function startCall(level: Level, plan: CallPlan): number {
  if (plan.startedAt !== undefined) return plan.startedAt;
  const startedAt = Date.now();
  const { call } = plan;
  const title = plan.kind === "subtask" ? plan.input.title : undefined;
  level.turn.tree.start(call.id, level.parentId, call.name, plan.args, title);
  level.turn.sink.emit({
    type: "tool_call_update",
    toolCallId: call.id,
    name: call.name,
    status: "start",
    args: plan.args,
    depth: level.depth,
    parentId: level.parentId,
  });
  return startedAt;
}

/**
 * Emits the `end` event of a call (its `start` first, if it never had one: `startedAt` undefined)
 * and closes its tree node.
 * Every result the model sees passes here and is cut to the turn's result-byte room
 * (`maxToolResultBytes`, and what is left of `maxTotalResultBytes`), truncation notice included.
 */
function endCall(
  level: Level,
  plan: CallPlan,
  startedAt: number | undefined,
  raw: unknown,
  isError: boolean,
  text?: string,
  refused?: ToolRefusal,
): ToolResultPart {
  const from = startedAt ?? startCall(level, plan);
  const budget = level.turn.budget;
  const capped = capResult(raw, budget.resultRoom(), text);
  const spent = budget.recordResult(capped.fullBytes, capped.bytes);
  if (spent) reportBudget(level, spent);
  const result = capped.value;
  const durationMs = Date.now() - from;
  const { call } = plan;
  level.turn.tree.end(call.id, result, isError, durationMs);
  const event: LoopEvent = {
    type: "tool_call_update",
    toolCallId: call.id,
    name: call.name,
    status: "end",
    result,
    durationMs,
    depth: level.depth,
    parentId: level.parentId,
  };
  const part: ToolResultPart = { type: "tool_result", toolCallId: call.id, name: call.name, result };
  if (isError) {
    event.isError = true;
    part.isError = true;
  }
  if (refused !== undefined) event.refused = refused;
  level.turn.sink.emit(event);
  return part;
}

/**
 * Runs one planned call: budget reservation, lock, execution with timeout and abort, result
 * truncation. Emits its `start` (unless already out) and `end` events; never throws for a tool's fault.
 */
export function executePlan(level: Level, plan: CallPlan, runChild: RunChild): PlanOutcome | Promise<PlanOutcome> {
  const { turn } = level;
  switch (plan.kind) {
    case "refuse":
      return { result: endCall(level, plan, plan.startedAt, plan.refusal, true, undefined, plan.refused) };
    case "answered":
      return { result: endCall(level, plan, plan.startedAt, plan.result, plan.isError === true) };
    case "finish": {
      const checked = validateFinish(plan);
      if (!checked.ok) {
        return {
          result: endCall(
            level,
            plan,
            plan.startedAt,
            `The result does not match the required ${level.finishName ? "output schema" : "output_schema"}: ${checked.message}. Fix it and call ${level.finishName ?? "finish_subtask"} again.`,
            true,
          ),
        };
      }
      return {
        result: endCall(level, plan, plan.startedAt, "Result accepted.", false),
        finished: { value: checked.value },
      };
    }
  }
  const violation = plan.kind === "subtask" ? turn.budget.trySubtask() : turn.budget.tryToolCall();
  if (violation) {
    reportBudget(level, violation);
    return {
      result: endCall(
        level,
        plan,
        plan.startedAt,
        `Not run: the turn's budget is spent (${violation.reason}, limit ${violation.limit}).`,
        true,
        undefined,
        "budget_exceeded",
      ),
    };
  }
  if (turn.signal.aborted) return notRun(level, plan, "Not run: the turn was aborted.", "aborted");

  if (plan.kind === "subtask") return gate(level, plan, () => runSubtask(level, plan, runChild));
  const lockName = plan.tool.exclusiveLock;
  if (lockName !== undefined) return runLocked(level, plan, lockName);
  // The common case, kept free of promises when the tool is synchronous (and nothing is awaited first).
  return gate(level, plan, () => runTool(level, plan, startCall(level, plan)));
}

/** Ends a call that never ran with an error result. */
function notRun(level: Level, plan: CallPlan, text: string, refused?: ToolRefusal): PlanOutcome {
  return { result: endCall(level, plan, plan.startedAt, text, true, undefined, refused) };
}

/**
 * Calls `start` once the turn's `beforeToolCall` (the runtime's lease check) resolved, at once
 * without one. A turn aborted meanwhile (the lease was lost) or a check that failed leaves the
 * call unrun: nothing of it starts after the check said no.
 */
function gate(
  level: Level,
  plan: ToolPlan | SubtaskPlan,
  start: () => PlanOutcome | Promise<PlanOutcome>,
): PlanOutcome | Promise<PlanOutcome> {
  const check = level.turn.beforeToolCall;
  if (check === undefined) return start();
  return check().then(
    () => (level.turn.signal.aborted ? notRun(level, plan, "Not run: the turn was aborted.", "aborted") : start()),
    (error: unknown) =>
      level.turn.signal.aborted
        ? notRun(level, plan, "Not run: the turn was aborted.", "aborted")
        : notRun(level, plan, `Not run: ${errorMessage(error)}`),
  );
}

function toolDone(level: Level, plan: ToolPlan, startedAt: number, outcome: ToolOutcome): PlanOutcome {
  const wait = outcome.suspension;
  if (wait !== undefined) {
    const { depth, parentId } = level;
    const waitsOn = { sessionId: wait.sessionId, agentId: wait.agentId, runId: wait.runId };
    return {
      result: undefined,
      suspension: {
        requestId: wait.requestId,
        toolCallId: plan.call.id,
        name: plan.call.name,
        args: plan.args,
        depth,
        parentId,
        reason: wait.reason,
        waitsOn,
      },
    };
  }
  return { result: endCall(level, plan, startedAt, outcome.value, outcome.isError, outcome.text) };
}

/** Checks a `finish_subtask` result; a validator that throws is an error result, never the turn's end. */
function validateFinish(plan: FinishPlan): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return plan.outputValidator((plan.input as { result?: unknown } | undefined)?.result);
  } catch (error) {
    return { ok: false, message: `it could not be checked (${errorMessage(error)})` };
  }
}

async function runLocked(level: Level, plan: ToolPlan, lockName: string): Promise<PlanOutcome> {
  // Checked once the lock is held: the wait for it can be long.
  return level.turn.budget.locks.run(lockName, async () =>
    gate(level, plan, () => runTool(level, plan, startCall(level, plan))),
  );
}

async function runSubtask(level: Level, plan: SubtaskPlan, runChild: RunChild): Promise<PlanOutcome> {
  const startedAt = startCall(level, plan);
  const child = await runChild(level, plan);
  if (child.result.status === "suspended") return { result: undefined, child };
  const { status } = child.result;
  if (status === "complete") {
    const value = child.result.structured === undefined ? child.result.text : child.result.structured;
    return { result: endCall(level, plan, startedAt, value, false), child };
  }
  const why =
    status === "iteration_limit"
      ? "the sub-task hit its iteration limit before finishing"
      : status === "budget_exceeded"
        ? "the turn's budget is spent"
        : status === "aborted"
          ? "the turn was aborted"
          : (child.result.error?.message ?? "it failed");
  return {
    result: endCall(
      level,
      plan,
      startedAt,
      `Sub-task did not complete: ${why}.${child.result.text ? ` Partial result: ${child.result.text}` : ""}`,
      true,
    ),
    child,
  };
}

interface ToolOutcome {
  value: unknown;
  isError: boolean;
  /** The package's own tool suspended the call (see `ToolSuspension`). */
  suspension?: CallWait;
  /** The value as the model reads it, when already known. */
  text?: string | undefined;
}

/**
 * Runs the tool and ends the call (`startedAt`: when it started); synchronous tools (without a
 * timeout) are handled without a promise. Whatever the tool returns is awaited when it is a
 * thenable (a native Promise or not: query builders, other realms), bounded by the timeout and the
 * turn's abort; a value or error that cannot even be read (a hostile Proxy) becomes an error result.
 */
function runTool(level: Level, plan: ToolPlan, startedAt: number): PlanOutcome | Promise<PlanOutcome> {
  const { turn } = level;
  const { tool } = plan;
  const done = (outcome: ToolOutcome): PlanOutcome => toolDone(level, plan, startedAt, outcome);
  const timeoutMs = timerDelay(tool.timeoutMs ?? turn.toolTimeoutMs);
  if (timeoutMs !== undefined) return runToolWithTimeout(level, plan, timeoutMs).then(done);
  const ctx = new CallContext(level, plan, turn.signals);
  let raw: unknown;
  try {
    raw = tool.execute(plan.input, ctx);
  } catch (error) {
    ctx.release();
    return done(failed(level, plan, error, turn.signal, false, undefined));
  }
  const pending = thenableOf(raw);
  if (!(pending instanceof Promise)) {
    ctx.release();
    return done(pending ?? readResult(raw));
  }
  // Settled by the tool or by the turn's abort, whichever comes first: a tool that ignores its
  // signal must not hold the turn. One promise and one reaction, where a race costs four.
  return new Promise<PlanOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: () => ToolOutcome): void => {
      if (settled) return;
      settled = true;
      forget();
      ctx.release();
      resolve(done(outcome()));
    };
    const forget = turn.signals.whenAborted(() =>
      settle(() => failed(level, plan, turn.signal.reason, turn.signal, false, undefined)),
    );
    pending.then(
      (value) => settle(() => readResult(value)),
      (error: unknown) => settle(() => failed(level, plan, error, turn.signal, false, undefined)),
    );
  });
}

/**
 * A promise of `value` when it is a thenable (an object or function with a callable `then`),
 * `undefined` when it is not, or an error outcome when even that cannot be read (a Proxy whose
 * traps throw). Calling `then` may throw too: the promise rejects with that.
 */
function thenableOf(value: unknown): Promise<unknown> | ToolOutcome | undefined {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return undefined;
  let then: unknown;
  try {
    then = (value as { then?: unknown }).then;
    if (typeof then !== "function") return undefined;
    if (then === Promise.prototype.then && value instanceof Promise) return value as Promise<unknown>;
  } catch (error) {
    return { value: `The tool returned a value that could not be read: ${errorMessage(error)}`, isError: true };
  }
  return new Promise((resolve, reject) => {
    try {
      (then as (onValue: (v: unknown) => void, onError: (e: unknown) => void) => unknown).call(value, resolve, reject);
    } catch (error) {
      reject(asError(error));
    }
  });
}

const asError = (error: unknown): Error => new Error(errorMessage(error));

/**
 * A tool's context. `signal` is a getter that makes the call's own signal on first use (most tools
 * never look at it); read it as `ctx.signal` or destructure it (a spread copy does not carry it).
 */
class CallContext implements ToolContext {
  readonly toolCallId: string;
  readonly depth: number;
  readonly parentId: string | null;
  readonly policy: ToolContext["policy"];
  readonly host: unknown;
  readonly context: ToolContext["context"];
  readonly callKey: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly scope?: string;
  readonly runId?: string;
  readonly leaseToken?: number;
  readonly [RUNTIME_HOST]: unknown;
  readonly [LEVEL_TOOLS]: ReadonlyMap<string, unknown>;
  /** The call's own controller, once its signal was asked for (or a timeout needs it). */
  controller: AbortController | undefined;
  /** Where `log` lines go while the call runs; undefined once it ended (or for an approval check). */
  #log: ToolLogTarget | undefined;
  constructor(
    level: Level,
    plan: ToolPlan,
    private readonly hub: Turn["signals"],
  ) {
    const { turn } = level;
    this.toolCallId = plan.call.id;
    this.depth = level.depth;
    this.parentId = level.parentId;
    this.policy = turn.toolPolicy;
    this.host = turn.host;
    this.context = turn.context as ToolContext["context"];
    this.callKey = `${turn.callKeyPrefix}:${plan.call.id}`;
    this[RUNTIME_HOST] = turn.runtimeHost;
    this[LEVEL_TOOLS] = level.tools;
    if (turn.sessionId !== undefined) this.sessionId = turn.sessionId;
    if (turn.agentId !== undefined) this.agentId = turn.agentId;
    if (turn.scope !== undefined) this.scope = turn.scope;
    if (turn.runId !== undefined) this.runId = turn.runId;
    if (turn.leaseToken !== undefined) this.leaseToken = turn.leaseToken;
    this.#log = {
      toolCallId: plan.call.id,
      name: plan.tool.name,
      depth: level.depth,
      parentId: level.parentId,
      sink: turn.sink,
      lines: 0,
    };
  }
  get signal(): AbortSignal {
    return (this.controller ??= this.hub.child()).signal;
  }
  log(level: ToolLogLevel, message: string): void {
    if (this.#log) writeToolLog(this.#log, level, message);
  }
  /** The call ended: its signal no longer follows the turn's, its log lines are dropped. */
  release(): void {
    this.#log = undefined;
    if (this.controller) this.hub.release(this.controller);
  }
}

function failed(
  level: Level,
  plan: ToolPlan,
  error: unknown,
  signal: AbortSignal,
  timedOut: boolean,
  timeoutMs: number | undefined,
): ToolOutcome {
  const suspension = suspensionOf(error);
  if (suspension !== undefined && !level.turn.signal.aborted) return { value: undefined, isError: false, suspension };
  if (timedOut) return { value: `Tool "${plan.tool.name}" timed out after ${timeoutMs} ms.`, isError: true };
  if (level.turn.signal.aborted && (signal.aborted || safeIsAbortError(error)))
    return { value: "Aborted: the turn was stopped.", isError: true };
  return { value: `Error: ${errorMessage(error)}`, isError: true };
}

/** The context a tool's `requiresApproval` function gets: the call's, with the turn's own signal. */
export function approvalCheckContext(level: Level, plan: ToolPlan): ToolContext {
  const ctx = new CallContext(level, plan, level.turn.signals);
  Object.defineProperty(ctx, "signal", { value: level.turn.signal });
  // The call has not started: nothing of it is logged.
  ctx.release();
  return ctx;
}

/** The wait of a thrown `ToolSuspension` (the package's own tools'); a hostile Proxy is none. */
function suspensionOf(error: unknown): CallWait | undefined {
  try {
    return error instanceof ToolSuspension ? error.wait : undefined;
  } catch {
    return undefined;
  }
}

/** `isAbortError` for a thrown value that may be a hostile Proxy. */
function safeIsAbortError(error: unknown): boolean {
  try {
    return isAbortError(error);
  } catch {
    return false;
  }
}

async function runToolWithTimeout(level: Level, plan: ToolPlan, timeoutMs: number): Promise<ToolOutcome> {
  const { turn } = level;
  const { tool } = plan;
  const ctx = new CallContext(level, plan, turn.signals);
  const controller = turn.signals.child();
  ctx.controller = controller;
  const signal = controller.signal;
  const stop = new Promise<never>((_, reject) =>
    signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
  );
  stop.catch(() => undefined);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  let raw: unknown;
  try {
    raw = tool.execute(plan.input, ctx);
    // A tool that ignores its signal must not hold the turn: race it against the abort.
    const pending = thenableOf(raw);
    if (pending !== undefined && !(pending instanceof Promise)) return pending;
    if (pending !== undefined) raw = await Promise.race([pending, stop]);
  } catch (error) {
    return failed(level, plan, error, signal, timedOut, timeoutMs);
  } finally {
    clearTimeout(timer);
    ctx.release();
  }
  return readResult(raw);
}
