import type { SessionSummary } from "../../contracts/session-store.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { executionOutcome, taskOf } from "../records/task-state.js";
import type { TurnLifecycle } from "../queue/turn-lifecycle.js";
import { transitionTask } from "./task-api.js";

/** Tasks on the turn lifecycle: an executing task's turn that ends moves it; a stored plan moves a planning task. */
export interface TaskLifecycle extends TurnLifecycle {
  /** A plan artifact was stored in `session`: its task, when planning, moves to review; returns the task's id then. */
  planReady(session: SessionSummary, artifactId: string): Promise<string | undefined>;
}

/** The task transitions that turns make (only sessions made as tasks', so other turns cost no extra store reads). */
export function taskLifecycle(
  deps: Readonly<{ store: GuardedSessionStore; events: Pick<EventPublisher, "publish" | "report"> }>,
): TaskLifecycle {
  const { store, events } = deps;
  const publish = events.publish;
  return {
    // An executing task becomes `completed` or `failed` when its actor's turn ends (not when it
    // suspends): a turn of the task's session, or of the actor agent's session linked to it.
    async settled(session, result) {
      const outcome = executionOutcome(result);
      const taskId = session.attributes?.taskId;
      if (outcome === undefined || typeof taskId !== "string") return;
      const current = await store.getSession(taskId);
      const task = current && taskOf(current);
      if (current && task?.status === "executing" && (task.actorSessionId ?? task.sessionId) === result.sessionId) {
        // Lost to a concurrent transition (a cancel): that one stands, and is reported.
        await transitionTask({ store, publish }, current, outcome).catch((error: unknown) =>
          events.report("task_transition_failed", error, session),
        );
      }
    },
    async planReady(session, artifactId) {
      const current = await store.getSession(session.sessionId);
      const task = current && taskOf(current);
      if (!current || task?.status !== "planning") return undefined;
      await transitionTask({ store, publish }, current, "awaiting_review", { planArtifactId: artifactId });
      return task.taskId;
    },
  };
}
