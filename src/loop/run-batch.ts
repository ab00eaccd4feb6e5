import PQueue from "p-queue";
import type { ToolCallPart, ToolResultPart } from "../contracts/message.js";
import { executePlan, startCall, type PlanOutcome, type RunChild } from "./execute-plan.js";
import { approvalCheckContext } from "./call-context.js";
import type { BatchOutcome, CallPlan, Level, RefusePlan, ToolPlan } from "./level.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { ApprovalContext, ApprovalDecision, ApprovalRequest, ResumeState } from "../contracts/loop-result.js";
import { planCall, refuse } from "./plan-call.js";
import { toolPermissionClasses } from "../tools/permission-classes.js";
import { withTurnInfo } from "./turn-hooks.js";
import { errorMessage } from "./tool-result.js";

/**
 * Runs the tool calls of one assistant message: plans them, settles approvals (all before any
 * runs; one suspension suspends the batch), then executes them in segments: consecutive
 * parallel-safe calls run concurrently up to `maxParallelPerTurn`, an unsafe call runs alone.
 * Results come back in the model's call order.
 *
 * `resumed` marks a batch continued from an earlier run: completed results are reused and calls
 * that already emitted `start` do not emit it again.
 */
export async function runBatch(
  level: Level,
  calls: ToolCallPart[],
  runChild: RunChild,
  resumed: boolean,
): Promise<BatchOutcome> {
  const resume = level.turn.resume;
  const outcome: BatchOutcome = {
    results: new Array<ToolResultPart | undefined>(calls.length),
    suspended: false,
    pendingApprovals: [],
    finished: undefined,
    resume: undefined,
  };
  const plans: (CallPlan | undefined)[] = calls.map((call, index) => {
    const done = resumed ? resume?.results?.[call.id] : undefined;
    if (done) {
      outcome.results[index] = done;
      return undefined;
    }
    const plan = planCall(level, call);
    // A call that suspended after it started (it waited for another agent) gets its result now.
    const waited = resumed ? resume?.decisions[call.id] : undefined;
    if (waited !== undefined && plan.kind === "tool" && isWaitedAnswer(plan, waited))
      return answerWaited(level, plan, waited);
    // A resumed sub-task started in the earlier run: its duration counts from here.
    return resumed && plan.kind === "subtask" && resume?.frames[call.id] ? { ...plan, startedAt: Date.now() } : plan;
  });

  const needApproval = plans.some(
    (p) => p?.kind === "tool" && (p.needsApproval || typeof p.tool.requiresApproval === "function"),
  );
  const settled = needApproval ? await settleApprovals(level, plans, outcome, resumed) : plans;
  if (!outcome.suspended) await executeSegments(level, settled, outcome, runChild);
  if (outcome.suspended) {
    const resume = resumeOf(outcome);
    calls.forEach((call, index) => {
      const result = outcome.results[index];
      if (result) resume.results[call.id] = result;
    });
  }
  return outcome;
}

/** A plan and its place in the model's call order. */
interface Placed {
  plan: CallPlan;
  index: number;
}

/**
 * Runs the plans in segments: consecutive parallel-safe calls together (up to
 * `maxParallelPerTurn` at once), an unsafe call alone; records each outcome at its index, until
 * every segment ran or one suspended.
 */
async function executeSegments(
  level: Level,
  plans: (CallPlan | undefined)[],
  outcome: BatchOutcome,
  runChild: RunChild,
): Promise<void> {
  const record = ({ plan, index }: Placed, result: PlanOutcome) => {
    outcome.results[index] = result.result;
    if (result.suspension) {
      outcome.suspended = true;
      outcome.pendingApprovals.push(result.suspension);
      level.turn.sink.emit({
        // A client tool's call waits for the client's result, not for a decision.
        type: result.suspension.client === true ? "client_tool_call" : "approval_request",
        request: result.suspension,
        depth: level.depth,
        parentId: level.parentId,
      });
    }
    if (result.finished) outcome.finished = result.finished;
    const child = result.child;
    if (child && child.result.status === "suspended") {
      outcome.suspended = true;
      outcome.pendingApprovals.push(...child.pendingApprovals);
      const resume = resumeOf(outcome);
      resume.frames[plan.call.id] = child.history;
      Object.assign(resume.frames, child.resume.frames);
      Object.assign(resume.decisions, child.resume.decisions);
      Object.assign(resume.results, child.resume.results);
    }
  };
  const segments: Placed[][] = [];
  let open: Placed[] | undefined;
  plans.forEach((plan, index) => {
    if (!plan) return;
    if (!isParallel(plan)) {
      segments.push([{ plan, index }]);
      open = undefined;
    } else if (open) open.push({ plan, index });
    else segments.push((open = [{ plan, index }]));
  });
  for (const segment of segments) {
    // A call that suspended waits for its answer: what comes after it may depend on it.
    if (outcome.suspended) break;
    const [only] = segment;
    if (only && segment.length === 1) {
      record(only, await executePlan(level, only.plan, runChild));
      continue;
    }
    const pool = new PQueue({ concurrency: level.turn.budget.limits.maxParallelPerTurn });
    await Promise.all(
      segment.map((placed) => pool.add(async () => record(placed, await executePlan(level, placed.plan, runChild)))),
    );
  }
}

/** The batch's resume material, made on first need (only suspended batches have any). */
function resumeOf(outcome: BatchOutcome): NonNullable<BatchOutcome["resume"]> {
  return (outcome.resume ??= { frames: {}, decisions: {}, results: {} });
}

function isParallel(plan: CallPlan): boolean {
  return plan.kind !== "tool" || plan.tool.parallelSafe !== false;
}

/** A decision as the resume state keeps it. */
type Decision = NonNullable<ResumeState["decisions"][string]>;

/**
 * Asks for every approval the batch needs; a suspension anywhere suspends the whole batch.
 * Returns the plans as approval left them: a denied call becomes a `refuse`, one answered with
 * its approval an `answered`, an approved one stays a `tool`.
 */
async function settleApprovals(
  level: Level,
  plans: (CallPlan | undefined)[],
  outcome: BatchOutcome,
  resumed: boolean,
): Promise<(CallPlan | undefined)[]> {
  const { turn, depth, parentId } = level;
  const sink = turn.sink;
  const settled: (CallPlan | undefined)[] = [];
  const decided: { plan: ToolPlan; index: number; requestId: string; decision: Decision }[] = [];
  for (const planned of plans) {
    const plan = planned?.kind === "tool" ? await approvalNeed(level, planned) : planned;
    if (plan?.kind !== "tool" || !plan.needsApproval) {
      settled.push(plan);
      continue;
    }
    // A call of a resumed batch already started (and was asked) in the earlier run: its
    // duration counts from here (the wait for the decision is not the call's).
    const index = settled.length;
    const known = turn.resume?.decisions[plan.call.id];
    if (known) {
      const current = resumed ? { ...plan, startedAt: Date.now() } : plan;
      settled.push(current);
      decided.push({ plan: current, index, requestId: known.requestId ?? plan.call.id, decision: known });
      continue;
    }
    const tool = plan.tool;
    const request: ApprovalRequest = {
      requestId: globalThis.crypto.randomUUID(),
      toolCallId: plan.call.id,
      name: plan.call.name,
      args: plan.args,
      depth,
      parentId,
      reason: tool.requiresApproval
        ? `Tool "${tool.name}" requires approval.`
        : `The session policy requires approval for "${tool.name}".`,
      permissionClass: [...toolPermissionClasses(tool)],
    };
    const current: ToolPlan = { ...plan, startedAt: resumed ? Date.now() : startCall(level, plan) };
    settled.push(current);
    // Held until the consumer has it: a host can store the request before the handler is asked.
    await sink.emitAndWait({ type: "approval_request", request, depth, parentId });
    let decision: ApprovalDecision;
    try {
      decision = turn.approve
        ? await turn.approve(
            request,
            withTurnInfo<ApprovalContext<unknown>>({ permissionClass: [...request.permissionClass!] }, turn.info),
          )
        : { suspend: true };
    } catch (error) {
      decision = { approved: false, reason: `approval handler failed: ${errorMessage(error)}` };
    }
    if ("suspend" in decision) {
      outcome.suspended = true;
      outcome.pendingApprovals.push(request);
      continue;
    }
    decided.push({
      plan: current,
      index,
      requestId: request.requestId,
      decision: decision.approved
        ? { approved: true, ...(decision.result !== undefined && { result: decision.result }) }
        : { approved: false, ...(decision.reason !== undefined && { reason: decision.reason }) },
    });
  }
  if (outcome.suspended) {
    // Decisions already made wait with the suspended ones; they are announced when the batch resumes.
    for (const { plan, requestId, decision } of decided)
      resumeOf(outcome).decisions[plan.call.id] = { ...decision, requestId };
    return settled;
  }
  for (const { plan, index, requestId, decision } of decided) {
    const event: LoopEvent = { type: "approval_resolved", requestId, approved: decision.approved, depth, parentId };
    if (decision.reason !== undefined) event.reason = decision.reason;
    sink.emit(event);
    settled[index] = applyDecision(plan, decision);
  }
  return settled;
}

/**
 * Whether a tool call needs approval, asking the tool's `requiresApproval` function when it has one; a check that
 * throws refuses the call.
 */
async function approvalNeed(level: Level, plan: ToolPlan): Promise<ToolPlan | RefusePlan> {
  const { tool } = plan;
  if (plan.needsApproval || typeof tool.requiresApproval !== "function") return plan;
  try {
    const needed = await tool.requiresApproval(plan.input, approvalCheckContext(level, plan));
    return needed ? { ...plan, needsApproval: true } : plan;
  } catch (error) {
    return refuse(
      plan.call,
      plan.args,
      `Could not decide whether "${tool.name}" needs approval: ${errorMessage(error)}`,
      "approval_check_failed",
      plan.startedAt,
    );
  }
}

/**
 * Whether a resumed call's decision answers a call that suspended after it started (it waited for
 * another agent, or for the client), rather than an approval asked before it started. A client
 * tool's call may have had both: its approval carries no result, while the client's answer does
 * (or denies it: superseded).
 */
function isWaitedAnswer(plan: ToolPlan, decision: Decision): boolean {
  if (typeof plan.tool.execute !== "function") return decision.result !== undefined || !decision.approved;
  return !plan.needsApproval && typeof plan.tool.requiresApproval !== "function";
}

/**
 * A waited call's plan on resume: its answer (announced as its request's decision), or a refusal when it was denied.
 */
function answerWaited(level: Level, plan: ToolPlan, decision: Decision): CallPlan {
  const event: LoopEvent = {
    type: "approval_resolved",
    requestId: decision.requestId ?? plan.call.id,
    approved: decision.approved,
    depth: level.depth,
    parentId: level.parentId,
  };
  if (decision.reason !== undefined) event.reason = decision.reason;
  level.turn.sink.emit(event);
  return applyDecision({ ...plan, startedAt: Date.now() }, decision);
}

/** The plan a decision leaves: denied calls are refused, answered ones carry their result, approved ones run. */
function applyDecision(plan: ToolPlan, decision: Decision): CallPlan {
  const client = typeof plan.tool.execute !== "function";
  if (!decision.approved) {
    const why = decision.reason ? ` (${decision.reason})` : "";
    // A client call with an answer ends there; one denied before it started (an approval) never reached the client.
    const text =
      client && decision.requestId?.startsWith("client:") === true
        ? `Not run: the client's result never came${why}.`
        : `Denied: the call was not approved${why}.`;
    return refuse(plan.call, plan.args, text, undefined, plan.startedAt);
  }
  if (decision.result !== undefined)
    return {
      kind: "answered",
      call: plan.call,
      args: plan.args,
      result: decision.result,
      startedAt: plan.startedAt,
      ...(decision.isError === true && { isError: true }),
      ...(client && { clientTool: plan.tool }),
    };
  return plan;
}
