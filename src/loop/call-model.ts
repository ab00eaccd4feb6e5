import { assistantMessageType, messageTypeOf } from "../modes/message-type-of.js";
import { isAbortError } from "../internal/abort.js";
import type {
  AssistantMessage,
  AssistantPart,
  Message,
  TextPart,
  ThinkingPart,
  ToolCallPart,
} from "../contracts/message.js";
import type { FinishReason, ModelCaller, ModelEvent, ModelRequest } from "../contracts/provider.js";
import { computeCostUsd } from "../providers/pricing.js";
import type { Level, ModelCallInfo } from "./level.js";
export type { ModelCallInfo } from "./level.js";
import { storedToolArgs } from "./tool-call-args.js";
import { errorMessage } from "./tool-result.js";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { StepCall } from "./level.js";
import { hasLoneSurrogate } from "../internal/lone-surrogate.js";

/** What one model call produced. */
export interface ModelTurn {
  /** The assistant message to append (absent when nothing usable came back). */
  message: AssistantMessage | undefined;
  text: string;
  toolCalls: ToolCallPart[];
  finish: FinishReason | undefined;
  /** Set when the stream failed; `aborted` tells an abort from a provider error. */
  error: unknown;
  aborted: boolean;
  /** The response's usage, as counted (after clamping). */
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  /** Its cost, when the model's price is known. */
  costUsd?: number;
}

/**
 * Streams one model response: emits `chunk`/`thinking` events as deltas arrive, then `usage`;
 * returns the assembled assistant message, after reporting the call to the turn's `onModelCall`.
 * Never throws for a provider's fault.
 */
export function callModel(level: Level, call: StepCall, history: readonly Message[]): Promise<ModelTurn> {
  const report = level.turn.onModelCall;
  return report ? reportedModelCall(level, call, history, report) : streamModel(level, call, history);
}

/** A model call reported to the turn's `onModelCall` once its response is complete. */
async function reportedModelCall(
  level: Level,
  call: StepCall,
  history: readonly Message[],
  report: (info: ModelCallInfo) => void,
): Promise<ModelTurn> {
  const startedAt = Date.now();
  const response = await streamModel(level, call, history);
  const { turn, depth, parentId } = level;
  const info: ModelCallInfo = {
    message: response.message,
    depth,
    parentId,
    model: call.model,
    provider: turn.provider.id,
    startedAt,
    durationMs: Date.now() - startedAt,
    system: call.system,
    tools: call.tools,
    messagesCount: history.length,
  };
  if (response.usage) info.usage = response.usage;
  if (response.costUsd !== undefined) info.costUsd = response.costUsd;
  if (response.error !== undefined) info.error = errorMessage(response.error);
  report(info);
  return response;
}

async function streamModel(level: Level, call: StepCall, history: readonly Message[]): Promise<ModelTurn> {
  const { turn, depth, parentId } = level;
  const sink = turn.sink;
  const parts: AssistantPart[] = [];
  const toolCalls: ToolCallPart[] = [];
  let text = "";
  let openText: TextPart | undefined;
  let openPieces: string[] | undefined;
  const textParts: [TextPart, string[]][] = [];
  let finish: FinishReason | undefined;
  let usage: UsageFigures | undefined;
  let warnings = 0;
  let providerToolCalls = 0;
  let costUsd: number | undefined;
  let error: unknown;
  let aborted = false;
  let streamId: string | undefined;
  const inputs = createInputStreams(level);
  try {
    const stream = turn.provider.stream(modelRequest(level, call, history), { signal: turn.signal });
    for await (const event of stream) {
      switch (event.type) {
        case "text_delta": {
          if (event.text === "") break;
          // Pieces are joined once at the end: cheaper than growing strings per delta.
          if (openText === undefined) {
            openText = { type: "text", text: "" };
            openPieces = [];
            parts.push(openText);
            textParts.push([openText, openPieces]);
          }
          openPieces!.push(event.text);
          if (streamId === undefined) {
            streamId = turn.streamIds();
            sink.emit({ type: "message_stream_started", streamId, depth, parentId });
          }
          sink.emit({ type: "chunk", content: event.text, streamId, depth, parentId });
          break;
        }
        case "thinking_delta": {
          openText = undefined;
          appendThinking(parts, event);
          if (event.text !== "") sink.emit({ type: "thinking", content: event.text, depth, parentId });
          break;
        }
        case "tool_call_start":
          inputs.start(event.id, event.name);
          break;
        case "tool_call_delta":
          inputs.delta(event.id, event.argsDelta);
          break;
        case "tool_call": {
          // Ids are made unique within the turn before anything sees them (the store, resume frames);
          // arguments become plain JSON, or a text that planCall refuses (too deep, unreadable).
          // A call whose arguments streamed keeps the id its `tool_input_delta` events carried.
          const name = typeof event.name === "string" ? event.name : String(event.name);
          const call: ToolCallPart = {
            type: "tool_call",
            id: inputs.complete(event.id) ?? uniqueCallId(turn.callIds, event.id),
            name,
            args: storedToolArgs(event.args),
          };
          toolCalls.push(call);
          parts.push(call);
          openText = undefined;
          break;
        }
        case "usage":
          usage = event;
          break;
        case "warning":
          if (++warnings <= MAX_PROVIDER_WARNINGS) passWarning(level, event);
          break;
        case "finish":
          finish = event.reason;
          providerToolCalls = providerToolCallsOf(event.toolCallCount);
          break;
      }
    }
    if (turn.signal.aborted) aborted = true;
  } catch (thrown) {
    error = thrown;
    aborted = turn.signal.aborted || isAbortError(thrown);
  }
  for (const [part, pieces] of textParts) {
    part.text = pieces.join("");
    text += part.text;
  }
  if (streamId !== undefined) {
    const cancelled = aborted || turn.signal.aborted ? "aborted" : error !== undefined ? "error" : undefined;
    closeStream(level, streamId, cancelled ?? (toolCalls.length > 0 ? "tool_calls" : undefined));
  }
  if (usage) {
    usage = checkedUsage(level, usage);
    costUsd = countUsage(level, call.model, usage);
  }
  if (providerToolCalls > 0) turn.budget.countProviderToolCalls(providerToolCalls);
  if (error !== undefined || aborted) {
    // Keep what was said, never a half-made tool call: the history must stay valid for providers.
    const kept = parts.filter((p) => p.type !== "tool_call");
    const message: AssistantMessage | undefined =
      text !== "" ? { role: "assistant", content: kept, messageType: messageTypeOf(text) } : undefined;
    const failed: ModelTurn = { message, text, toolCalls: [], finish, error: error ?? new Error("aborted"), aborted };
    return counted(failed, usage, costUsd);
  }
  if (finish === "length" && toolCalls.length > 0) {
    // A response cut off by the token limit can carry calls whose arguments were cut too.
    toolCalls.length = 0;
    for (let i = parts.length - 1; i >= 0; i--) if (parts[i]!.type === "tool_call") parts.splice(i, 1);
  }
  const message: AssistantMessage | undefined =
    parts.length > 0
      ? { role: "assistant", content: parts, messageType: assistantMessageType(text, toolCalls.length > 0) }
      : undefined;
  return counted({ message, text, toolCalls, finish, error: undefined, aborted: false }, usage, costUsd);
}

/**
 * Bounds of streamed tool-call arguments (`tool_input_delta` events): at most `callChars` characters
 * of one call's arguments are forwarded (the delta that would pass them, and every later one of
 * that call, is dropped), at most `callsPerResponse` calls of one model response are streamed (later
 * ones arrive complete only), and a call whose name is longer than `nameChars` is not streamed.
 * The loop keeps no argument text: a count per streamed call, until its complete call arrives.
 */
export const TOOL_INPUT_LIMITS = { callChars: 100_000, callsPerResponse: 256, nameChars: 256 } as const;

/** A call whose arguments are streaming: the id it will be stored under, its name, what was forwarded. */
interface InputStream {
  id: string;
  name: string;
  /** The named tool runs in the client (it has no `execute`). */
  client: boolean;
  chars: number;
  capped: boolean;
}

/**
 * The calls of one model response whose arguments stream, by the provider's id. A call's stored id
 * is decided at its `tool_call_start` (made unique as any call's, see {@link uniqueCallId}) and
 * reused by its complete `tool_call`, so the `tool_input_delta` events and the call's
 * `tool_call_update` events carry the same id. A start for an id already streaming, a delta of an
 * id with no start, and anything past {@link TOOL_INPUT_LIMITS} are ignored; a call that never
 * completes just stops streaming.
 */
function createInputStreams(level: Level) {
  const { turn, depth, parentId } = level;
  const open = new Map<string, InputStream>();
  let started = 0;
  const emit = (call: InputStream, delta: string) =>
    turn.sink.emit({
      type: "tool_input_delta",
      toolCallId: call.id,
      name: call.name,
      delta,
      ...(call.client && { client: true as const }),
      depth,
      parentId,
    });
  return {
    start(providerId: unknown, name: unknown): void {
      if (typeof providerId !== "string" || open.has(providerId)) return;
      if (typeof name !== "string" || name === "" || name.length > TOOL_INPUT_LIMITS.nameChars) return;
      if (started >= TOOL_INPUT_LIMITS.callsPerResponse) return;
      started++;
      const tool = level.tools.get(name);
      const client = tool !== undefined && typeof tool.execute !== "function";
      const call: InputStream = { id: uniqueCallId(turn.callIds, providerId), name, client, chars: 0, capped: false };
      open.set(providerId, call);
      emit(call, "");
    },
    delta(providerId: unknown, delta: unknown): void {
      const call = typeof providerId === "string" ? open.get(providerId) : undefined;
      if (call === undefined || call.capped || typeof delta !== "string" || delta === "") return;
      if (call.chars + delta.length > TOOL_INPUT_LIMITS.callChars) {
        call.capped = true;
        return;
      }
      call.chars += delta.length;
      emit(call, delta);
    },
    /** The stored id of a streamed call now complete (it stops streaming), or undefined when it did not stream. */
    complete(providerId: unknown): string | undefined {
      if (typeof providerId !== "string") return undefined;
      const call = open.get(providerId);
      open.delete(providerId);
      return call?.id;
    },
  };
}

/** The request of one model call: the level's prompt, history and tools, the turn's options, and who is calling. */
function modelRequest(level: Level, call: StepCall, history: readonly Message[]): ModelRequest {
  const { turn, depth, parentId } = level;
  const request: ModelRequest = {
    model: call.model,
    system: call.system,
    messages: history.slice(),
    tools: call.tools,
  };
  if (turn.hasRequestOptions) Object.assign(request, turn.request);
  if (call.toolChoice !== undefined) request.toolChoice = call.toolChoice;
  // Assigned, not spread: an object spread followed by more properties is a slow path in V8.
  const caller: ModelCaller = { depth, parentId };
  const known = turn.caller;
  if (known.agentId !== undefined) caller.agentId = known.agentId;
  if (known.sessionId !== undefined) caller.sessionId = known.sessionId;
  if (known.runId !== undefined) caller.runId = known.runId;
  if (known.role !== undefined) caller.role = known.role;
  request.caller = caller;
  if (level.subtaskTitle !== undefined) request.caller.subtaskTitle = level.subtaskTitle;
  return request;
}

/**
 * Ends a text stream: its last chunk, then "completed" when it is the level's answer, else
 * "cancelled" with the reason (its text stays in the assistant message, as the preamble of the
 * tool calls or what was said before a failure).
 */
function closeStream(level: Level, streamId: string, reason: "aborted" | "error" | "tool_calls" | undefined): void {
  const { turn, depth, parentId } = level;
  turn.sink.emit({ type: "chunk", content: "", done: true, streamId, depth, parentId });
  turn.sink.emit(
    reason === undefined
      ? { type: "message_stream_completed", streamId, depth, parentId }
      : { type: "message_stream_cancelled", streamId, reason, depth, parentId },
  );
}

/** Adds a response's (checked) usage to the budget and emits its `usage` event; returns its cost when priced. */
function countUsage(level: Level, model: string, usage: UsageFigures): number | undefined {
  const { turn, depth, parentId } = level;
  const cached = usage.cachedInputTokens ?? 0;
  const pricing = turn.pricing?.[model];
  const costUsd = pricing ? computeCostUsd(pricing, usage) : undefined;
  turn.budget.addUsage(usage.inputTokens, usage.outputTokens, cached, costUsd ?? 0);
  const event: LoopEvent = {
    type: "usage",
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    model,
    depth,
    parentId,
  };
  if (cached) event.cachedInputTokens = cached;
  if (usage.reasoningTokens) event.reasoningTokens = usage.reasoningTokens;
  if (costUsd !== undefined) event.costUsd = costUsd;
  turn.sink.emit(event);
  return costUsd;
}

/** `turn` with its usage and cost, when known. */
function counted(turn: ModelTurn, usage: ModelTurn["usage"], costUsd: number | undefined): ModelTurn {
  if (usage) turn.usage = usage;
  if (costUsd !== undefined) turn.costUsd = costUsd;
  return turn;
}

function appendThinking(parts: AssistantPart[], delta: Extract<ModelEvent, { type: "thinking_delta" }>): void {
  const last = parts[parts.length - 1];
  const closed = (part: ThinkingPart) =>
    part.signature !== undefined || part.redacted === true || part.providerMetadata !== undefined;
  const open = last?.type === "thinking" && !closed(last) && !delta.redacted ? last : undefined;
  const metadata = delta.providerMetadata === undefined ? undefined : plainMetadata(delta.providerMetadata);
  if (open) {
    open.text += delta.text;
    if (delta.signature !== undefined) open.signature = delta.signature;
    if (metadata !== undefined) open.providerMetadata = metadata;
    return;
  }
  const part: ThinkingPart = { type: "thinking", text: delta.text };
  if (delta.signature !== undefined) part.signature = delta.signature;
  if (delta.redacted) part.redacted = true;
  if (metadata !== undefined) part.providerMetadata = metadata;
  parts.push(part);
}

/** A plain JSON copy of a provider's metadata (it is stored with the message); none when it is not JSON. */
function plainMetadata(metadata: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const copy: unknown = JSON.parse(JSON.stringify(metadata));
    return typeof copy === "object" && copy !== null && !Array.isArray(copy)
      ? (copy as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Provider warnings (`ModelEvent` `warning`) passed on per response; later ones are dropped. */
const MAX_PROVIDER_WARNINGS = 16;

/** Most tool calls one response may say its backend ran by itself (a CLI agent's `finish.toolCallCount`). */
const MAX_PROVIDER_TOOL_CALLS = 10_000;

/** A provider's count of the tools its backend ran: a whole number, bounded; anything else is none. */
function providerToolCallsOf(count: unknown): number {
  return typeof count === "number" && Number.isInteger(count) && count > 0
    ? Math.min(count, MAX_PROVIDER_TOOL_CALLS)
    : 0;
}

/** A provider's note about the request, as a `warning` event: bounded (a provider is outside the package). */
function passWarning(level: Level, event: Extract<ModelEvent, { type: "warning" }>): void {
  level.turn.sink.emit({
    type: "warning",
    code: boundedText(event.code, 64),
    message: boundedText(event.message, 1_000),
    depth: level.depth,
    parentId: level.parentId,
  });
}

/** A provider's string cut to `max` characters (ending in "…"); anything else as its type. */
function boundedText(value: unknown, max: number): string {
  const text = typeof value === "string" ? value : typeof value;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Longest tool-call id kept as the provider sent it. */
const MAX_CALL_ID_LENGTH = 256;

/**
 * The id a tool call is stored under: the provider's, unless it is empty, not a string, longer
 * than 256 characters, holds a lone UTF-16 surrogate (stores keep ids in UTF-8 columns), already used in this turn (at any depth), or the name of a member of
 * `Object.prototype` (`__proto__`, `constructor`, `toString`: ids are keys of the resume state's
 * records, where such a key reads an inherited member or sets a prototype). A duplicate `x`
 * becomes `x_2` (`x_3`, ...), an unusable id `call_<n>`; deterministic, and recorded in `used`.
 */
export function uniqueCallId(used: Set<string>, id: unknown): string {
  let base = typeof id === "string" && id !== "" && id.length <= MAX_CALL_ID_LENGTH && !hasLoneSurrogate(id) ? id : "";
  let unique = base;
  if (base === "") {
    base = "call";
    unique = `call_${used.size + 1}`;
  }
  for (let n = 2; used.has(unique) || unique in Object.prototype; n++) unique = `${base}_${n}`;
  used.add(unique);
  return unique;
}

/** A whole number of tokens from 0 to {@link MAX_TOKENS_PER_RESPONSE}: kept as reported. */
const isTokenCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS_PER_RESPONSE;

/** More tokens than any one response can report; larger figures are clamped to it. */
export const MAX_TOKENS_PER_RESPONSE = 1_000_000_000;

type UsageFigures = { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number };

/**
 * Usage as reported, made sane: a figure that is not a number, negative, NaN, fractional or
 * above {@link MAX_TOKENS_PER_RESPONSE} is clamped (to 0, rounded, or to the maximum), with one
 * `invalid_usage` warning. A negative count would otherwise lower the turn's totals and switch
 * the token budget off.
 */
function checkedUsage(level: Level, usage: UsageFigures): UsageFigures {
  const { inputTokens, outputTokens, cachedInputTokens, reasoningTokens } = usage;
  if (
    isTokenCount(inputTokens) &&
    isTokenCount(outputTokens) &&
    cachedInputTokens === undefined &&
    reasoningTokens === undefined
  ) {
    // `|| 0`: a reported -0 is counted as 0.
    return { inputTokens: inputTokens || 0, outputTokens: outputTokens || 0 };
  }
  const wrong: string[] = [];
  const clamp = (key: keyof UsageFigures, value: unknown): number => {
    const n =
      typeof value === "number" && !Number.isNaN(value)
        ? Math.min(MAX_TOKENS_PER_RESPONSE, Math.max(0, Math.round(value)))
        : 0;
    if (n !== value) wrong.push(`${key} ${typeof value === "number" ? String(value) : typeof value}`);
    return n;
  };
  const out: UsageFigures = {
    inputTokens: clamp("inputTokens", usage.inputTokens),
    outputTokens: clamp("outputTokens", usage.outputTokens),
  };
  if (usage.cachedInputTokens !== undefined)
    out.cachedInputTokens = Math.min(clamp("cachedInputTokens", usage.cachedInputTokens), out.inputTokens);
  if (usage.reasoningTokens !== undefined)
    out.reasoningTokens = Math.min(clamp("reasoningTokens", usage.reasoningTokens), out.outputTokens);
  if (wrong.length > 0) {
    level.turn.sink.emit({
      type: "warning",
      code: "invalid_usage",
      message: `The provider reported invalid usage (${wrong.join(", ")}); clamped to 0..${MAX_TOKENS_PER_RESPONSE} whole tokens.`,
      depth: level.depth,
      parentId: level.parentId,
    });
  }
  return out;
}
