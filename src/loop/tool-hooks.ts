import type { BeforeToolCallDecision } from "../contracts/hooks.js";
import { toolPermissionClasses } from "../tools/permission-classes.js";
import { approvalCheckContext } from "./call-context.js";
import type { CallPlan, Level, SubtaskPlan, ToolPlan } from "./level.js";
import { planCall, refuse } from "./plan-call.js";
import { storedToolArgs } from "./tool-call-args.js";
import { errorMessage } from "./tool-result.js";
import { callHook, failTurn, toolCallInfo } from "./turn-hooks.js";

/** The permission classes a call needs, as hooks are told them (`run_subtask`: `subagent`). */
function classesOf(plan: ToolPlan | SubtaskPlan): readonly string[] {
  return plan.kind === "tool" ? toolPermissionClasses(plan.tool) : ["subagent"];
}

/** A call that does not run because the turn stopped (a hook failed, or the turn was aborted meanwhile). */
const stopped = (plan: ToolPlan | SubtaskPlan): CallPlan =>
  refuse(plan.call, plan.args, "Not run: the turn was stopped.", "aborted", plan.startedAt);

/**
 * The host's `beforeToolCall` hook, after the policy and any approval: the call as planned, a
 * refusal the model reads (`{ block }`), or the call planned again with the hook's arguments
 * (`{ args }`: validated against the tool's schema again). The hook never widens: arguments the
 * schema refuses fail the turn (the host's hook is at fault, not the model), and arguments that
 * would newly need an approval the call did not have are refused.
 */
export async function beforeToolCall(level: Level, plan: ToolPlan | SubtaskPlan): Promise<CallPlan> {
  const { turn } = level;
  const hooks = turn.hooks!;
  const info = toolCallInfo(level, plan.call, plan.args, classesOf(plan));
  const called = await callHook<BeforeToolCallDecision>(turn, "beforeToolCall", () => hooks.beforeToolCall!(info));
  if (!called.ok || turn.signal.aborted) return stopped(plan);
  const decision: unknown = called.value;
  if (decision === undefined || decision === null) return plan;
  if (typeof decision === "object" && "block" in decision) {
    const reason = String(decision.block);
    return refuse(plan.call, plan.args, `Blocked: ${reason}`, "hook_blocked", plan.startedAt);
  }
  if (typeof decision !== "object" || !("args" in decision)) {
    failTurn(turn, "beforeToolCall", new Error("it must return { block }, { args } or nothing"));
    return stopped(plan);
  }
  const args = storedToolArgs(decision.args);
  const replanned = planCall(level, { ...plan.call, args });
  if (replanned.kind === "refuse") {
    failTurn(
      turn,
      "beforeToolCall",
      new Error(`the arguments it set for "${plan.call.name}" are refused: ${replanned.refusal}`),
    );
    return stopped(plan);
  }
  if (replanned.kind !== plan.kind) return stopped(plan);
  if (replanned.kind === "tool" && plan.kind === "tool" && !plan.needsApproval) {
    const widened = await needsNewApproval(level, replanned);
    if (widened !== undefined)
      return refuse(plan.call, plan.args, `Not run: ${widened}`, "hook_blocked", plan.startedAt);
  }
  // The call keeps its start and its approval; only what it runs with changed.
  const kept = plan.kind === "tool" && replanned.kind === "tool" ? { needsApproval: plan.needsApproval } : {};
  return { ...replanned, ...kept, startedAt: plan.startedAt, rewritten: ["args"] };
}

/** Why the rewritten call would need an approval it did not have, else undefined. */
async function needsNewApproval(level: Level, plan: ToolPlan): Promise<string | undefined> {
  const why = "the arguments the beforeToolCall hook set would need an approval this call did not have.";
  if (plan.needsApproval) return why;
  const check = plan.tool.requiresApproval;
  if (typeof check !== "function") return undefined;
  try {
    return (await check(plan.input, approvalCheckContext(level, plan))) ? why : undefined;
  } catch (error) {
    return `could not decide whether "${plan.tool.name}" needs approval: ${errorMessage(error)}.`;
  }
}

/** A call's result as `afterToolCall` leaves it. */
interface Ended {
  value: unknown;
  isError: boolean;
  text?: string | undefined;
  resultRewritten?: boolean;
}

/**
 * The host's `afterToolCall` hook, after the tool (or sub-task) ran: what the model reads and what
 * is stored, replaced or kept. A hook that fails fails the turn, and the call's result is withheld
 * (the hook may have been masking a secret in it).
 */
export async function afterToolCall<T extends Ended>(
  level: Level,
  plan: ToolPlan | SubtaskPlan,
  outcome: T,
): Promise<T> {
  const { turn } = level;
  const hooks = turn.hooks!;
  const info = toolCallInfo(level, plan.call, plan.args, classesOf(plan));
  const ran = { result: outcome.value, isError: outcome.isError };
  const called = await callHook(turn, "afterToolCall", () => hooks.afterToolCall!(info, ran));
  if (!called.ok)
    return { ...outcome, value: "Result withheld: the turn was stopped.", isError: true, text: undefined };
  const change: unknown = called.value;
  if (change === undefined || change === null) return outcome;
  if (typeof change !== "object") {
    failTurn(turn, "afterToolCall", new Error("it must return { result?, isError? } or nothing"));
    return { ...outcome, value: "Result withheld: the turn was stopped.", isError: true, text: undefined };
  }
  const { result, isError } = change as { result?: unknown; isError?: unknown };
  if (result === undefined && isError === undefined) return outcome;
  return {
    ...outcome,
    value: "result" in change ? result : outcome.value,
    isError: typeof isError === "boolean" ? isError : outcome.isError,
    text: "result" in change ? undefined : outcome.text,
    resultRewritten: true,
  };
}
