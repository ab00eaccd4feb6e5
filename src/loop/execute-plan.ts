import { isAbortError } from "../internal/abort.js";
import type { Message, ToolResultPart } from "../contracts/message.js";
import { ToolSuspension, type CallWait } from "../internal/tool-suspension.js";
import type { BudgetViolation } from "./budget.js";
import type { AnsweredPlan, CallPlan, FinishPlan, Level, SubtaskPlan, ToolPlan, Turn } from "./level.js";
import type { Tool } from "../contracts/tool.js";
import type { LoopEvent, ToolRefusal } from "../contracts/loop-event.js";
import type { ApprovalRequest, LoopResult, ResumeState } from "../contracts/loop-result.js";
import { timerDelay } from "../internal/timer-delay.js";
import { capResult, errorMessage, readResult } from "./tool-result.js";
import { CallContext } from "./call-context.js";
import { TOOL_PROGRESS_LIMITS } from "./tool-log.js";
import { afterToolCall, beforeToolCall } from "./tool-hooks.js";
import { toolPermissionClasses } from "../tools/permission-classes.js";

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

/** Whether a call is a client tool's (its tool has no `execute`), as its events say. */
function isClientCall(plan: CallPlan): boolean {
  if (plan.kind === "answered") return plan.clientTool !== undefined;
  return plan.kind === "tool" && typeof plan.tool.execute !== "function";
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
    ...(isClientCall(plan) && { client: true as const }),
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
function endCall(level: Level, plan: CallPlan, startedAt: number | undefined, end: CallEnd): ToolResultPart {
  const from = startedAt ?? startCall(level, plan);
  const budget = level.turn.budget;
  const { isError, refused } = end;
  const capped = capResult(end.value, budget.resultRoom(), end.text);
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
  if (isClientCall(plan)) event.client = true;
  if (isError) {
    event.isError = true;
    part.isError = true;
  }
  if (refused !== undefined) event.refused = refused;
  const rewritten = end.resultRewritten ? [...(plan.rewritten ?? []), "result" as const] : plan.rewritten;
  if (rewritten !== undefined) event.rewritten = [...rewritten];
  level.turn.sink.emit(event);
  return part;
}

/** How a call ends: the value the model reads (cut to the turn's room by `endCall`), and why. */
interface CallEnd {
  value: unknown;
  isError: boolean;
  /** The value as the model reads it, when already known. */
  text?: string | undefined;
  refused?: ToolRefusal | undefined;
  /** The host's `afterToolCall` hook replaced the value. */
  resultRewritten?: boolean;
}

/**
 * Runs one planned call: budget reservation, lock, execution with timeout and abort, result
 * truncation. Emits its `start` (unless already out) and `end` events; never throws for a tool's fault.
 */
export async function executePlan(level: Level, planned: CallPlan, runChild: RunChild): Promise<PlanOutcome> {
  const { turn } = level;
  const plan =
    turn.hooks?.beforeToolCall && (planned.kind === "tool" || planned.kind === "subtask")
      ? await beforeToolCall(level, planned)
      : planned;
  switch (plan.kind) {
    case "refuse":
      return {
        result: endCall(level, plan, plan.startedAt, { value: plan.refusal, isError: true, refused: plan.refused }),
      };
    case "answered": {
      let outcome: CallEnd = { value: plan.result, isError: plan.isError === true };
      // A client tool's result: the host's afterToolCall sees it as any tool's.
      if (plan.clientTool !== undefined && turn.hooks?.afterToolCall)
        outcome = await afterToolCall(level, clientPlan(plan, plan.clientTool), outcome);
      return { result: endCall(level, plan, plan.startedAt, outcome) };
    }
    case "finish": {
      const checked = validateFinish(plan);
      if (!checked.ok) {
        return {
          result: endCall(level, plan, plan.startedAt, {
            value: `The result does not match the required ${level.finishName ? "output schema" : "output_schema"}: ${checked.message}. Fix it and call ${level.finishName ?? "finish_subtask"} again.`,
            isError: true,
          }),
        };
      }
      return {
        result: endCall(level, plan, plan.startedAt, { value: "Result accepted.", isError: false }),
        finished: { value: checked.value },
      };
    }
  }
  const violation = plan.kind === "subtask" ? turn.budget.trySubtask() : turn.budget.tryToolCall();
  if (violation) {
    reportBudget(level, violation);
    return {
      result: endCall(level, plan, plan.startedAt, {
        value: `Not run: the turn's budget is spent (${violation.reason}, limit ${violation.limit}).`,
        isError: true,
        refused: "budget_exceeded",
      }),
    };
  }
  if (turn.signal.aborted) return notRun(level, plan, "Not run: the turn was aborted.", "aborted");

  if (plan.kind === "subtask") return gate(level, plan, () => runSubtask(level, plan, runChild));
  // A tool with no `execute` runs in the client: the call waits for its result like an approval.
  if (typeof plan.tool.execute !== "function") return gate(level, plan, async () => clientCall(level, plan));
  const lockName = plan.tool.exclusiveLock;
  if (lockName !== undefined) return runLocked(level, plan, lockName);
  return gate(level, plan, () => runTool(level, plan, startCall(level, plan)));
}

/**
 * Starts the call of a client tool (a tool with no `execute`) and suspends it: the turn waits for
 * the client's result, given back as the call's decision (`ResumeState.decisions`). The request id
 * is fixed by the call (session, turn chain, call id), so a call suspended again is the same request.
 */
function clientCall(level: Level, plan: ToolPlan): PlanOutcome {
  startCall(level, plan);
  const { depth, parentId } = level;
  const { call, tool } = plan;
  return {
    result: undefined,
    suspension: {
      requestId: `client:${level.turn.callKeyPrefix}:${call.id}`,
      toolCallId: call.id,
      name: call.name,
      args: plan.args,
      depth,
      parentId,
      reason: `Tool "${tool.name}" runs in the client.`,
      permissionClass: [...toolPermissionClasses(tool)],
      client: true,
    },
  };
}

/** The tool plan a client tool's answered call stands for (what the hooks are told). */
function clientPlan(plan: AnsweredPlan, tool: Tool): ToolPlan {
  const { call, args, startedAt } = plan;
  return { kind: "tool", call, args, tool, input: args, needsApproval: false, startedAt };
}

/** Ends a call that never ran with an error result. */
function notRun(level: Level, plan: CallPlan, text: string, refused?: ToolRefusal): PlanOutcome {
  return { result: endCall(level, plan, plan.startedAt, { value: text, isError: true, refused }) };
}

/**
 * Calls `start` once the turn's `beforeToolCall` (the runtime's start record and lease check) resolved, at once
 * without one. A turn aborted meanwhile (the lease was lost) or a check that failed leaves the
 * call unrun: nothing of it starts after the check said no.
 */
async function gate(
  level: Level,
  plan: ToolPlan | SubtaskPlan,
  start: () => Promise<PlanOutcome>,
): Promise<PlanOutcome> {
  const check = level.turn.beforeToolCall;
  if (check !== undefined) {
    try {
      await check({ toolCallId: plan.call.id, kind: plan.kind });
    } catch (error) {
      if (!level.turn.signal.aborted) return notRun(level, plan, `Not run: ${errorMessage(error)}`);
    }
    if (level.turn.signal.aborted) return notRun(level, plan, "Not run: the turn was aborted.", "aborted");
  }
  return start();
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
  return { result: endCall(level, plan, startedAt, outcome) };
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
  let outcome: CallEnd;
  if (status === "complete") {
    outcome = {
      value: child.result.structured === undefined ? child.result.text : child.result.structured,
      isError: false,
    };
  } else {
    const why =
      status === "iteration_limit"
        ? "the sub-task hit its iteration limit before finishing"
        : status === "budget_exceeded"
          ? "the turn's budget is spent"
          : status === "aborted"
            ? "the turn was aborted"
            : (child.result.error?.message ?? "it failed");
    const partial = child.result.text ? ` Partial result: ${child.result.text}` : "";
    outcome = { value: `Sub-task did not complete: ${why}.${partial}`, isError: true };
  }
  if (level.turn.hooks?.afterToolCall) outcome = await afterToolCall(level, plan, outcome);
  return { result: endCall(level, plan, startedAt, outcome), child };
}

interface ToolOutcome extends CallEnd {
  /** The package's own tool suspended the call (see `ToolSuspension`). */
  suspension?: CallWait;
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

/**
 * Runs the tool and ends the call (`startedAt`: when it started). Whatever the tool returns is
 * awaited when it is a thenable (a native Promise or not: query builders, other realms); the call
 * ends when the tool settles or when its signal aborts (the turn's abort, or its time limit),
 * whichever comes first: a tool that ignores its signal must not hold the turn. A value or error
 * that cannot even be read (a hostile Proxy) becomes an error result. A synchronous tool's call
 * ends before this returns (nothing is awaited), so the next call of its batch sees its result
 * counted in the budget.
 */
async function runTool(level: Level, plan: ToolPlan, startedAt: number): Promise<PlanOutcome> {
  const { turn } = level;
  const timeoutMs = timerDelay(plan.tool.timeoutMs ?? turn.toolTimeoutMs);
  const ctx = new CallContext(level, plan, turn.signals);
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let signal = turn.signal;
  let forget = (): void => undefined;
  let generator: AsyncIterator<unknown, unknown, undefined> | undefined;
  let outcome: ToolOutcome;
  try {
    if (timeoutMs !== undefined) {
      const controller = (ctx.controller = turn.signals.child());
      signal = controller.signal;
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
    }
    const raw = plan.tool.execute!(plan.input, ctx);
    generator = asyncIteratorOf(raw);
    const pending = generator ? drainGenerator(generator, ctx) : thenableOf(raw);
    if (pending === undefined) outcome = readResult(raw);
    else if (!(pending instanceof Promise)) outcome = pending;
    else outcome = readResult(await Promise.race([pending, abortOf(signal, turn, (stop) => (forget = stop))]));
  } catch (error) {
    outcome = failed(level, plan, error, signal, timedOut, timeoutMs);
  } finally {
    // A generator tool the turn stopped waiting for (abort, timeout) stops at its next yield.
    if (generator) closeGenerator(generator);
    clearTimeout(timer);
    forget();
    ctx.release();
  }
  if (outcome.suspension === undefined && turn.hooks?.afterToolCall)
    outcome = await afterToolCall(level, plan, outcome);
  return toolDone(level, plan, startedAt, outcome);
}

/** `value` as an async iterator, when it is one (an `async function*`'s generator); a hostile Proxy is none. */
function asyncIteratorOf(value: unknown): AsyncIterator<unknown, unknown, undefined> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    const iterable = value as Partial<AsyncIterableIterator<unknown>>;
    return typeof iterable[Symbol.asyncIterator] === "function" && typeof iterable.next === "function"
      ? (iterable as AsyncIterator<unknown, unknown, undefined>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pulls a generator tool to its end: each yielded value is a preliminary result (`tool_progress`),
 * the returned value is the call's result. More than `TOOL_PROGRESS_LIMITS.eventsPerCall` values
 * end the call with an error. The generator is closed whenever the call ends before it did (the
 * turn aborted, a timeout, the limit).
 */
async function drainGenerator(
  generator: AsyncIterator<unknown, unknown, undefined>,
  ctx: CallContext,
): Promise<unknown> {
  let done = false;
  try {
    for (let yielded = 0; ; yielded++) {
      const step = await generator.next();
      if (step.done) {
        done = true;
        return step.value;
      }
      if (yielded >= TOOL_PROGRESS_LIMITS.eventsPerCall)
        throw new Error(`the tool yielded more than ${TOOL_PROGRESS_LIMITS.eventsPerCall} preliminary results`);
      ctx.reportProgress(step.value);
    }
  } finally {
    if (!done) closeGenerator(generator);
  }
}

/** Closes a generator tool (it stops at its next yield); whatever that throws or rejects with is dropped. */
function closeGenerator(generator: AsyncIterator<unknown, unknown, undefined>): void {
  Promise.resolve()
    .then(() => generator.return?.(undefined))
    .catch(() => undefined);
}

/**
 * A promise rejected with the reason `signal` aborts with: the turn's own signal through the turn's
 * hub (`keep` gets the function that forgets the wait), a call's own signal by a listener.
 */
function abortOf(signal: AbortSignal, turn: Turn, keep: (forget: () => void) => void): Promise<never> {
  const stopped = new Promise<never>((_, reject) => {
    if (signal === turn.signal) keep(turn.signals.whenAborted(() => reject(reasonOf(signal))));
    else if (signal.aborted) reject(reasonOf(signal));
    else signal.addEventListener("abort", () => reject(reasonOf(signal)), { once: true });
  });
  stopped.catch(() => undefined);
  return stopped;
}

/** Why `signal` aborted, as an error. */
const reasonOf = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : asError(signal.reason);
