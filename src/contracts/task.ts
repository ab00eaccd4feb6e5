import type { TurnResult } from "./turn-result.js";
import type { TaskStatus } from "./loop-event.js";
import type { TenantGuard } from "./tenant-guard.js";
import type { JsonValue } from "./json-schema.js";

/** A task: a session with a plan-review-act lifecycle, persisted in the store. */
export interface Task {
  /** The id of the task; also the id of its session. */
  taskId: string;
  sessionId: string;
  agentId: string;
  scope?: string;
  status: TaskStatus;
  /** The first line of the request (at most 120 characters), or the title given to `rename`. */
  title: string;
  /** The plan artifact under review or approved. */
  planArtifactId?: string;
  /** The agent that carries the approved plan out (`TaskCreateInput.actorAgentId`), when not the task's own. */
  actorAgentId?: string;
  /** The actor agent's session in the task's scope, once the plan is approved (its turns move the task). */
  actorSessionId?: string;
  /** The task this one follows up on (`TaskCreateInput.continues`). */
  continues?: string;
  createdAt: string;
  updatedAt: string;
}

/** What `tasks.create` takes. */
export interface TaskCreateInput {
  /** The agent that plans (in the planner role), and carries the plan out unless `actorAgentId` is given. */
  agentId: string;
  /** The request: the planner's first message. */
  content: string;
  scope?: string;
  /** The task's id (also its session's id). @default a new UUID */
  taskId?: string;
  /**
   * The host's data for every turn of the task, planner's and actor's (as `SendInput.context`: its
   * tools, policy and approval rule see it). Stored with the task: `revise`, `reply` and the actor's
   * turns get it too, unless `approve` gives a newer one. @default none
   */
  context?: JsonValue;
  /**
   * The agent that carries the approved plan out: `approve` starts a session of this agent in the
   * task's scope, linked to the task (`Task.actorSessionId`), and sends it the plan; that session's
   * turns move the task to `completed` or `failed`. @default the task's own agent, switched to the
   * actor role in the task's session
   */
  actorAgentId?: string;
  /**
   * The id of a task this one follows up on, in the same scope: the planner's first message
   * carries its title, status, approved plan and final report. @default none
   */
  continues?: string;
}

/** What `tasks.approve` takes beside the tenant guard. */
export interface TaskApproveOptions extends TenantGuard {
  /** The host's data for the actor's turns, replacing the task's (see {@link TaskCreateInput.context}). */
  context?: JsonValue;
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
 * and `cancelled` from any state that is not final. While `planning`, `reply` answers the planner.
 *
 * Every call that takes a task id also takes an optional tenant guard (last argument,
 * {@link TenantGuard}): a task of a session outside it is an unknown task (the same
 * `InvalidArgumentError`, or `undefined` from `get`), and nothing is changed or revealed.
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
  create(input: TaskCreateInput): Promise<Task>;
  /**
   * `awaiting_review → executing`: switches the session to the actor and runs a turn with the
   * approved plan; the task ends `completed` when the work completes, `failed` when it does not
   * (a turn suspended on a question or approval keeps it `executing` until it resumes and ends).
   *
   * The actor gets exactly the plan the reviewer was shown (`plan_ready`'s `plan`: the parsed
   * plan, unknown fields dropped), as canonical JSON inside an `<approved_plan>` wrapper, with
   * `<`, `>` and `&` escaped so nothing the planner wrote can close the wrapper. A plan artifact
   * that can no longer be read throws `InvalidArgumentError` and changes nothing.
   *
   * With `actorAgentId` on the task, the plan goes to a new session of that agent in the task's
   * scope instead (see {@link TaskCreateInput.actorAgentId}); the result is that session's turn.
   */
  approve(taskId: string, options?: TaskApproveOptions): Promise<TurnResult>;
  /** `awaiting_review → planning` with the feedback as the next message to the planner. */
  revise(taskId: string, feedback: string, guard?: TenantGuard): Promise<TurnResult>;
  /**
   * Answers the planner while the task is `planning` (it asked a clarifying question, with
   * `ask_user` or in plain text, before submitting a plan): runs a planner turn with `content`
   * as the next user message and resolves with its result. The task stays `planning` until the
   * planner submits a plan. A question of the planner still waiting is superseded by the reply
   * (answer it with `answerQuestion` instead to keep it). In any other state, or with empty
   * `content`, throws `InvalidArgumentError` and changes nothing.
   */
  reply(taskId: string, content: string, guard?: TenantGuard): Promise<TurnResult>;
  /**
   * Sets the task's title (its session's name), in any state: 1 to 120 characters, no control
   * characters (else `InvalidArgumentError`). Emits no event and adds no record: the title is
   * not part of the lifecycle.
   */
  rename(taskId: string, title: string, guard?: TenantGuard): Promise<Task>;
  /**
   * Deletes the task: its session, history and artifacts are removed from the store. A turn of
   * the task running in this runtime is stopped first (its caller gets an `aborted` result), and
   * the deletion waits for it to end. Deleting an unknown task throws `InvalidArgumentError`.
   */
  delete(taskId: string, guard?: TenantGuard): Promise<void>;
  /** Any state that is not final → `cancelled` (a running turn of the task is stopped). */
  cancel(taskId: string, guard?: TenantGuard): Promise<Task>;
  /** The task, or `undefined` when there is none (or it is outside `guard`). */
  get(taskId: string, guard?: TenantGuard): Promise<Task | undefined>;
  /** Tasks, newest first; filters are exact matches. */
  list(query?: { scope?: string; status?: TaskStatus; agentId?: string }): Promise<Task[]>;
  /** The artifacts stored in the task's session, oldest first. */
  artifacts(taskId: string, guard?: TenantGuard): Promise<Artifact[]>;
}
