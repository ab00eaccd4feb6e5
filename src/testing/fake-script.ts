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
  const calls = turn.toolCalls ?? [];
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    yield { type: "tool_call", id: call.id ?? `call_${callIndex}_${i}`, name: call.name, args: call.args };
  }
  if (turn.usage) yield { type: "usage", ...turn.usage };
  if (turn.error === undefined)
    yield { type: "finish", reason: turn.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop") };
}
