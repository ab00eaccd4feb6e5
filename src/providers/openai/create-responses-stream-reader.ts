import { ProviderError } from "../../errors/errors.js";
import { asRecord, countField, recordField, stringField, type WireRecord } from "../../internal/wire-guards.js";
import { providerErrorFromPayload } from "../http/provider-error-from-payload.js";
import type { FinishReason, ModelEvent } from "../../contracts/provider.js";
import type { OutputLimit } from "../output-limit.js";
import { parseToolArgs } from "../parse-tool-args.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { jsonChars } from "../../internal/json-chars.js";
import { MAX_REASONING_CHARS, MAX_REASONING_ITEM_CHARS, RESPONSES_METADATA_KEY } from "./to-responses-request.js";

/** A function call being streamed, keyed by its item id (or output index). */
interface PendingCall {
  callId: string | undefined;
  name: string | undefined;
  args: string;
  emitted: boolean;
  /** The id its `tool_call_start` announced (and its `tool_call` will carry), once started. */
  streamedId: string | undefined;
}

/**
 * Turns Responses API stream events into model events. Events are dispatched on `data.type` (the
 * `event:` line may be missing or come after `data:`); unknown types are ignored.
 *
 * - `output_text.delta` and `refusal.delta` are `text_delta`s; `reasoning_summary_text.delta`
 *   (OpenAI, Azure; summaries joined by a blank line) and `reasoning_text.delta` (DeepSeek, LM
 *   Studio, vLLM) are `thinking_delta`s.
 * - A finished `reasoning` item (`output_item.done`) is a `thinking_delta` with `text: ""` whose
 *   `providerMetadata.openaiResponses.item` is the item as sent (id, summary, encrypted content),
 *   so the next request can send it back unchanged. What the network sends is bounded here, since
 *   the item is stored and sent back: an item whose JSON passes `MAX_REASONING_ITEM_CHARS`, or that
 *   would take the response's kept items past `MAX_REASONING_CHARS`, is kept without its payload
 *   (`providerMetadata.openaiResponses.omittedChars`, its size; its summary text stays the
 *   thinking text) and is never sent back.
 * - Function calls are keyed by `item_id` / `output_index` (reasoning takes indices too), stream
 *   from their `output_item.added` (`tool_call_start`, then a `tool_call_delta` per arguments
 *   delta) and are emitted when their item is done, `call_id` as the id; arguments come from the
 *   deltas, or from `function_call_arguments.done` / the finished item when no delta came (LM
 *   Studio: then they are one delta).
 * - `response.completed` ends the response (`tool_calls` when calls were emitted, else `stop`);
 *   `response.incomplete` ends it as `length` (`max_output_tokens`), `content_filter` or `other`,
 *   and calls not yet done are dropped. Usage (cached and reasoning tokens included) comes from
 *   the terminal response.
 * - An `error` event (fields at the top or under `error`) or `response.failed` throws a
 *   `ProviderError`; malformed JSON is a non-retryable `ProviderError`; a stream that ends without
 *   a terminal event is a retryable one (a dropped connection).
 * - Text, refusal and argument characters are counted by `output` (the `maxOutputTokens` check).
 */
export function createResponsesStreamReader(init: {
  provider: string;
  generateId: () => string;
  output?: OutputLimit;
}) {
  const { provider, output } = init;
  const calls = createCallTracker(init);
  const textItems = new Set<string>();
  const thinkingItems = new Set<string>();
  let summary: { item: string; index: string } | undefined;
  let finish: FinishReason | undefined;
  let usage: WireRecord | undefined;

  const items: ItemState = { calls, textItems, thinkingItems, output, reasoningChars: 0 };

  const onEvent = (out: ModelEvent[], type: string, event: WireRecord) => {
    switch (type) {
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const delta = stringField(event, "delta");
        textItems.add(keyOf(event));
        if (delta === undefined || delta === "") return;
        output?.add(delta.length);
        out.push({ type: "text_delta", text: delta });
        return;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const delta = stringField(event, "delta");
        if (delta === undefined || delta === "") return;
        const next = { item: keyOf(event), index: String(countField(event, "summary_index") ?? 0) };
        thinkingItems.add(next.item);
        // Summaries are separate paragraphs: a new one of the same item starts after a blank line.
        const separator = summary?.item === next.item && summary.index !== next.index ? "\n\n" : "";
        summary = next;
        out.push({ type: "thinking_delta", text: `${separator}${delta}` });
        return;
      }
      case "response.output_item.added":
        return onOutputItem(items, out, event, false);
      case "response.output_item.done":
        return onOutputItem(items, out, event, true);
      case "response.function_call_arguments.delta": {
        const delta = stringField(event, "delta");
        if (delta === undefined) return;
        output?.add(delta.length);
        calls.addArgs(out, calls.callOf(keyOf(event)), delta);
        return;
      }
      case "response.function_call_arguments.done":
        return calls.fullArgs(out, calls.callOf(keyOf(event)), event.arguments);
      case "response.completed":
      case "response.incomplete":
        return onTerminal(out, type, event);
      case "response.failed":
      case "error":
        throw failure(provider, type, event);
      default:
        return;
    }
  };

  const onTerminal = (out: ModelEvent[], type: string, event: WireRecord) => {
    const response = recordField(event, "response");
    usage = recordField(response, "usage");
    if (type === "response.incomplete") {
      finish = incompleteFinish(stringField(recordField(response, "incomplete_details"), "reason"));
      return;
    }
    // Calls whose item never said it was done, but the response did: complete.
    for (const call of calls.all()) if (call.name !== undefined) calls.emit(out, call);
    finish = calls.emitted > 0 ? "tool_calls" : "stop";
  };

  return {
    /** True once a terminal event (`response.completed` / `response.incomplete`) came. */
    get complete(): boolean {
      return finish !== undefined;
    },

    push(sse: SseEvent): ModelEvent[] {
      const event = parseEvent(sse, provider);
      const type = stringField(event, "type") ?? sse.event;
      if (event === undefined || type === undefined || finish !== undefined) return [];
      const out: ModelEvent[] = [];
      onEvent(out, type, event);
      return out;
    },

    end(): ModelEvent[] {
      if (finish === undefined) {
        throw new ProviderError("The stream ended before the response was complete (no response.completed)", {
          provider,
          retryable: true,
        });
      }
      const out: ModelEvent[] = [];
      if (usage !== undefined) out.push(toUsageEvent(usage));
      out.push({ type: "finish", reason: finish });
      return out;
    },
  };
}

/** The function calls of one response (see {@link createCallTracker}). */
type CallTracker = ReturnType<typeof createCallTracker>;

/** What {@link onOutputItem} reads and updates: the response's calls, and the messages that had text deltas. */
interface ItemState {
  calls: CallTracker;
  /** Keys of the message items that had text deltas (their finished text is not sent again). */
  textItems: ReadonlySet<string>;
  /** Keys of the reasoning items that had reasoning text deltas. */
  thinkingItems: ReadonlySet<string>;
  output: OutputLimit | undefined;
  /** Characters of the reasoning items kept so far (see `MAX_REASONING_CHARS`). */
  reasoningChars: number;
}

/**
 * An `output_item.added` (`done` false) or `output_item.done` event: a function call's id and name
 * are noted, and once done the call is emitted; a done `reasoning` item is a `thinking_delta` with
 * the item as metadata; a done `message` that had no text delta is its text at once.
 */
function onOutputItem(state: ItemState, out: ModelEvent[], event: WireRecord, done: boolean): void {
  const item = asRecord(event.item);
  if (item === undefined) return;
  const key = keyOf(event, item);
  switch (item.type) {
    case "function_call": {
      const call = state.calls.callOf(key);
      call.callId ??= stringField(item, "call_id");
      call.name ??= stringField(item, "name");
      if (!done) state.calls.start(out, call);
      if (done) {
        state.calls.fullArgs(out, call, item.arguments);
        state.calls.emit(out, call);
      }
      return;
    }
    case "reasoning":
      if (done) out.push(reasoningDelta(state, item, key));
      return;
    case "message":
      // No delta came for this message (a server that only sends finished items): its text at once.
      if (done && !state.textItems.has(key)) out.push(...finishedText(item, state.output));
      return;
    default:
      return;
  }
}

/**
 * A finished reasoning item as a thinking delta: with the item, or, past the size limits, without its payload
 * (and with its summary as text, capped, when none streamed).
 */
function reasoningDelta(state: ItemState, item: WireRecord, key: string): ModelEvent {
  const chars = jsonChars(item);
  if (chars > MAX_REASONING_ITEM_CHARS || state.reasoningChars + chars > MAX_REASONING_CHARS) {
    const text = state.thinkingItems.has(key) ? "" : summaryText(item).slice(0, MAX_REASONING_ITEM_CHARS);
    return { type: "thinking_delta", text, providerMetadata: { [RESPONSES_METADATA_KEY]: { omittedChars: chars } } };
  }
  state.reasoningChars += chars;
  return { type: "thinking_delta", text: "", providerMetadata: { [RESPONSES_METADATA_KEY]: { item } } };
}

/** The summary paragraphs of a reasoning item, joined by a blank line as when they stream. */
function summaryText(item: WireRecord): string {
  const summary = Array.isArray(item.summary) ? (item.summary as unknown[]) : [];
  return summary
    .map((part) => stringField(asRecord(part), "text") ?? "")
    .filter((text) => text !== "")
    .join("\n\n");
}

/** The key of an event's output item: its id, else its output index. */
function keyOf(event: WireRecord, item?: WireRecord): string {
  return stringField(item, "id") ?? stringField(event, "item_id") ?? `#${String(countField(event, "output_index"))}`;
}

/** One event's JSON; none for a keep-alive or `[DONE]`. Malformed JSON is a non-retryable `ProviderError`. */
function parseEvent(sse: SseEvent, provider: string): WireRecord | undefined {
  const data = sse.data.trim();
  if (data === "" || data === "[DONE]") return undefined;
  try {
    return asRecord(JSON.parse(data));
  } catch {
    throw new ProviderError(`Malformed JSON in the event stream: ${data.slice(0, 200)}`, {
      provider,
      retryable: false,
    });
  }
}

function incompleteFinish(reason: string | undefined): FinishReason {
  return reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "content_filter" : "other";
}

/** The function calls of one response, by item key; each is emitted once. */
function createCallTracker(init: { generateId: () => string; output?: OutputLimit }) {
  const calls = new Map<string, PendingCall>();
  let emitted = 0;
  /** A piece of a call's arguments (a delta to the consumer once the call streams). */
  const addArgs = (out: ModelEvent[], call: PendingCall, args: string): void => {
    if (call.emitted) return;
    call.args += args;
    if (call.streamedId !== undefined && args !== "")
      out.push({ type: "tool_call_delta", id: call.streamedId, argsDelta: args });
  };
  return {
    get emitted(): number {
      return emitted;
    },
    all: () => calls.values(),
    callOf(key: string): PendingCall {
      let call = calls.get(key);
      if (call === undefined) {
        call = { callId: undefined, name: undefined, args: "", emitted: false, streamedId: undefined };
        calls.set(key, call);
      }
      return call;
    },
    /** Streams a call once its name is known (`output_item.added`): the arguments so far are its first delta. */
    start(out: ModelEvent[], call: PendingCall): void {
      if (call.streamedId !== undefined || call.emitted || call.name === undefined || call.name === "") return;
      call.streamedId = call.callId ?? init.generateId();
      out.push({ type: "tool_call_start", id: call.streamedId, name: call.name });
      if (call.args !== "") out.push({ type: "tool_call_delta", id: call.streamedId, argsDelta: call.args });
    },
    addArgs,
    /** The finished arguments, when no delta brought any (LM Studio sends them only at the end). */
    fullArgs(out: ModelEvent[], call: PendingCall, args: unknown): void {
      if (typeof args !== "string" || call.args !== "" || call.emitted) return;
      init.output?.add(args.length);
      addArgs(out, call, args);
    },
    emit(out: ModelEvent[], call: PendingCall): void {
      if (call.emitted) return;
      call.emitted = true;
      emitted++;
      out.push({
        type: "tool_call",
        id: call.streamedId ?? call.callId ?? init.generateId(),
        name: call.name ?? "",
        args: parseToolArgs(call.args),
      });
    },
  };
}

/** A finished message's text as one delta (none when empty), counted by `output`. */
function finishedText(item: WireRecord, output: OutputLimit | undefined): ModelEvent[] {
  const text = messageText(item);
  output?.add(text.length);
  return text === "" ? [] : [{ type: "text_delta", text }];
}

/** The text of a finished `message` item (its `output_text` and `refusal` parts). */
function messageText(item: WireRecord): string {
  const content = Array.isArray(item.content) ? (item.content as unknown[]) : [];
  return content
    .map((part) => {
      const record = asRecord(part);
      return stringField(record, "text") ?? stringField(record, "refusal") ?? "";
    })
    .join("");
}

/** The `ProviderError` of an `error` event or a `response.failed`. */
function failure(provider: string, type: string, event: WireRecord): ProviderError {
  if (type === "response.failed") {
    const error = recordField(recordField(event, "response"), "error");
    return providerErrorFromPayload({
      provider,
      payload: { error: error ?? {} },
      fallbackMessage: "The response failed",
    });
  }
  // openai-node's type has the fields at the top; the recorded stream nests them under `error`.
  const payload = event.error != null ? event : { error: event };
  return providerErrorFromPayload({ provider, payload });
}

/** The usage event of a Responses `usage` object. */
function toUsageEvent(usage: WireRecord): ModelEvent {
  const cached = countField(recordField(usage, "input_tokens_details"), "cached_tokens");
  const reasoning = countField(recordField(usage, "output_tokens_details"), "reasoning_tokens");
  return {
    type: "usage",
    inputTokens: countField(usage, "input_tokens") ?? 0,
    outputTokens: countField(usage, "output_tokens") ?? 0,
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning }),
  };
}
