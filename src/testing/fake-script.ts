import { AgentryError } from "../errors/agentry-error.js";
import type { ModelEvent, ModelRequest } from "../contracts/provider.js";

/** One scripted model response. */
export interface FakeTurn {
  /** Streamed as word chunks that keep their spaces and concatenate to `text` (or as `chunks`, when given). */
  text?: string;
  chunks?: string[];
  thinking?: string;
  /** Ids are generated when missing. */
  toolCalls?: { id?: string; name: string; args: unknown }[];
  /**
   * Stream each tool call's arguments before the complete calls, as a provider that streams them
   * does: a `tool_call_start`, then its arguments' JSON text (a string `args` as it is) in
   * `pieces` `tool_call_delta`s. `interleaved: true` starts every call first, then sends their
   * pieces in turn (call 0's first piece, call 1's first, ..., call 0's second, ...), as some
   * OpenAI-compatible servers do. The fake HTTP servers put them on the wire in that order.
   * `true` is `{ pieces: 3 }`.
   * @default false (the provider sends complete calls only; the fake servers still split each
   * call's arguments on the wire, one call after another)
   */
  streamToolArgs?: boolean | { pieces?: number; interleaved?: boolean };
  usage?: { inputTokens: number; outputTokens: number; cachedInputTokens?: number };
  /** The stream throws this (after any content above), e.g. a `ProviderError`. */
  error?: unknown;
  /**
   * Wait before the first event; honours the abort signal. `Infinity` (or over 2^31-1) waits for the abort; negative or
   * NaN is an error.
   */
  delayMs?: number;
  /** Override the finish reason (default: `tool_calls` when there are calls, else `stop`). */
  finishReason?: Extract<ModelEvent, { type: "finish" }>["reason"];
}

/**
 * Where a function script's request came from (its third argument).
 * - `"provider"`: `createFakeProvider`; the request is the one the loop made.
 * - `"openai"` / `"anthropic"` / `"responses"`: a fake HTTP server (Chat Completions, Messages,
 *   the Responses API). The request was read back off the wire into the
 *   same shape (tool names as defined, tool results as values; see the servers for what the wire
 *   cannot carry), and `raw` is the request body exactly as the adapter sent it (parsed JSON).
 */
export type FakeCallInfo =
  { transport: "provider" } | { transport: "openai" | "anthropic" | "responses"; raw: unknown };

/**
 * A list of turns played in order, or a function that answers each request. The function gets
 * the request, the call's index (0-based, in arrival order) and where the call came from; a
 * script that ignores the third argument plays the same way on the fake provider and on the
 * fake OpenAI, Anthropic and Responses servers.
 */
export type FakeScript =
  FakeTurn[] | ((request: ModelRequest, callIndex: number, info: FakeCallInfo) => FakeTurn | Promise<FakeTurn>);

/** The script ran out: a request came after the last scripted turn. */
export class FakeScriptExhaustedError extends AgentryError {
  static override readonly errorName: string = "FakeScriptExhaustedError";
  readonly callIndex: number;
  constructor(callIndex: number, length: number) {
    super(
      `Fake provider script exhausted: call index ${callIndex} was requested but the script has only ${length} turn${length === 1 ? "" : "s"}`,
    );
    this.callIndex = callIndex;
  }
}

/** The turn a script gives for call `callIndex`; throws `FakeScriptExhaustedError` past the end. */
export function resolveFakeTurn(
  script: FakeScript,
  request: ModelRequest,
  callIndex: number,
  info: FakeCallInfo,
): FakeTurn | Promise<FakeTurn> {
  if (typeof script === "function") return script(request, callIndex, info);
  const turn = script[callIndex];
  if (turn === undefined) throw new FakeScriptExhaustedError(callIndex, script.length);
  return turn;
}

/** The `tool_call_start` and `tool_call_delta` events of `calls` (see `FakeTurn.streamToolArgs`). */
function* streamedArgs(
  calls: { id: string; name: string; args: unknown }[],
  options: { pieces?: number; interleaved?: boolean },
): Generator<ModelEvent> {
  const pieces = calls.map((call) => splitInPieces(argsText(call.args), options.pieces ?? 3));
  if (!options.interleaved) {
    for (const [i, call] of calls.entries()) {
      yield { type: "tool_call_start", id: call.id, name: call.name };
      for (const argsDelta of pieces[i]!) yield { type: "tool_call_delta", id: call.id, argsDelta };
    }
    return;
  }
  for (const call of calls) yield { type: "tool_call_start", id: call.id, name: call.name };
  const most = Math.max(0, ...pieces.map((list) => list.length));
  for (let n = 0; n < most; n++) {
    for (const [i, call] of calls.entries()) {
      const argsDelta = pieces[i]![n];
      if (argsDelta !== undefined) yield { type: "tool_call_delta", id: call.id, argsDelta };
    }
  }
}

/** A call's arguments as the JSON text a model writes (a string as it is). */
export function argsText(args: unknown): string {
  return typeof args === "string" ? args : (JSON.stringify(args) ?? "");
}

/** `text` in `count` pieces of about equal length (fewer when it is shorter; none when empty). */
export function splitInPieces(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, Math.floor(count))));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** Splits text into word chunks that keep their whitespace: `"a b"` → `["a ", "b"]`. */
export function wordChunks(text: string): string[] {
  if (text === "") return [];
  return text.match(/\s*\S+\s*/g) ?? [text];
}

/**
 * The model events a fake turn stands for, in stream order (without `delayMs` and `error`, which
 * the caller plays). Shared by the fake provider and the fake HTTP servers so both tell the same story.
 */
export function fakeTurnEvents(turn: FakeTurn, callIndex: number): ModelEvent[] {
  return [...iterateFakeTurnEvents(turn, callIndex)];
}

/** {@link fakeTurnEvents}, produced one at a time (no array of a long stream up front). */
export function* iterateFakeTurnEvents(turn: FakeTurn, callIndex: number): Generator<ModelEvent> {
  if (turn.thinking) for (const text of wordChunks(turn.thinking)) yield { type: "thinking_delta", text };
  if (turn.chunks) for (const text of turn.chunks) yield { type: "text_delta", text };
  else if (turn.text !== undefined) for (const text of wordChunks(turn.text)) yield { type: "text_delta", text };
  const calls = (turn.toolCalls ?? []).map((call, i) => ({ ...call, id: call.id ?? `call_${callIndex}_${i}` }));
  if (turn.streamToolArgs) yield* streamedArgs(calls, turn.streamToolArgs === true ? {} : turn.streamToolArgs);
  for (const call of calls) yield { type: "tool_call", id: call.id, name: call.name, args: call.args };
  if (turn.usage) yield { type: "usage", ...turn.usage };
  if (turn.error === undefined)
    yield { type: "finish", reason: turn.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop") };
}
