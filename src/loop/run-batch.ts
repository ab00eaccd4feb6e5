import { mergeGenerators } from "../internal/merge-generators.js";
import type { ToolCallPart, ToolResultPart } from "../messages/message.js";
import type { ToolContext } from "../tools/tool.js";
import { executePlan, startCall, type PlanOutcome, type RunChild } from "./execute-plan.js";
import type { BatchOutcome, CallPlan, Level } from "./level.js";
import type { LoopEvent } from "./loop-event.js";
import type { ApprovalDecision, ApprovalRequest } from "./loop-types.js";
import { planCall } from "./plan-call.js";
import { errorMessage } from "./tool-result.js";

const isMessage = (event: LoopEvent) => event.type === "message";

/**
 * Runs the tool calls of one assistant message: plans them, settles approvals (all before any
 * runs; one suspension suspends the batch), then executes them in segments: consecutive
 * parallel-safe calls run concurrently up to `maxParallelPerTurn`, an unsafe call runs alone.
 * Results come back in the model's call order.
 *
 * `resumed` marks a batch continued from an earlier run: completed results are reused and calls
 * that already emitted `start` do not emit it again.
 */
export async function* runBatch(level: Level, calls: ToolCallPart[], runChild: RunChild, resumed: boolean): AsyncGenerator<LoopEvent, BatchOutcome> {
  const { turn } = level;
  const resume = turn.resume;
  const outcome: BatchOutcome = {
    results: new Array<ToolResultPart | undefined>(calls.length),
    suspended: false,
    pendingApprovals: [],
    finished: undefined,
    resume: { frames: {}, decisions: {}, results: {} },
  };
  const plans: (CallPlan | undefined)[] = calls.map((call, index) => {
    const done = resumed ? resume?.results?.[call.id] : undefined;
    if (done) {
      outcome.results[index] = done;
      return undefined;
    }
    const plan = planCall(level, call);
    if (resumed && plan.kind === "subtask" && resume?.frames[call.id]) plan.started = true;
    return plan;
  });

  yield* settleApprovals(level, plans, outcome, resumed);
  if (outcome.suspended) {
    for (let i = 0; i < calls.length; i++) {
      const result = outcome.results[i];
      if (result) outcome.resume.results[calls[i]!.id] = result;
    }
    return outcome;
  }

  const record = (index: number, result: PlanOutcome) => {
    outcome.results[index] = result.result;
    if (result.finished) outcome.finished = result.finished;
    const child = result.child;
    if (child && child.result.status === "suspended") {
      outcome.suspended = true;
      outcome.pendingApprovals.push(...child.pendingApprovals);
      outcome.resume.frames[calls[index]!.id] = child.history;
      Object.assign(outcome.resume.frames, child.resume.frames);
      Object.assign(outcome.resume.decisions, child.resume.decisions);
      Object.assign(outcome.resume.results, child.resume.results);
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
      record(i, yield* executePlan(level, plan, runChild));
      i++;
      continue;
    }
    let end = i + 1;
    while (end < plans.length && (plans[end] === undefined || isParallel(plans[end]!))) end++;
    const indexes: number[] = [];
    for (let k = i; k < end; k++) if (plans[k]) indexes.push(k);
    if (indexes.length === 1) {
      record(indexes[0]!, yield* executePlan(level, plans[indexes[0]!]!, runChild));
    } else {
      const makers = indexes.map((k) => () => executePlan(level, plans[k]!, runChild));
      const results = yield* mergeGenerators(makers, turn.budget.limits.maxParallelPerTurn, isMessage);
      results.forEach((result, n) => record(indexes[n]!, result));
    }
    i = end;
  }
  if (outcome.suspended) {
    calls.forEach((call, index) => {
      const result = outcome.results[index];
      if (result) outcome.resume.results[call.id] = result;
    });
  }
  return outcome;
}

function isParallel(plan: CallPlan): boolean {
  return plan.kind !== "tool" || plan.tool!.parallelSafe !== false;
}

/** Asks for every approval the batch needs; a suspension anywhere suspends the whole batch. */
async function* settleApprovals(level: Level, plans: (CallPlan | undefined)[], outcome: BatchOutcome, resumed: boolean): AsyncGenerator<LoopEvent> {
  const { turn, depth, parentId } = level;
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
        continue;
      }
    }
    if (!plan.needsApproval) continue;
    const request: ApprovalRequest = {
      requestId: newRequestId(),
      toolCallId: plan.call.id,
      name: plan.call.name,
      args: plan.args,
      depth,
      parentId,
      reason: tool.requiresApproval ? `Tool "${tool.name}" requires approval.` : `The session policy requires approval for "${tool.name}".`,
    };
    const known = turn.resume?.decisions[plan.call.id];
    // A call of a resumed batch already started (and was asked) in the earlier run.
    if (resumed) plan.started = true;
    if (known) {
      plan.decision = known;
      plan.requestId = known.requestId ?? plan.call.id;
      asked.push(plan);
      continue;
    }
    plan.requestId = request.requestId;
    const start = startCall(level, plan);
    if (start) yield start;
    yield { type: "approval_request", request, depth, parentId };
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
      plan.decision = decision.approved ? { approved: true } : { approved: false, ...(decision.reason !== undefined && { reason: decision.reason }) };
    }
    asked.push(plan);
  }
  if (outcome.suspended) {
    // Decisions already made wait with the suspended ones; they are announced when the batch resumes.
    for (const plan of asked) if (plan.decision) outcome.resume.decisions[plan.call.id] = { ...plan.decision, requestId: plan.requestId! };
    return;
  }
  for (const plan of asked) {
    const decision = plan.decision!;
    const event: LoopEvent = { type: "approval_resolved", requestId: plan.requestId!, approved: decision.approved, depth, parentId };
    if (decision.reason !== undefined) event.reason = decision.reason;
    yield event;
  }
}

function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}
