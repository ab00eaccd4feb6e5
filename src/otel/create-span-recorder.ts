import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { LoopResult } from "../contracts/loop-result.js";
import { ATTR } from "./gen-ai-attributes.js";

/** A loop event with where it came from (runtime events carry all of it; `tracedLoop` fills it in). */
export type TracedEvent = LoopEvent & { sessionId?: string; agentId?: string; runId: string; ts?: number };

/** What the recorder knows about an agent before its turn's first model call. */
export interface TurnDescription {
  agentName?: string;
  model?: string;
  temperature?: number;
  maxOutputTokens?: number;
}

/** Settings of {@link createSpanRecorder}. */
export interface SpanRecorderInit {
  tracer: Tracer;
  recordContent: boolean;
  maxContentLength: number;
  describeTurn?: (agentId: string | undefined) => TurnDescription;
  /** The context a turn's span is parented to. @default the active context when its first event arrives */
  parentContext?: () => Context;
}

interface ChatState {
  span: Span;
  finishReason?: string;
}
interface TurnState {
  span: Span;
  runId: string;
  sessionId: string;
  agentId: string | undefined;
  model: string | undefined;
  chats: Map<string, ChatState>;
  tools: Set<string>;
}

/** Recently finished or pending delegation targets kept for linking (by run id). */
const MAX_REMEMBERED_RUNS = 1024;

/** The recorder's state, shared by the functions below. */
interface Recorder {
  init: SpanRecorderInit;
  tracer: Tracer;
  turns: Map<string, TurnState>;
  /** Open tool spans by session and tool call id. */
  tools: Map<string, Span>;
  runContexts: Map<string, SpanContext>;
  pendingLinks: Map<string, SpanContext>;
}

/**
 * Builds OpenTelemetry spans from Agentry loop/runtime events, as they arrive:
 *
 * - `invoke_agent {agent}` per turn (run id), from its first event to its `done`;
 * - `chat {model}` per model call, from `llm_call_start` to the end of that call (its assistant
 *   `message`, an `error`, or the next event of the level that is not a delta);
 * - `execute_tool {tool}` per tool call, from `tool_call_update` start to end;
 * - the spans of a sub-task are children of its `run_subtask` span (events' `parentId`);
 * - an `agents_message` span is linked to the delegated turn's span, and that turn's span back
 *   to it, across sessions.
 *
 * Errors, budget stops, aborts and iteration limits set `ERROR` statuses (a complete or suspended
 * turn keeps `UNSET`, as instrumentation libraries should). No message content is recorded unless
 * `recordContent`. Span times come from the events' `ts` when present.
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
        case "chunk":
        case "thinking":
        case "message_stream_started":
        case "message_stream_completed":
        case "message_stream_cancelled":
          return;
        case "usage":
          return recordUsage(turn, turn.chats.get(key), event);
        case "warning": {
          const chat = turn.chats.get(key);
          if (chat && event.code === "max_output_tokens") chat.finishReason = "length";
          (chat?.span ?? turn.span).addEvent("agentry.warning", { "agentry.warning.code": event.code }, time);
          return;
        }
        case "message":
          recordMessage(init, turn.chats.get(key), event);
          endChat(turn, key, time);
          return;
        case "error":
          recordProviderError(turn, turn.chats.get(key), event);
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
function content(init: SpanRecorderInit, value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > init.maxContentLength ? `${text.slice(0, init.maxContentLength)}…` : text;
}
function toolKey(turn: TurnState, toolCallId: string): string {
  return `${turn.sessionId}\u0000${toolCallId}`;
}
function levelKey(event: TracedEvent): string {
  return event.parentId ?? "";
}

function turnFor(r: Recorder, event: TracedEvent, time: number): TurnState {
  let turn = r.turns.get(event.runId);
  if (turn) return turn;
  const described = r.init.describeTurn?.(event.agentId) ?? {};
  const agentLabel = described.agentName ?? event.agentId;
  const attributes: Attributes = { [ATTR.operationName]: "invoke_agent", [ATTR.runId]: event.runId };
  if (event.agentId !== undefined) attributes[ATTR.agentId] = event.agentId;
  if (agentLabel !== undefined) attributes[ATTR.agentName] = agentLabel;
  if (event.sessionId !== undefined) attributes[ATTR.conversationId] = event.sessionId;
  if (described.model !== undefined) attributes[ATTR.requestModel] = described.model;
  if (described.temperature !== undefined) attributes[ATTR.requestTemperature] = described.temperature;
  if (described.maxOutputTokens !== undefined) attributes[ATTR.requestMaxTokens] = described.maxOutputTokens;
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
    chats: new Map(),
    tools: new Set(),
  };
  r.turns.set(event.runId, turn);
  remember(r.runContexts, event.runId, span.spanContext());
  return turn;
}

/** The span a level's chat and tool spans hang under: the turn, or the sub-task's `run_subtask` span. */
function levelParent(r: Recorder, turn: TurnState, event: TracedEvent): Context {
  const parent = event.parentId === null ? undefined : r.tools.get(toolKey(turn, event.parentId));
  return trace.setSpan(context.active(), parent ?? turn.span);
}

function levelAttributes(turn: TurnState, event: TracedEvent): Attributes {
  const attributes: Attributes = { [ATTR.depth]: event.depth };
  if (event.sessionId !== undefined) attributes[ATTR.conversationId] = event.sessionId;
  if (turn.agentId !== undefined) attributes[ATTR.agentId] = turn.agentId;
  if (event.parentId !== null) attributes[ATTR.parentToolCallId] = event.parentId;
  return attributes;
}

/** An event of `type` among the traced events. */
type EventOf<T extends TracedEvent["type"]> = Extract<TracedEvent, { type: T }>;

/** Opens the `chat {model}` span of a model call (`llm_call_start`), under its level's parent. */
function startChat(r: Recorder, turn: TurnState, event: EventOf<"llm_call_start">, time: number): void {
  const model = turn.model;
  const attributes: Attributes = {
    ...levelAttributes(turn, event),
    [ATTR.operationName]: "chat",
    [ATTR.iteration]: event.iteration,
  };
  if (model !== undefined) attributes[ATTR.requestModel] = model;
  const span = r.tracer.startSpan(
    model === undefined ? "chat" : `chat ${model}`,
    { kind: SpanKind.CLIENT, attributes, startTime: time },
    levelParent(r, turn, event),
  );
  turn.chats.set(levelKey(event), { span });
}

/** A model call's usage on its open chat span (none open: ignored); names the span after the model when unknown. */
function recordUsage(turn: TurnState, chat: ChatState | undefined, event: EventOf<"usage">): void {
  if (!chat) return;
  if (turn.model === undefined) chat.span.updateName(`chat ${event.model}`);
  chat.span.setAttributes({
    [ATTR.requestModel]: event.model,
    [ATTR.usageInputTokens]: event.inputTokens,
    [ATTR.usageOutputTokens]: event.outputTokens,
  });
  if (event.cachedInputTokens !== undefined)
    chat.span.setAttribute(ATTR.usageCacheReadInputTokens, event.cachedInputTokens);
  if (event.costUsd !== undefined) chat.span.setAttribute(ATTR.costUsd, event.costUsd);
}

/** An assistant message sets its chat's finish reason (and output, with `recordContent`); other roles do nothing. */
function recordMessage(init: SpanRecorderInit, chat: ChatState | undefined, event: EventOf<"message">): void {
  if (!chat || event.message.role !== "assistant") return;
  const calls = event.message.content.some((part) => part.type === "tool_call");
  chat.finishReason ??= calls ? "tool_calls" : "stop";
  if (init.recordContent)
    chat.span.setAttribute(ATTR.outputMessages, content(init, [{ role: "assistant", parts: event.message.content }]));
}

/** A provider error: `ERROR` status on the open chat span, else on the turn's span. */
function recordProviderError(turn: TurnState, chat: ChatState | undefined, event: EventOf<"error">): void {
  const span = chat?.span ?? turn.span;
  span.setAttribute(ATTR.errorType, "provider_error");
  span.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
  if (chat) chat.finishReason = "error";
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

function endChat(turn: TurnState, key: string, time: number): void {
  const chat = turn.chats.get(key);
  if (!chat) return;
  turn.chats.delete(key);
  if (chat.finishReason !== undefined) chat.span.setAttribute(ATTR.responseFinishReasons, [chat.finishReason]);
  chat.span.end(time);
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
  if (event.isError) {
    span.setAttribute(ATTR.errorType, "tool_error");
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
  for (const key of [...turn.chats.keys()]) endChat(turn, key, time);
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
  if (result.status !== "complete" && result.status !== "suspended") {
    span.setAttribute(
      ATTR.errorType,
      result.error?.reason === undefined ? result.status : `budget_exceeded.${result.error.reason}`,
    );
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.message ?? result.status });
  }
  span.end(time);
  r.turns.delete(turn.runId);
}
