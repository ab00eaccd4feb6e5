import type { RuntimeEvent, RuntimeEventLabels } from "../../contracts/agent-runtime.js";
import type { Message } from "../../contracts/message.js";
import type { ResumeState } from "../../contracts/loop-result.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import { RUN_SUBTASK, SUBTASK_LIMITS } from "../../loop/subtask-tools.js";

/** The labels every event of `session` carries: the task it holds, the background agent it is. */
export function sessionLabels(session: SessionSummary): Pick<RuntimeEventLabels, "taskId" | "subagentId"> {
  const attributes = session.attributes;
  return {
    ...(typeof attributes?.taskId === "string" && { taskId: attributes.taskId }),
    ...(attributes?.background === true && { subagentId: session.sessionId }),
  };
}

/** Stamps the session's labels on an event published outside a turn (an event's own `taskId` stays). */
export function labelSessionEvent(event: RuntimeEvent, session: SessionSummary): RuntimeEvent {
  const { taskId, subagentId } = sessionLabels(session);
  if (taskId !== undefined && event.taskId === undefined) event.taskId = taskId;
  if (subagentId !== undefined) event.subagentId = subagentId;
  return event;
}

/** The 0-based plan step index a `run_subtask` call's arguments name (`plan_step`, 1-based), if a valid one. */
export function planStepIndexOf(args: unknown): number | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const step = (args as { plan_step?: unknown }).plan_step;
  return typeof step === "number" && Number.isInteger(step) && step >= 1 && step <= SUBTASK_LIMITS.planStep
    ? step - 1
    : undefined;
}

/** What {@link turnLabels} reads of a turn's setup. */
export interface LabelledTurn {
  session: SessionSummary;
  turn?: number;
  history: readonly Message[];
  resume?: ResumeState;
}

/**
 * The labeller of one turn's events: the session's labels, the turn number, and the plan step of
 * the sub-task an event belongs to. A resumed turn first reads the steps of the sub-tasks already
 * started from its history (their `run_subtask` calls do not start again).
 */
export function turnLabels(setup: LabelledTurn): (event: RuntimeEvent) => void {
  const { taskId, subagentId } = sessionLabels(setup.session);
  const turn = setup.turn ?? 1;
  const steps = new Map<string, number>();
  if (setup.resume) {
    const startedSubtask = (id: string, args: unknown) => steps.set(id, planStepIndexOf(args) ?? -1);
    for (const message of setup.history) readSubtaskCalls(message, startedSubtask);
    for (const frame of Object.values(setup.resume.frames ?? {}))
      for (const message of frame) readSubtaskCalls(message, startedSubtask);
    // Children inherit their parent's step: resolved once all calls are known.
    inheritSteps(setup.resume.frames ?? {}, steps);
  }
  return (event) => {
    if (taskId !== undefined && event.taskId === undefined) event.taskId = taskId;
    if (subagentId !== undefined) event.subagentId = subagentId;
    event.turn = turn;
    const parentStep = event.parentId === null ? undefined : steps.get(event.parentId);
    if (event.type === "tool_call_update" && event.status === "start" && event.name === RUN_SUBTASK) {
      const own = planStepIndexOf(event.args) ?? parentStep;
      if (own !== undefined) steps.set(event.toolCallId, own);
    }
    const ownStep = event.type === "tool_call_update" ? steps.get(event.toolCallId) : undefined;
    const step = ownStep ?? parentStep;
    if (step !== undefined && step >= 0) event.stepIndex = step;
  };
}

function readSubtaskCalls(message: Message, found: (id: string, args: unknown) => void): void {
  if (message.role !== "assistant") return;
  for (const part of message.content)
    if (part.type === "tool_call" && part.name === RUN_SUBTASK) found(part.id, part.args);
}

/** Gives each sub-task without a step of its own (-1) the step of the sub-task it runs in. */
function inheritSteps(frames: Record<string, Message[]>, steps: Map<string, number>): void {
  const parentOf = new Map<string, string>();
  for (const [frame, messages] of Object.entries(frames)) {
    for (const message of messages) readSubtaskCalls(message, (id) => parentOf.set(id, frame));
  }
  const resolve = (id: string, hops: number): number => {
    const own = steps.get(id) ?? -1;
    if (own >= 0 || hops > parentOf.size) return own;
    const parent = parentOf.get(id);
    return parent === undefined ? -1 : resolve(parent, hops + 1);
  };
  for (const id of [...steps.keys()]) steps.set(id, resolve(id, 0));
}
