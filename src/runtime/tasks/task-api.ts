import { InvalidArgumentError } from "../../errors/errors.js";
import type { LoopEvent, TaskStatus } from "../../contracts/loop-event.js";
import type { NewRecord, SessionStore, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { JsonValue } from "../../contracts/json-schema.js";
import type { Task, TaskApi, TaskApproveOptions, TaskCreateInput } from "../../contracts/task.js";
import { hasControlCharacter } from "../../internal/control-characters.js";
import { checkedContext } from "../../internal/host-context.js";
import { approvedPlanText, wrappableJson } from "../../modes/approved-plan-text.js";
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
  /** Runs a turn on the session with a user message, with the host's context when given. */
  send(session: SessionSummary, content: string, context?: JsonValue): Promise<TurnResult>;
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
  extra: { planArtifactId?: string; actorSessionId?: string } = {},
  context?: JsonValue,
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
    ...(context !== undefined && { context }),
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
  return {
    create: (input) => createTask(runtime, input),
    approve: async (taskId, options) => approveTask(runtime, await sessionOf(taskId, options, "approve"), options),
    async revise(taskId, feedback, guard) {
      if (typeof feedback !== "string" || feedback.trim() === "")
        throw new InvalidArgumentError("tasks.revise: feedback must be a non-empty string");
      const session = await sessionOf(taskId, guard, "revise");
      await transitionTask(runtime, session, "planning");
      runtime.publish(session, { type: "planning_started", taskId, depth: 0, parentId: null });
      return runtime.send(
        session,
        `Revise the plan with this feedback, then submit it again with create_artifact:\n\n${feedback}`,
        await taskContextOf(store, taskId),
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
      return runtime.send(session, content, await taskContextOf(store, taskId));
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
      const actorSessionId = taskOf(await sessionOf(taskId, guard, "delete"))?.actorSessionId;
      for (const sessionId of [taskId, ...(actorSessionId === undefined ? [] : [actorSessionId])]) {
        runtime.stop(sessionId, "task_deleted");
        await runtime.deleteSession(sessionId);
      }
    },
    async cancel(taskId, guard) {
      const session = await sessionOf(taskId, guard, "cancel");
      const task = await transitionTask(runtime, session, "cancelled");
      runtime.stop(taskId, "task_cancelled");
      if (task.actorSessionId !== undefined) runtime.stop(task.actorSessionId, "task_cancelled");
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

/** The host context the task's turns get: the newest one a task record stored (`create`, `approve`). */
async function taskContextOf(store: SessionStore, taskId: string): Promise<JsonValue | undefined> {
  const records = await store.load(taskId);
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.kind === "task" && record.context !== undefined) return record.context;
  }
  return undefined;
}

/**
 * `tasks.approve`: `awaiting_review → executing`, then the approved plan goes to the actor: the
 * task's own session in the actor role, or a new session of `actorAgentId`'s agent in the task's
 * scope, linked to the task. That session is made before the transition (so the transition names
 * it) and removed again when the transition is lost to a concurrent one.
 */
async function approveTask(
  runtime: TaskRuntime,
  session: SessionSummary,
  options: TaskApproveOptions | undefined,
): Promise<TurnResult> {
  const { store } = runtime;
  const task = taskOf(session)!;
  const given = options?.context === undefined ? undefined : checkedContext("tasks.approve", options.context);
  // Read before anything changes: a plan that cannot be read leaves the task under review.
  const plan = task.status === "awaiting_review" ? await approvedPlanOf(runtime, session) : "";
  const context = given ?? (await taskContextOf(store, task.taskId));
  const message = `The plan is approved. Carry it out now, step by step.\n\n<approved_plan>\n${plan}\n</approved_plan>`;
  if (task.actorAgentId === undefined) {
    await transitionTask(runtime, session, "executing", {}, given);
    await runtime.setRole(task.taskId, "actor");
    return runtime.send(session, message, context);
  }
  if (task.status !== "awaiting_review")
    throw new InvalidArgumentError(`Task "${task.taskId}" cannot go from "${task.status}" to "executing"`);
  runtime.checkAgent(task.actorAgentId);
  const actor = await store.createSession({
    agentId: task.actorAgentId,
    ...(session.scope !== undefined && { scope: session.scope }),
    name: task.title,
    // The task's id labels the actor's events with the task, and links its turns' outcomes to it.
    attributes: { taskId: task.taskId },
  });
  try {
    await transitionTask(runtime, session, "executing", { actorSessionId: actor.sessionId }, given);
  } catch (error) {
    await store.deleteSession(actor.sessionId).catch(() => undefined);
    throw error;
  }
  return runtime.send(actor, message, context);
}

/** The planner's note on the task a follow-up continues: its title, status, approved plan and final report. */
async function continuedTaskNote(runtime: TaskRuntime, previous: SessionSummary): Promise<string> {
  const task = taskOf(previous)!;
  const plan =
    task.planArtifactId === undefined ? undefined : await approvedPlanOf(runtime, previous).catch(() => undefined);
  const records = await runtime.store.load(task.actorSessionId ?? task.sessionId);
  let report: string | undefined;
  for (let i = records.length - 1; i >= 0 && report === undefined; i--) {
    const record = records[i]!;
    if (record.kind === "message" && record.frame === null && record.message.role === "assistant") {
      const text = assistantText(record.message.content);
      if (text !== "") report = text.length > REPORT_CHARS ? `${text.slice(0, REPORT_CHARS)}…` : text;
    }
  }
  const note = {
    task_id: task.taskId,
    title: task.title,
    status: task.status,
    ...(plan !== undefined && { approved_plan: JSON.parse(plan) as unknown }),
    ...(report !== undefined && { final_report: report }),
  };
  return `This task continues an earlier one:\n\n<continued_task>\n${wrappableJson(note)}\n</continued_task>`;
}

/** Longest final report of a continued task that a follow-up's planner is shown, in characters. */
const REPORT_CHARS = 4_000;

const assistantText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .map((part: { type?: unknown; text?: unknown }) =>
            part?.type === "text" && typeof part.text === "string" ? part.text : "",
          )
          .join("")
      : "";

/** The task a follow-up continues, checked: a task in the follow-up's own scope (else the same "unknown task" error). */
async function continuedTask(store: SessionStore, taskId: string, scope: string | undefined): Promise<SessionSummary> {
  const session = isTaskId(taskId) ? await store.getSession(taskId) : undefined;
  if (!session || taskOf(session)?.taskId !== taskId || session.scope !== scope)
    throw new InvalidArgumentError(`tasks.create: unknown task "${taskId}" to continue`);
  return session;
}

/** `tasks.create`: checks the input, creates the task's session in `planning` with the planner role, and runs its first turn. */
async function createTask(runtime: TaskRuntime, input: TaskCreateInput): Promise<Task> {
  const { store } = runtime;
  const problems: string[] = [];
  if (typeof input?.agentId !== "string" || input.agentId === "") problems.push("agentId must be a non-empty string");
  if (typeof input?.content !== "string" || input.content.trim() === "")
    problems.push("content must be a non-empty string");
  if (input?.scope !== undefined && (typeof input.scope !== "string" || input.scope === ""))
    problems.push("scope must be a non-empty string when set");
  if (input?.taskId !== undefined && !isTaskId(input.taskId))
    problems.push(`taskId must be 1 to ${MAX_TASK_ID_CHARS} characters without control characters when set`);
  if (input?.actorAgentId !== undefined && (typeof input.actorAgentId !== "string" || input.actorAgentId === ""))
    problems.push("actorAgentId must be a non-empty string when set");
  if (input?.continues !== undefined && typeof input.continues !== "string")
    problems.push("continues must be a task id when set");
  if (problems.length > 0) throw new InvalidArgumentError(`tasks.create: ${problems.join("; ")}`);
  runtime.checkAgent(input.agentId);
  if (input.actorAgentId !== undefined) runtime.checkAgent(input.actorAgentId);
  const context = input.context === undefined ? undefined : checkedContext("tasks.create", input.context);
  const previous = input.continues === undefined ? undefined : await continuedTask(store, input.continues, input.scope);
  const content = previous ? `${input.content}\n\n${await continuedTaskNote(runtime, previous)}` : input.content;
  const taskId = input.taskId ?? globalThis.crypto.randomUUID();
  const title = input.content.trim().split("\n")[0]!.slice(0, TITLE_CHARS);
  const session = await store.createSession({
    sessionId: taskId,
    agentId: input.agentId,
    ...(input.scope !== undefined && { scope: input.scope }),
    name: title,
    attributes: {
      taskId,
      taskStatus: "planning",
      taskTitle: title,
      taskVersion: 0,
      ...(input.actorAgentId !== undefined && { actorAgentId: input.actorAgentId }),
      ...(input.continues !== undefined && { continues: input.continues }),
    },
  });
  await store.append(taskId, [
    {
      id: `task:${taskId}:0`,
      frame: null,
      kind: "task",
      taskId,
      from: null,
      to: "planning",
      ...(context !== undefined && { context }),
    },
  ]);
  runtime.publish(session, { type: "task_status", taskId, from: null, to: "planning", depth: 0, parentId: null });
  await runtime.setRole(taskId, "planner");
  runtime.publish(session, { type: "planning_started", taskId, depth: 0, parentId: null });
  await runtime.send(session, content, context);
  const planned = await store.getSession(taskId);
  if (!planned) throw new InvalidArgumentError(`Task "${taskId}" was deleted while it was planning`);
  return taskOf(planned)!;
}
