import { context, SpanKind, SpanStatusCode, type Attributes, type Link, type Span } from "@opentelemetry/api";
import type { LoopResult } from "../contracts/loop-result.js";
import { endChat, recordError, recordMessage, recordUsage, startChat } from "./chat-spans.js";
import { ATTR } from "./gen-ai-attributes.js";
import { errorTypeOf, OTHER_ERROR } from "./gen-ai-values.js";
import {
  content,
  levelAttributes,
  levelKey,
  levelParent,
  toolKey,
  type EventOf,
  type Recorder,
  type SpanRecorderInit,
  type TracedEvent,
  type TurnState,
} from "./recorder-state.js";

export type { SpanRecorderInit, TracedEvent, TurnDescription } from "./recorder-state.js";

/** Recently finished or pending delegation targets kept for linking (by run id). */
const MAX_REMEMBERED_RUNS = 1024;

/**
 * Builds OpenTelemetry spans from Agentry loop/runtime events, as they arrive:
 *
 * - `invoke_agent {agent}` per turn (run id), from its first event to its `done`;
 * - `chat {model}` per model call, from `llm_call_start` to the end of that call (its assistant
 *   `message`, an `error`, or the next event of the level that is not a delta), with the
 *   provider, the model and the request parameters;
 * - `execute_tool {tool}` per tool call, from `tool_call_update` start to end;
 * - the spans of a sub-task are children of its `run_subtask` span (events' `parentId`);
 * - an `agents_message` span is linked to the delegated turn's span, and that turn's span back
 *   to it, across sessions.
 *
 * A failed model call's `chat` span and a turn that ends `"error"`, `"budget_exceeded"` or
 * `"iteration_limit"` get status `ERROR` and `error.type`. A complete, suspended, blocked (a
 * guardrail did its job) or aborted (the host stopped it) turn keeps `UNSET`, as instrumentation
 * libraries should; `agentry.turn.status` tells them apart. No message content is recorded
 * unless `recordContent`. Span times come from the events' `ts` when present.
 */
export function createSpanRecorder(init: SpanRecorderInit) {
  const r: Recorder = {
    init,
    tracer: init.tracer,
    turns: new Map(),
    tools: new Map(),
    runContexts: new Map(),
    pendingLinks: new Map(),
  };
  const { turns } = r;
  return {
    /** Records one event. Never throws for odd input (events are data from the loop). */
    record(event: TracedEvent): void {
      const time = typeof event.ts === "number" ? event.ts : Date.now();
      const turn = turnFor(r, event, time);
      const key = levelKey(event);
      switch (event.type) {
        case "llm_call_start":
          endChat(turn, key, time);
          return startChat(r, turn, event, time);
        case "message_stream_cancelled": {
          const chat = turn.chats.get(key);
          if (chat && event.reason !== "tool_calls") chat.interrupted = true;
          return;
        }
        case "chunk":
        case "thinking":
        case "message_stream_started":
        case "message_stream_completed":
          return;
        case "usage":
          return recordUsage(turn.chats.get(key), event);
        case "warning": {
          const chat = turn.chats.get(key);
          if (chat && event.code === "max_output_tokens") chat.finishReason = "length";
          (chat?.span ?? turn.span).addEvent("agentry.warning", { "agentry.warning.code": event.code }, time);
          return;
        }
        case "message":
          // The call's span stays open past its answer: an `error` for the same call may follow.
          if (!recordMessage(init, turn.chats.get(key), event, time)) endChat(turn, key, time);
          return;
        case "error":
          // A failing hook is the host's failure, not the model call's: it goes on the turn's span.
          if (event.code === "hook_failed") endChat(turn, key, time);
          recordError(turn, turn.chats.get(key), event);
          endChat(turn, key, time);
          return;
        case "tool_call_update":
          endChat(turn, key, time);
          if (event.status === "start") startTool(r, turn, event, time);
          else finishTool(r, turn, event, time);
          return;
        case "approval_request":
        case "approval_resolved":
          return recordApproval(r, turn, event, time);
        case "budget_exceeded":
          endChat(turn, key, time);
          return recordBudgetExceeded(turn, event, time);
        case "guardrail_tripped":
          endChat(turn, key, time);
          turn.span.addEvent("agentry.guardrail_tripped", { [ATTR.guardrailGuard]: event.guard }, time);
          return;
        case "done":
          endTurn(r, turn, event.result, time);
          return;
        default:
          // tool_calls_preparing and any event added later: the model call of this level is over.
          endChat(turn, key, time);
          return;
      }
    },

    /** Ends every open span (the host stops tracing, or a turn never reached `done`). */
    endAll(): void {
      const time = Date.now();
      for (const turn of [...turns.values()]) {
        for (const key of [...turn.chats.keys()]) endChat(turn, key, time);
        for (const key of [...turn.tools]) endTool(r, turn, key, time);
        turn.span.end(time);
      }
      turns.clear();
    },

    /** Open turns (for bounds and tests). */
    get openTurns(): number {
      return turns.size;
    },
  };
}

export type SpanRecorder = ReturnType<typeof createSpanRecorder>;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > MAX_REMEMBERED_RUNS) map.delete(map.keys().next().value!);
}
function turnFor(r: Recorder, event: TracedEvent, time: number): TurnState {
  let turn = r.turns.get(event.runId);
  if (turn) return turn;
  const described = r.init.describeTurn?.(event.agentId) ?? {};
  const agentLabel = described.agentName ?? event.agentId;
  const request: Attributes = {};
  if (described.temperature !== undefined) request[ATTR.requestTemperature] = described.temperature;
  if (described.maxOutputTokens !== undefined) request[ATTR.requestMaxTokens] = described.maxOutputTokens;
  const attributes: Attributes = { [ATTR.operationName]: "invoke_agent", [ATTR.runId]: event.runId, ...request };
  if (event.agentId !== undefined) attributes[ATTR.agentId] = event.agentId;
  if (agentLabel !== undefined) attributes[ATTR.agentName] = agentLabel;
  if (event.sessionId !== undefined) attributes[ATTR.conversationId] = event.sessionId;
  if (described.model !== undefined) attributes[ATTR.requestModel] = described.model;
  const pending = r.pendingLinks.get(event.runId);
  const links: Link[] = pending ? [{ context: pending, attributes: { [ATTR.operationName]: "execute_tool" } }] : [];
  r.pendingLinks.delete(event.runId);
  const span = r.tracer.startSpan(
    agentLabel === undefined ? "invoke_agent" : `invoke_agent ${agentLabel}`,
    { kind: SpanKind.INTERNAL, attributes, links, startTime: time },
    r.init.parentContext ? r.init.parentContext() : context.active(),
  );
  turn = {
    span,
    runId: event.runId,
    sessionId: event.sessionId ?? "",
    agentId: event.agentId,
    model: described.model,
    provider: undefined,
    request,
    chats: new Map(),
    tools: new Set(),
  };
  r.turns.set(event.runId, turn);
  remember(r.runContexts, event.runId, span.spanContext());
  return turn;
}

/** An approval request (on its tool's span when open) or resolution (on the turn's span), as a span event. */
function recordApproval(
  r: Recorder,
  turn: TurnState,
  event: EventOf<"approval_request" | "approval_resolved">,
  time: number,
): void {
  const toolCallId = event.type === "approval_request" ? event.request.toolCallId : undefined;
  const span = (toolCallId === undefined ? undefined : r.tools.get(toolKey(turn, toolCallId))) ?? turn.span;
  span.addEvent(
    `agentry.${event.type}`,
    event.type === "approval_resolved" ? { "agentry.approval.approved": event.approved } : {},
    time,
  );
}

/** A budget stop: a span event and attributes on the turn's span. */
function recordBudgetExceeded(turn: TurnState, event: EventOf<"budget_exceeded">, time: number): void {
  const attributes: Attributes = {
    [ATTR.budgetReason]: event.reason,
    [ATTR.budgetLimit]: event.limit,
    [ATTR.budgetObserved]: event.observed,
  };
  turn.span.addEvent("agentry.budget_exceeded", attributes, time);
  turn.span.setAttributes(attributes);
}

function endTool(r: Recorder, turn: TurnState, key: string, time: number): void {
  const span = r.tools.get(key);
  if (!span) return;
  r.tools.delete(key);
  turn.tools.delete(key);
  span.end(time);
}

function startTool(
  r: Recorder,
  turn: TurnState,
  event: Extract<TracedEvent, { type: "tool_call_update" }>,
  time: number,
): Span {
  const attributes: Attributes = {
    ...levelAttributes(turn, event),
    [ATTR.operationName]: "execute_tool",
    [ATTR.toolName]: event.name,
    [ATTR.toolCallId]: event.toolCallId,
    [ATTR.toolType]: "function",
  };
  if (r.init.recordContent && event.args !== undefined)
    attributes[ATTR.toolCallArguments] = content(r.init, event.args);
  const span = r.tracer.startSpan(
    `execute_tool ${event.name}`,
    { kind: SpanKind.INTERNAL, attributes, startTime: time },
    levelParent(r, turn, event),
  );
  const key = toolKey(turn, event.toolCallId);
  r.tools.set(key, span);
  turn.tools.add(key);
  return span;
}

function finishTool(
  r: Recorder,
  turn: TurnState,
  event: Extract<TracedEvent, { type: "tool_call_update" }>,
  time: number,
): void {
  const key = toolKey(turn, event.toolCallId);
  // The end of a call started in a suspended run arrives in the run that resumes it.
  const span =
    r.tools.get(key) ?? startTool(r, turn, event, event.durationMs === undefined ? time : time - event.durationMs);
  if (!turn.tools.has(key)) turn.tools.add(key);
  if (r.init.recordContent && event.result !== undefined)
    span.setAttribute(ATTR.toolCallResult, content(r.init, event.result));
  // A sub-task's last model call ends with its run_subtask call.
  endChat(turn, event.toolCallId, time);
  if (event.isError) {
    span.setAttribute(ATTR.errorType, event.refused ?? "tool_error");
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: r.init.recordContent ? content(r.init, event.result) : `${event.name} failed`,
    });
  }
  if (event.name === "agents_message") linkDelegation(r, span, event.result);
  endTool(r, turn, key, time);
}

function linkDelegation(r: Recorder, span: Span, result: unknown): void {
  if (typeof result !== "object" || result === null) return;
  const { responseId, sessionId } = result as { responseId?: unknown; sessionId?: unknown };
  if (typeof responseId !== "string") return;
  span.setAttribute(ATTR.delegatedRunId, responseId);
  if (typeof sessionId === "string") span.setAttribute(ATTR.delegatedSessionId, sessionId);
  const target = r.runContexts.get(responseId);
  if (target) {
    span.addLink({ context: target, attributes: { [ATTR.operationName]: "invoke_agent" } });
    const open = r.turns.get(responseId);
    open?.span.addLink({ context: span.spanContext(), attributes: { [ATTR.operationName]: "execute_tool" } });
  } else {
    // An async delegation whose turn has not started yet: its span links back when it does.
    remember(r.pendingLinks, responseId, span.spanContext());
  }
}

function endTurn(r: Recorder, turn: TurnState, result: LoopResult, time: number): void {
  for (const [key, chat] of [...turn.chats]) {
    // A call cut off by the abort has no finish reason.
    if (result.status === "aborted") delete chat.finishReason;
    endChat(turn, key, time);
  }
  for (const key of [...turn.tools]) {
    if (result.status === "suspended") r.tools.get(key)?.setAttribute(ATTR.toolSuspended, true);
    endTool(r, turn, key, time);
  }
  const span = turn.span;
  span.setAttributes({
    [ATTR.turnStatus]: result.status,
    [ATTR.usageInputTokens]: result.usage.inputTokens,
    [ATTR.usageOutputTokens]: result.usage.outputTokens,
    [ATTR.llmCalls]: result.usage.llmCalls,
    [ATTR.toolCalls]: result.usage.toolCalls,
  });
  if (result.usage.costUsd !== undefined) span.setAttribute(ATTR.costUsd, result.usage.costUsd);
  const errorType = turnErrorType(result);
  if (errorType !== undefined) {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.message ?? result.status });
  }
  span.end(time);
  r.turns.delete(turn.runId);
}

/**
 * The `error.type` of a turn that failed, else undefined. A guardrail's block and the host's
 * abort are outcomes the host chose, not failures: dashboards that count errors must not count them.
 */
function turnErrorType(result: LoopResult): string | undefined {
  const status = result.status;
  switch (status) {
    case "complete":
    case "suspended":
    case "blocked":
    case "aborted":
      return undefined;
    case "error":
      return result.error === undefined ? OTHER_ERROR : errorTypeOf(result.error);
    case "budget_exceeded":
      return result.error?.reason === undefined ? status : `budget_exceeded.${result.error.reason}`;
    case "iteration_limit":
      return status;
    default: {
      const unknown: never = status;
      return String(unknown);
    }
  }
}
