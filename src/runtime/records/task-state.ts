import type { TaskStatus } from "../../contracts/loop-event.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { Task } from "../../contracts/task.js";

// What every turn asks of a session's task, kept apart from the task API (tasks/task-api.ts), which
// loads on first use: a runtime that never makes a task never loads it.

/** The task a session holds, from its attributes; `undefined` when it is not a task's session. */
export function taskOf(session: SessionSummary): Task | undefined {
  const a = session.attributes;
  if (typeof a?.taskId !== "string" || typeof a.taskStatus !== "string") return undefined;
  return {
    taskId: a.taskId,
    sessionId: session.sessionId,
    agentId: session.agentId,
    ...(session.scope !== undefined && { scope: session.scope }),
    status: a.taskStatus as TaskStatus,
    // The session's name: `rename` sets it (one field, so no attribute write can undo it).
    title:
      typeof session.name === "string" && session.name !== ""
        ? session.name
        : typeof a.taskTitle === "string"
          ? a.taskTitle
          : "",
    ...(typeof a.planArtifactId === "string" && { planArtifactId: a.planArtifactId }),
    ...(typeof a.actorAgentId === "string" && { actorAgentId: a.actorAgentId }),
    ...(typeof a.actorSessionId === "string" && { actorSessionId: a.actorSessionId }),
    ...(typeof a.continues === "string" && { continues: a.continues }),
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

/** The outcome of an executing task's turn: `completed`, `failed`, or undefined while it waits (suspended). */
export function executionOutcome(result: TurnResult): "completed" | "failed" | undefined {
  if (result.status === "suspended") return undefined;
  return result.status === "complete" ? "completed" : "failed";
}
