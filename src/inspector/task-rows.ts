import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { Plan } from "../contracts/plan.js";
import type { Task } from "../contracts/task.js";
import { parsePlan } from "../modes/parse-plan.js";
import type { TaskListResponse, TaskRow } from "./inspector-api-types.js";
import { InspectorHttpError } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope, tenantGuard } from "./inspector-security.js";
import type { RedactHook } from "./inspector-options.js";
import { redactTaskRow } from "./redact-record.js";

/** Tasks within the caller's scopes, newest first, `limit` a page; the cursor is the offset into that order. */
export async function listTasks(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  cursor: string | undefined,
  limit: number,
  redact: RedactHook | undefined,
): Promise<TaskListResponse> {
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0) throw new InspectorHttpError(400, "invalid cursor");
  const all = (await runtime.tasks.list()).filter((task) => inScope(identity, task.scope));
  const page = all.slice(offset, offset + limit);
  const items = await Promise.all(
    page.map(async (task) => redactTaskRow(await rowOf(runtime, identity, task), redact)),
  );
  return offset + limit < all.length ? { items, nextCursor: String(offset + limit) } : { items };
}

async function rowOf(runtime: AgentRuntime, identity: InspectorIdentity, task: Task): Promise<TaskRow> {
  const row: TaskRow = {
    taskId: task.taskId,
    sessionId: task.sessionId,
    agentId: task.agentId,
    state: task.status,
    title: task.title,
    updatedAt: task.updatedAt,
    ...(task.actorAgentId !== undefined && { actorAgentId: task.actorAgentId }),
    ...(task.actorSessionId !== undefined && { actorSessionId: task.actorSessionId }),
    ...(task.continues !== undefined && { continues: task.continues }),
  };
  const plan = task.planArtifactId === undefined ? undefined : await planOf(runtime, identity, task);
  if (plan) row.plan = plan;
  return row;
}

async function planOf(runtime: AgentRuntime, identity: InspectorIdentity, task: Task): Promise<Plan | undefined> {
  const artifacts = await runtime.tasks.artifacts(task.taskId, tenantGuard(identity));
  const artifact = artifacts.find((a) => a.artifactId === task.planArtifactId);
  if (!artifact) return undefined;
  const parsed = parsePlan(artifact.content);
  return parsed.ok ? parsed.plan : undefined;
}
