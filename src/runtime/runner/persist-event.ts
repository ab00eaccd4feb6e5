import type { ToolResultPart } from "../../contracts/message.js";
import type { LoopEvent } from "../../contracts/loop-event.js";
import type { ApprovalDecision, ApprovalHandler } from "../../contracts/loop-result.js";
import { approvalDecisionRecord } from "../records/approval-decision.js";
import type { NewRuntimeMessageRecord } from "../records/session-state.js";
import { surfacedRequests } from "../session/pending-listing.js";
import {
  ASK_USER,
  CREATE_ARTIFACT,
  modeMessageType,
  offersModeTool,
  REQUEST_BUILD_MODE,
} from "../agents/mode-tools.js";
import { questionOf } from "../agents/question-answer.js";
import type { ModeEffects } from "./mode-effects.js";
import type { TurnScope } from "./turn-scope.js";

/**
 * The loop's approval handler: questions wait for the user; the host's decisions are stored before the loop goes on.
 */
export function approverOf(scope: TurnScope): ApprovalHandler {
  const { deps, setup } = scope;
  const hostApprove = deps.options.approve;
  return async (request, info) => {
    // A question waits for the user (answerQuestion), never for the host's approval handler.
    if (scope.asks && request.name === ASK_USER) return { suspend: true };
    const decision = hostApprove
      ? await unlessStopped(hostApprove(request, info), setup.signal)
      : ({ suspend: true } as const);
    if (!("suspend" in decision) && request.name === "request_permission")
      deps.hooks.permission("decided", request, setup.session, decision);
    if (!("suspend" in decision)) {
      await scope.append([approvalDecisionRecord(request, request.parentId, decision)]);
    }
    return decision;
  };
}

/**
 * The host's decision, or, when the turn is stopped first (`stopTurn`, an interrupting message, the
 * host's signal), a denial with reason `"interrupted"`: a stopped turn never waits on a person who
 * may never answer, and its request is decided (retired), not left open.
 */
function unlessStopped(
  decision: Promise<ApprovalDecision>,
  signal: AbortSignal | undefined,
): Promise<ApprovalDecision> {
  if (!signal) return decision;
  const stopped: ApprovalDecision = { approved: false, reason: "interrupted" };
  if (signal.aborted) return Promise.resolve(stopped);
  return new Promise<ApprovalDecision>((resolve, reject) => {
    const onAbort = () => resolve(stopped);
    signal.addEventListener("abort", onAbort, { once: true });
    decision.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}

/**
 * Stores what `event` asks to be stored (messages, approval requests, tool results with their
 * audit records) and runs the mode tools' effects. Returns whether the caller still publishes the
 * event (`false` when it was published here, before its effects, or replaced by a question).
 */
export async function persistEvent(scope: TurnScope, effects: ModeEffects, event: LoopEvent): Promise<boolean> {
  const { deps, setup, runId, publish, audit } = scope;
  const tools = setup.prepared.tools;
  if (event.type === "message") {
    // Decided before the message is stored: the call it carries has not run yet.
    if (event.message.role === "assistant") {
      const type = modeMessageType(event.message, tools, deps.plans);
      if (type !== undefined) event.message.messageType = type;
    }
    // A turn's first root answer is stored under the run id: the id a UI stream gives its message.
    const first = event.parentId === null && event.message.role === "assistant" && !scope.answered;
    if (first) scope.answered = true;
    const id = first ? runId : `${runId}:${scope.next()}`;
    event.messageId = id;
    // The model call that produced an assistant message is stored with it (what the model saw, usage, duration).
    const calls = event.message.role === "assistant" ? scope.models.recordsFor(event.message, id) : [];
    await scope
      .append([{ id, frame: event.parentId, kind: "message", message: event.message }, ...calls])
      .catch((error: unknown) => {
        scope.models.forget(calls);
        throw error;
      });
  } else if (event.type === "client_tool_call") {
    // Stored as a request (no decision yet): the client's result is its decision (submitToolResult).
    const { request } = event;
    const outputSchema = tools.find((tool) => tool.name === request.name)?.outputSchema;
    await scope.append([
      {
        id: request.requestId,
        frame: event.parentId,
        kind: "approval",
        request,
        runId,
        ...(outputSchema !== undefined && { outputSchema }),
      },
    ]);
  } else if (event.type === "approval_request") {
    if (!(await storeApprovalRequest(scope, event))) return false;
  } else if (event.type === "tool_call_update" && event.status === "start") {
    if (event.name === CREATE_ARTIFACT) effects.artifactArgs.set(event.toolCallId, event.args);
  } else if (event.type === "tool_call_update" && event.status === "end") {
    // Stored as each call finishes: after a crash a finished call is reused, never run again.
    const part: ToolResultPart = {
      type: "tool_result",
      toolCallId: event.toolCallId,
      name: event.name,
      result: event.result,
    };
    if (event.isError) part.isError = true;
    // Its audit entry goes in the same append: a stored result always has its entry.
    const audited = await audit.end(event);
    await scope.append([
      {
        id: `${runId}:result:${event.toolCallId}`,
        frame: event.parentId,
        kind: "tool_result",
        runId,
        toolCallId: event.toolCallId,
        result: part,
      },
      audited,
    ]);
    audit.deliver(audited.entry);
    if (!event.isError && event.name === CREATE_ARTIFACT && offersModeTool(tools, CREATE_ARTIFACT)) {
      publish(event);
      await effects.storeArtifact(event.toolCallId, event.parentId, event.depth);
      return false;
    }
    if (!event.isError && event.name === REQUEST_BUILD_MODE && offersModeTool(tools, REQUEST_BUILD_MODE)) {
      publish(event);
      await effects.switchRole("actor", event.depth, event.parentId);
      return false;
    }
  } else if (event.type === "message_steered") {
    // Stored where the turn read it, marked as taken: the steering sender gets this turn's outcome.
    const record: NewRuntimeMessageRecord = {
      id: event.messageId,
      frame: null,
      kind: "message",
      message: event.message,
    };
    const steerOf = scope.control?.steerOf(event.messageId);
    if (steerOf !== undefined) record.steerOf = steerOf;
    await scope.append([record]);
  } else if (event.type === "llm_call_start") {
    setup.lineage.counters.llmCalls++;
  }
  return true;
}

/**
 * Stores an approval request (a question when it is `ask_user`'s) and publishes what the
 * conversation shows for it; `false` when it published something in the request's place (the
 * request itself is not published then).
 */
async function storeApprovalRequest(
  scope: TurnScope,
  event: Extract<LoopEvent, { type: "approval_request" }>,
): Promise<boolean> {
  const { deps, setup, runId, publish } = scope;
  const asking = scope.asks && event.request.name === ASK_USER;
  await scope.append([
    {
      id: event.request.requestId,
      frame: event.parentId,
      kind: "approval",
      request: event.request,
      runId,
      ...(asking && { question: true as const }),
    },
  ]);
  if (event.request.name === "request_permission") deps.hooks.permission("requested", event.request, setup.session);
  if (event.request.waitsOn !== undefined) {
    // A call waiting on another agent: the conversation shows what that agent waits on instead.
    const surfaced = await surfacedRequests(deps.pending, [event.request], {
      sessionId: setup.session.sessionId,
      agentId: setup.agent.agentId,
    });
    scope.surfaced.set(event.request.requestId, surfaced);
    for (const { request, question } of surfaced) {
      const origin = { depth: event.depth, parentId: event.parentId };
      if (question)
        publish({
          type: "question",
          questionId: request.requestId,
          toolCallId: request.toolCallId,
          question: questionOf(request),
          ...origin,
        });
      else publish({ type: request.client === true ? "client_tool_call" : "approval_request", request, ...origin });
    }
    return false;
  }
  if (asking) {
    // Shown as a question, not as an approval card.
    const { requestId, toolCallId } = event.request;
    publish({
      type: "question",
      questionId: requestId,
      toolCallId,
      question: questionOf(event.request),
      depth: event.depth,
      parentId: event.parentId,
    });
    return false;
  }
  return true;
}
