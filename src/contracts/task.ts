import type { TurnResult } from "./agent-runtime.js";
import type { TaskStatus } from "./loop-event.js";

/** A task: a session with a plan-review-act lifecycle, persisted in the store. */
export interface Task {
  /** The id of the task; also the id of its session. */
  taskId: string;
  sessionId: string;
  agentId: string;
  scope?: string;
  status: TaskStatus;
  /** The first line of the request (at most 120 characters). */
  title: string;
  /** The plan artifact under review or approved. */
  planArtifactId?: string;
  createdAt: string;
  updatedAt: string;
}

/** An artifact stored by `create_artifact`. */
export interface Artifact {
  artifactId: string;
  sessionId: string;
  filename: string;
  kind: string;
  content: string;
  createdAt: string;
}

/**
 * Tasks (`runtime.tasks`): plan, review, act. Every transition is a `task` record in the task's
 * session and a `task_status` event; one the lifecycle does not allow throws
 * `InvalidArgumentError` and changes nothing. Lifecycle:
 * `planning → awaiting_review → (planning again on revise | executing on approve) → completed | failed`,
 * and `cancelled` from any state that is not final.
 */
export interface TaskApi {
  /**
   * Creates the task's session in the planner role, emits `task_status` (→ `planning`) and
   * `planning_started`, and runs the planning turn on `content`. Resolves once that turn ended:
   * the task is `awaiting_review` when the model submitted a plan with `create_artifact`.
   *
   * `taskId` (also the task's session id) is generated unless given: give it to know the id before
   * the planning turn ends (to subscribe to its events, or to cancel it). An id that is taken
   * throws `InvalidArgumentError` and changes nothing.
   */
  create(input: { agentId: string; content: string; scope?: string; taskId?: string }): Promise<Task>;
  /**
   * `awaiting_review → executing`: switches the session to the actor and runs a turn with the
   * approved plan; the task ends `completed` when the work completes, `failed` when it does not
   * (a turn suspended on a question or approval keeps it `executing` until it resumes and ends).
   */
  approve(taskId: string): Promise<TurnResult>;
  /** `awaiting_review → planning` with the feedback as the next message to the planner. */
  revise(taskId: string, feedback: string): Promise<TurnResult>;
  /** Any state that is not final → `cancelled` (a running turn of the task is stopped). */
  cancel(taskId: string): Promise<Task>;
  get(taskId: string): Promise<Task | undefined>;
  /** Tasks, newest first; filters are exact matches. */
  list(query?: { scope?: string; status?: TaskStatus; agentId?: string }): Promise<Task[]>;
  /** The artifacts stored in the task's session, oldest first. */
  artifacts(taskId: string): Promise<Artifact[]>;
}
