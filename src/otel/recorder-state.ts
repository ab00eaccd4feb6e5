/** The span recorder's state and the helpers its span functions share. */
import {
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import type { LoopEvent } from "../contracts/loop-event.js";
import { ATTR } from "./gen-ai-attributes.js";

/** A loop event with where it came from (runtime events carry all of it; `tracedLoop` fills it in). */
export type TracedEvent = LoopEvent & { sessionId?: string; agentId?: string; runId: string; ts?: number };

/** What the recorder knows about an agent before its turn's first model call. */
export interface TurnDescription {
  agentName?: string;
  /** The model when no `llm_call_start` event names it (events recorded before they did). */
  model?: string;
  /** Sent with every model call of the turn (`gen_ai.request.temperature`). */
  temperature?: number;
  /** Sent with every model call of the turn (`gen_ai.request.max_tokens`). */
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

/** A model call's open span. */
export interface ChatState {
  span: Span;
  /** Known from its `llm_call_start`, the turn's description, or (last) its `usage`. */
  model: string | undefined;
  finishReason?: string;
  /** When its assistant message arrived: the span ends then, unless an `error` for the call follows. */
  answeredAt?: number;
  /** Its stream was cancelled by an error or an abort: its message is partial, with no finish reason. */
  interrupted?: boolean;
}
/** A turn's open span and what its model calls share. */
export interface TurnState {
  span: Span;
  runId: string;
  sessionId: string;
  agentId: string | undefined;
  model: string | undefined;
  /** `gen_ai.provider.name`, once a model call named the provider. */
  provider: string | undefined;
  /** The request parameters every chat span of the turn carries. */
  request: Attributes;
  chats: Map<string, ChatState>;
  tools: Set<string>;
}

/** The recorder's state, shared by its span functions. */
export interface Recorder {
  init: SpanRecorderInit;
  tracer: Tracer;
  turns: Map<string, TurnState>;
  /** Open tool spans by session and tool call id. */
  tools: Map<string, Span>;
  runContexts: Map<string, SpanContext>;
  pendingLinks: Map<string, SpanContext>;
}

/** A content attribute's value: a string, cut at `maxContentLength`. */
export function content(init: SpanRecorderInit, value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > init.maxContentLength ? `${text.slice(0, init.maxContentLength)}…` : text;
}
/** An open tool span's key: tool call ids are unique per session. */
export function toolKey(turn: TurnState, toolCallId: string): string {
  return `${turn.sessionId}\u0000${toolCallId}`;
}
/** A level of a turn: the `run_subtask` call it runs in, `""` at the root. */
export function levelKey(event: TracedEvent): string {
  return event.parentId ?? "";
}

/** The span a level's chat and tool spans hang under: the turn, or the sub-task's `run_subtask` span. */
export function levelParent(r: Recorder, turn: TurnState, event: TracedEvent): Context {
  const parent = event.parentId === null ? undefined : r.tools.get(toolKey(turn, event.parentId));
  return trace.setSpan(context.active(), parent ?? turn.span);
}

/** The attributes every chat and tool span of a level carries. */
export function levelAttributes(turn: TurnState, event: TracedEvent): Attributes {
  const attributes: Attributes = { [ATTR.depth]: event.depth };
  if (event.sessionId !== undefined) attributes[ATTR.conversationId] = event.sessionId;
  if (turn.agentId !== undefined) attributes[ATTR.agentId] = turn.agentId;
  if (event.parentId !== null) attributes[ATTR.parentToolCallId] = event.parentId;
  return attributes;
}

/** An event of `type` among the traced events. */
export type EventOf<T extends TracedEvent["type"]> = Extract<TracedEvent, { type: T }>;
