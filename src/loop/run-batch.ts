import PQueue from "p-queue";
import type { ToolCallPart, ToolResultPart } from "../contracts/message.js";
import type { ToolContext } from "../contracts/tool.js";
import { executePlan, startCall, type PlanOutcome, type RunChild } from "./execute-plan.js";
import type { BatchOutcome, CallPlan, Level } from "./level.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { ApprovalDecision, ApprovalRequest } from "../contracts/loop-result.js";
import { planCall } from "./plan-call.js";
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
export async function runBatch(level: Level, calls: ToolCallPart[], runChild: RunChild, resumed: boolean): Promise<BatchOutcome> {
  const { turn } = level;
  const resume = turn.resume;
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
    if (resumed && plan.kind === "subtask" && resume?.frames[call.id]) {
      plan.started = true;
      plan.startedAt = Date.now();
    }
    return plan;
  });

  if (plans.some((p) => p?.kind === "tool" && (p.needsApproval || typeof p.tool!.requiresApproval === "function"))) {
    await settleApprovals(level, plans, outcome, resumed);
  }
  if (!outcome.suspended) {
    const record = (index: number, result: PlanOutcome) => {
      outcome.results[index] = result.result;
      if (result.finished) outcome.finished = result.finished;
      const child = result.child;
      if (child && child.result.status === "suspended") {
        outcome.suspended = true;
        outcome.pendingApprovals.push(...child.pendingApprovals);
        const resume = resumeOf(outcome);
        resume.frames[calls[index]!.id] = child.history;
        Object.assign(resume.frames, child.resume.frames);
        Object.assign(resume.decisions, child.resume.decisions);
        Object.assign(resume.results, child.resume.results);
      }
    };
    let i = 0;
    while (i < plans.length) {
      const plan = plans[i];
      if (!plan) {
        i++;
        continue;
      }
      if (!isParallel(plan)) {
        const pending = executePlan(level, plan, runChild);
        record(i, pending instanceof Promise ? await pending : pending);
        i++;
        continue;
      }
      let end = i + 1;
      while (end < plans.length && (plans[end] === undefined || isParallel(plans[end]!))) end++;
      const group: number[] = [];
      for (let k = i; k < end; k++) if (plans[k]) group.push(k);
      if (group.length === 1) {
        const pending = executePlan(level, plans[group[0]!]!, runChild);
        record(group[0]!, pending instanceof Promise ? await pending : pending);
      } else {
        const pool = new PQueue({ concurrency: turn.budget.limits.maxParallelPerTurn });
        await Promise.all(group.map((k) => pool.add(async () => record(k, await executePlan(level, plans[k]!, runChild)))));
      }
      i = end;
    }
  }
  if (outcome.suspended) {
    const resume = resumeOf(outcome);
    calls.forEach((call, index) => {
      const result = outcome.results[index];
      if (result) resume.results[call.id] = result;
    });
  }
  return outcome;
}

/** The batch's resume material, made on first need (only suspended batches have any). */
function resumeOf(outcome: BatchOutcome): NonNullable<BatchOutcome["resume"]> {
  return (outcome.resume ??= { frames: {}, decisions: {}, results: {} });
}

function isParallel(plan: CallPlan): boolean {
  return plan.kind !== "tool" || plan.tool!.parallelSafe !== false;
}

/** Asks for every approval the batch needs; a suspension anywhere suspends the whole batch. */
async function settleApprovals(level: Level, plans: (CallPlan | undefined)[], outcome: BatchOutcome, resumed: boolean): Promise<void> {
  const { turn, depth, parentId } = level;
  const sink = turn.sink;
  const asked: CallPlan[] = [];
  for (const plan of plans) {
    if (!plan || plan.kind !== "tool") continue;
    const tool = plan.tool!;
    if (!plan.needsApproval && typeof tool.requiresApproval === "function") {
      const ctx: ToolContext = { toolCallId: plan.call.id, depth, parentId, signal: turn.signal, policy: turn.toolPolicy, host: turn.host };
      try {
        plan.needsApproval = await tool.requiresApproval(plan.input, ctx);
      } catch (error) {
        plan.kind = "refuse";
        plan.refusal = `Could not decide whether "${tool.name}" needs approval: ${errorMessage(error)}`;
        plan.refused = "approval_check_failed";
        continue;
      }
    }
    if (!plan.needsApproval) continue;
    // A call of a resumed batch already started (and was asked) in the earlier run: its
    // duration counts from here (the wait for the decision is not the call's).
    if (resumed) {
      plan.started = true;
      plan.startedAt = Date.now();
    }
    const known = turn.resume?.decisions[plan.call.id];
    if (known) {
      plan.decision = known;
      plan.requestId = known.requestId ?? plan.call.id;
      asked.push(plan);
      continue;
    }
    const request: ApprovalRequest = {
      requestId: globalThis.crypto.randomUUID(),
      toolCallId: plan.call.id,
      name: plan.call.name,
      args: plan.args,
      depth,
      parentId,
      reason: tool.requiresApproval ? `Tool "${tool.name}" requires approval.` : `The session policy requires approval for "${tool.name}".`,
    };
    plan.requestId = request.requestId;
    startCall(level, plan);
    // Held until the consumer has it: a host can store the request before the handler is asked.
    await sink.emitAndWait({ type: "approval_request", request, depth, parentId });
    let decision: ApprovalDecision;
    try {
      decision = turn.approve ? await turn.approve(request) : { suspend: true };
    } catch (error) {
      decision = { approved: false, reason: `approval handler failed: ${errorMessage(error)}` };
    }
    if ("suspend" in decision) {
      outcome.suspended = true;
      outcome.pendingApprovals.push(request);
    } else {
      plan.decision = decision.approved
        ? { approved: true, ...(decision.result !== undefined && { result: decision.result }) }
        : { approved: false, ...(decision.reason !== undefined && { reason: decision.reason }) };
    }
    asked.push(plan);
  }
  if (outcome.suspended) {
    // Decisions already made wait with the suspended ones; they are announced when the batch resumes.
    for (const plan of asked) if (plan.decision) resumeOf(outcome).decisions[plan.call.id] = { ...plan.decision, requestId: plan.requestId! };
    return;
  }
  for (const plan of asked) {
    const decision = plan.decision!;
    const event: LoopEvent = { type: "approval_resolved", requestId: plan.requestId!, approved: decision.approved, depth, parentId };
    if (decision.reason !== undefined) event.reason = decision.reason;
    sink.emit(event);
  }
}
