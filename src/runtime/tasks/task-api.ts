import { InvalidArgumentError } from "../../errors/errors.js";
import type { LoopEvent, TaskStatus } from "../../contracts/loop-event.js";
import type { NewRecord, SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { Task, TaskApi } from "../../contracts/task.js";
import { hasControlCharacter } from "../../internal/control-characters.js";
import { approvedPlanText } from "../../modes/approved-plan-text.js";
import { parsePlan } from "../../modes/parse-plan.js";
import type { TenantGuard } from "../../contracts/tenant-guard.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import { taskOf } from "../records/task-state.js";

/** What the task API needs from its runtime. */
export interface TaskRuntime {
  store: SessionStore;
  /** Throws `AgentNotFoundError` for an unknown agent. */
  checkAgent(agentId: string): void;
  setRole(sessionId: string, role: string): Promise<void>;
  /** Runs a turn on the session with a user message. */
  send(session: SessionSummary, content: string): Promise<TurnResult>;
  /** Stops a running turn of the session (in this process), saying why. */
  stop(sessionId: string, reason: string): void;
  /** Deletes the session once no turn of it runs (after the turns queued before this call). */
  deleteSession(sessionId: string): Promise<void>;
  publish(session: SessionSummary, event: LoopEvent): void;
}

const ALLOWED: Record<TaskStatus, readonly TaskStatus[]> = {
  planning: ["awaiting_review", "cancelled"],
  awaiting_review: ["planning", "executing", "cancelled"],
  executing: ["completed", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
};
const TITLE_CHARS = 120;

/** Longest task id a host may give (it is also the session id). */
const MAX_TASK_ID_CHARS = 256;

const isTaskId = (id: unknown): id is string =>
  typeof id === "string" && id.length > 0 && id.length <= MAX_TASK_ID_CHARS && !hasControlCharacter(id);

/**
 * Moves a task from `from` to `to`: the transition record's id is fixed by the task's version, so
 * of two concurrent transitions from one state exactly one is stored (compare-and-set); the loser,
 * and a transition the lifecycle forbids, throw `InvalidArgumentError` with nothing changed.
 */
export async function transitionTask(
  runtime: Pick<TaskRuntime, "store" | "publish">,
  session: SessionSummary,
  to: TaskStatus,
  extra: { planArtifactId?: string } = {},
): Promise<Task> {
  const { store } = runtime;
  const task = taskOf(session);
  if (!task) throw new InvalidArgumentError(`Session "${session.sessionId}" is not a task`);
  if (!ALLOWED[task.status].includes(to))
    throw new InvalidArgumentError(`Task "${task.taskId}" cannot go from "${task.status}" to "${to}"`);
  const version = typeof session.attributes?.taskVersion === "number" ? session.attributes.taskVersion : 0;
  const marker = globalThis.crypto.randomUUID();
  const record: NewRecord = {
    id: `task:${task.taskId}:${version + 1}`,
    frame: null,
    kind: "task",
    taskId: task.taskId,
    from: task.status,
    to,
    marker,
    ...extra,
  };
  const [stored] = await store.append(session.sessionId, [record]);
  if (stored?.kind !== "task" || stored.marker !== marker)
    throw new InvalidArgumentError(`Task "${task.taskId}" changed meanwhile; read it again`);
  const updated = await store.updateSession(session.sessionId, {
    attributes: { ...session.attributes, taskStatus: to, taskVersion: version + 1, ...extra },
  });
  runtime.publish(updated, {
    type: "task_status",
    taskId: task.taskId,
    from: task.status,
    to,
    depth: 0,
    parentId: null,
  });
  return taskOf(updated)!;
}

/** The task's session; an unknown task, or one outside `guard`, throws the same "unknown task" error. */
async function taskSession(
  store: SessionStore,
  taskId: string,
  guard: TenantGuard | undefined,
  operation: string,
): Promise<SessionSummary> {
  if (typeof taskId !== "string" || taskId === "")
    throw new InvalidArgumentError("tasks: taskId must be a non-empty string");
  const filter = tenantGuardFilter(`tasks.${operation}`, guard);
  const session = await store.getSession(taskId);
  if (!session || taskOf(session)?.taskId !== taskId || !matchesScopeFilter(session.scope, filter))
    throw new InvalidArgumentError(`Unknown task "${taskId}"`);
  return session;
}

/** The approved plan for the actor: the plan the reviewer was shown (parsed), never the artifact's raw text. */
async function approvedPlanOf(runtime: TaskRuntime, session: SessionSummary): Promise<string> {
  const { store } = runtime;
  const task = taskOf(session)!;
  const records = await store.load(session.sessionId);
  const found = records.find((r) => r.kind === "artifact" && r.artifactId === task.planArtifactId);
  const parsed = parsePlan(found?.kind === "artifact" ? found.content : "");
  if (!parsed.ok)
    throw new InvalidArgumentError(`Task "${task.taskId}": its plan cannot be read (${parsed.error}); revise it`);
  return approvedPlanText(parsed.plan);
}

/** The task API over a runtime. */
export function createTaskApi(runtime: TaskRuntime): TaskApi {
  const { store } = runtime;
  const sessionOf = (taskId: string, guard: TenantGuard | undefined, operation: string) =>
    taskSession(store, taskId, guard, operation);
  const approvedPlan = (session: SessionSummary) => approvedPlanOf(runtime, session);
  return {
    create: (input) => createTask(runtime, input),
    async approve(taskId, guard) {
      const session = await sessionOf(taskId, guard, "approve");
      // Read before anything changes: a plan that cannot be read leaves the task under review.
      const plan = taskOf(session)?.status === "awaiting_review" ? await approvedPlan(session) : "";
      await transitionTask(runtime, session, "executing");
      await runtime.setRole(taskId, "actor");
      return runtime.send(
        session,
        `The plan is approved. Carry it out now, step by step.\n\n<approved_plan>\n${plan}\n</approved_plan>`,
      );
    },
    async revise(taskId, feedback, guard) {
      if (typeof feedback !== "string" || feedback.trim() === "")
        throw new InvalidArgumentError("tasks.revise: feedback must be a non-empty string");
      const session = await sessionOf(taskId, guard, "revise");
      await transitionTask(runtime, session, "planning");
      runtime.publish(session, { type: "planning_started", taskId, depth: 0, parentId: null });
      return runtime.send(
        session,
        `Revise the plan with this feedback, then submit it again with create_artifact:\n\n${feedback}`,
      );
    },
    async reply(taskId, content, guard) {
      if (typeof content !== "string" || content.trim() === "")
        throw new InvalidArgumentError("tasks.reply: content must be a non-empty string");
      const session = await sessionOf(taskId, guard, "reply");
      const task = taskOf(session)!;
      if (task.status !== "planning")
        throw new InvalidArgumentError(
          `Task "${taskId}" is "${task.status}": reply answers the planner while it is "planning"`,
        );
      return runtime.send(session, content);
    },
    async rename(taskId, title, guard) {
      if (typeof title !== "string" || title.trim() === "" || title.length > TITLE_CHARS || hasControlCharacter(title))
        throw new InvalidArgumentError(
          `tasks.rename: title must be 1 to ${TITLE_CHARS} characters without control characters`,
        );
      await sessionOf(taskId, guard, "rename");
      return taskOf(await store.updateSession(taskId, { name: title.trim() }))!;
    },
    async delete(taskId, guard) {
      await sessionOf(taskId, guard, "delete");
      runtime.stop(taskId, "task_deleted");
      await runtime.deleteSession(taskId);
    },
    async cancel(taskId, guard) {
      const session = await sessionOf(taskId, guard, "cancel");
      const task = await transitionTask(runtime, session, "cancelled");
      runtime.stop(taskId, "task_cancelled");
      return task;
    },
    async get(taskId, guard) {
      const filter = tenantGuardFilter("tasks.get", guard);
      if (typeof taskId !== "string" || taskId === "") return undefined;
      const session = await store.getSession(taskId);
      if (!session || !matchesScopeFilter(session.scope, filter)) return undefined;
      const task = taskOf(session);
      return task?.taskId === taskId ? task : undefined;
    },
    async list(query = {}) {
      const sessions = await store.listSessions({
        ...(query.scope !== undefined && { scope: query.scope }),
        ...(query.agentId !== undefined && { agentId: query.agentId }),
      });
      return sessions.flatMap((s) => {
        const task = taskOf(s);
        return task && (query.status === undefined || task.status === query.status) ? [task] : [];
      });
    },
    async artifacts(taskId, guard) {
      const session = await sessionOf(taskId, guard, "artifacts");
      const records = await store.load(session.sessionId);
      return records.flatMap((r) => {
        if (r.kind !== "artifact") return [];
        return [
          {
            artifactId: r.artifactId,
            sessionId: session.sessionId,
            filename: r.filename,
            kind: r.artifactKind,
            content: r.content,
            createdAt: r.at,
          },
        ];
      });
    },
  };
}

/** `tasks.create`: checks the input, creates the task's session in `planning` with the planner role, and runs its first turn. */
async function createTask(runtime: TaskRuntime, input: Parameters<TaskApi["create"]>[0]): Promise<Task> {
  const { store } = runtime;
  const problems: string[] = [];
  if (typeof input?.agentId !== "string" || input.agentId === "") problems.push("agentId must be a non-empty string");
  if (typeof input?.content !== "string" || input.content.trim() === "")
    problems.push("content must be a non-empty string");
  if (input?.scope !== undefined && (typeof input.scope !== "string" || input.scope === ""))
    problems.push("scope must be a non-empty string when set");
  if (input?.taskId !== undefined && !isTaskId(input.taskId))
    problems.push(`taskId must be 1 to ${MAX_TASK_ID_CHARS} characters without control characters when set`);
  if (problems.length > 0) throw new InvalidArgumentError(`tasks.create: ${problems.join("; ")}`);
  runtime.checkAgent(input.agentId);
  const taskId = input.taskId ?? globalThis.crypto.randomUUID();
  const title = input.content.trim().split("\n")[0]!.slice(0, TITLE_CHARS);
  const session = await store.createSession({
    sessionId: taskId,
    agentId: input.agentId,
    ...(input.scope !== undefined && { scope: input.scope }),
    name: title,
    attributes: { taskId, taskStatus: "planning", taskTitle: title, taskVersion: 0 },
  });
  await store.append(taskId, [
    { id: `task:${taskId}:0`, frame: null, kind: "task", taskId, from: null, to: "planning" },
  ]);
  runtime.publish(session, { type: "task_status", taskId, from: null, to: "planning", depth: 0, parentId: null });
  await runtime.setRole(taskId, "planner");
  runtime.publish(session, { type: "planning_started", taskId, depth: 0, parentId: null });
  await runtime.send(session, input.content);
  const planned = await store.getSession(taskId);
  if (!planned) throw new InvalidArgumentError(`Task "${taskId}" was deleted while it was planning`);
  return taskOf(planned)!;
}
