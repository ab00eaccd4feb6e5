import type { AgentRuntime } from "../contracts/agent-runtime.js";
import { AgentryError } from "../errors/agentry-error.js";
import {
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  InvalidArgumentError,
  SessionNotFoundError,
} from "../errors/errors.js";
import type { ActionResponse } from "./inspector-api-types.js";
import { InspectorHttpError, readJsonBody } from "./inspector-http.js";
import type { InspectorIdentity } from "./inspector-security.js";
import { inScope, tenantGuard } from "./inspector-security.js";

/** The decisions the inspector can post. */
export type InspectorAction =
  | { kind: "approval"; requestId: string }
  | { kind: "question"; questionId: string }
  | { kind: "task"; taskId: string; verb: "approve" | "revise" | "cancel" };

const MAX_TEXT = 4000;

/**
 * Runs one decision through the runtime with the caller's tenant guard. An id outside the caller's
 * scopes is a 404 (as an unknown one); a decision already taken (by a second click, another
 * operator or process) is a 409 `already decided`.
 */
export async function runAction(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  request: Request,
  action: InspectorAction,
): Promise<ActionResponse> {
  const body = await readJsonBody(request);
  const guard = tenantGuard(identity);
  try {
    switch (action.kind) {
      case "approval": {
        if (typeof body.approved !== "boolean") throw new InspectorHttpError(400, "approved must be a boolean");
        const reason = optionalText(body.reason, "reason");
        const result = await runtime.resolveApproval(action.requestId, {
          approved: body.approved,
          ...(reason !== undefined && { reason }),
          ...guard,
        });
        return { ok: true, status: result.status };
      }
      case "question": {
        const value = optionalText(body.value, "value");
        const text = optionalText(body.text, "text");
        if ((value === undefined) === (text === undefined)) throw new InspectorHttpError(400, "give value or text");
        const answer = value !== undefined ? { value } : { text: text! };
        const result = await runtime.answerQuestion(action.questionId, { ...answer, ...guard });
        return { ok: true, status: result.status };
      }
      case "task":
        return await taskAction(runtime, identity, action, body);
      default:
        return assertNever(action);
    }
  } catch (error) {
    throw httpErrorOf(error);
  }
}

async function taskAction(
  runtime: AgentRuntime,
  identity: InspectorIdentity,
  action: Extract<InspectorAction, { kind: "task" }>,
  body: Record<string, unknown>,
): Promise<ActionResponse> {
  const guard = tenantGuard(identity);
  const task = await runtime.tasks.get(action.taskId, guard);
  if (!task || !inScope(identity, task.scope)) throw new InspectorHttpError(404, "not found");
  switch (action.verb) {
    case "approve":
      if (task.status !== "awaiting_review") throw new InspectorHttpError(409, "already decided");
      return { ok: true, status: (await runtime.tasks.approve(action.taskId, guard)).status };
    case "revise": {
      const feedback = optionalText(body.feedback, "feedback");
      if (feedback === undefined || feedback.trim() === "") throw new InspectorHttpError(400, "feedback is required");
      if (task.status !== "awaiting_review") throw new InspectorHttpError(409, "already decided");
      return { ok: true, status: (await runtime.tasks.revise(action.taskId, feedback, guard)).status };
    }
    case "cancel":
      return { ok: true, status: (await runtime.tasks.cancel(action.taskId, guard)).status };
    default:
      return assertNever(action.verb);
  }
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new InspectorHttpError(400, `${name} must be a string`);
  return value.slice(0, MAX_TEXT);
}

/** The HTTP status of a runtime error: not found 404, already decided 409, bad input 400. */
export function httpErrorOf(error: unknown): unknown {
  if (error instanceof InspectorHttpError) return error;
  if (ApprovalAlreadyResolvedError.isInstance(error)) return new InspectorHttpError(409, "already decided");
  if (ApprovalNotFoundError.isInstance(error) || SessionNotFoundError.isInstance(error))
    return new InspectorHttpError(404, "not found");
  if (InvalidArgumentError.isInstance(error)) {
    // Tasks report an unknown (or out-of-scope) id and a refused transition alike.
    return /unknown task|not found/i.test(error.message)
      ? new InspectorHttpError(404, "not found")
      : new InspectorHttpError(409, "already decided");
  }
  if (AgentryError.isInstance(error)) return new InspectorHttpError(400, error.message);
  return error;
}

function assertNever(value: never): never {
  throw new Error(`unhandled: ${JSON.stringify(value)}`);
}
