import { SpanKind, SpanStatusCode, type Attributes } from "@opentelemetry/api";
import { ATTR } from "./gen-ai-attributes.js";
import { errorTypeOf, providerName } from "./gen-ai-values.js";
import {
  content,
  levelAttributes,
  levelKey,
  levelParent,
  type ChatState,
  type EventOf,
  type Recorder,
  type SpanRecorderInit,
  type TurnState,
} from "./recorder-state.js";

/**
 * Opens the `chat {model}` span of a model call (`llm_call_start`), under its level's parent. The
 * first call that names its provider and model names them on the turn's span too.
 */
export function startChat(r: Recorder, turn: TurnState, event: EventOf<"llm_call_start">, time: number): void {
  const model = event.model ?? turn.model;
  if (event.provider !== undefined && turn.provider === undefined) {
    turn.provider = providerName(event.provider);
    turn.span.setAttribute(ATTR.providerName, turn.provider);
  }
  if (event.model !== undefined && turn.model === undefined) {
    turn.model = event.model;
    turn.span.setAttribute(ATTR.requestModel, event.model);
  }
  const attributes: Attributes = {
    ...levelAttributes(turn, event),
    [ATTR.operationName]: "chat",
    // Every provider is called through `Provider.stream`.
    [ATTR.requestStream]: true,
    ...turn.request,
    [ATTR.iteration]: event.iteration,
  };
  const provider = event.provider === undefined ? turn.provider : providerName(event.provider);
  if (provider !== undefined) attributes[ATTR.providerName] = provider;
  if (model !== undefined) attributes[ATTR.requestModel] = model;
  const span = r.tracer.startSpan(
    model === undefined ? "chat" : `chat ${model}`,
    { kind: SpanKind.CLIENT, attributes, startTime: time },
    levelParent(r, turn, event),
  );
  turn.chats.set(levelKey(event), { span, model });
}

/** A model call's usage on its open chat span (none open: ignored); names the span after the model when unknown. */
export function recordUsage(chat: ChatState | undefined, event: EventOf<"usage">): void {
  if (!chat) return;
  if (chat.model === undefined) {
    chat.model = event.model;
    chat.span.updateName(`chat ${event.model}`);
    chat.span.setAttribute(ATTR.requestModel, event.model);
  }
  chat.span.setAttributes({
    [ATTR.usageInputTokens]: event.inputTokens,
    [ATTR.usageOutputTokens]: event.outputTokens,
  });
  if (event.cachedInputTokens !== undefined)
    chat.span.setAttribute(ATTR.usageCacheReadInputTokens, event.cachedInputTokens);
  if (event.reasoningTokens !== undefined)
    chat.span.setAttribute(ATTR.usageReasoningOutputTokens, event.reasoningTokens);
  if (event.costUsd !== undefined) chat.span.setAttribute(ATTR.costUsd, event.costUsd);
}

/**
 * An assistant message: its chat's finish reason (unless its stream was cut off) and output, with
 * `recordContent`. Returns whether the chat stays open (false for another role: the call is over).
 */
export function recordMessage(
  init: SpanRecorderInit,
  chat: ChatState | undefined,
  event: EventOf<"message">,
  time: number,
): boolean {
  if (!chat || event.message.role !== "assistant") return false;
  const calls = event.message.content.some((part) => part.type === "tool_call");
  if (!chat.interrupted) chat.finishReason ??= calls ? "tool_calls" : "stop";
  chat.answeredAt = time;
  if (init.recordContent)
    chat.span.setAttribute(ATTR.outputMessages, content(init, [{ role: "assistant", parts: event.message.content }]));
  return true;
}

/**
 * A level failed (a provider error after retries, an internal error): `ERROR` status and
 * `error.type` on its open chat span, else on the turn's span. A failed call has no finish reason.
 */
export function recordError(turn: TurnState, chat: ChatState | undefined, event: EventOf<"error">): void {
  const span = chat?.span ?? turn.span;
  span.setAttribute(ATTR.errorType, errorTypeOf(event));
  span.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
  if (!chat) return;
  delete chat.finishReason;
  delete chat.answeredAt;
}

/** Ends a level's open chat span: when its answer arrived, else at `time`. */
export function endChat(turn: TurnState, key: string, time: number): void {
  const chat = turn.chats.get(key);
  if (!chat) return;
  turn.chats.delete(key);
  if (chat.finishReason !== undefined) chat.span.setAttribute(ATTR.responseFinishReasons, [chat.finishReason]);
  chat.span.end(chat.answeredAt ?? time);
}
