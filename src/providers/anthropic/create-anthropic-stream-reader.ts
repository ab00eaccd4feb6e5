import { ProviderError } from "../../errors/errors.js";
import { asRecord, countField, recordField, stringField, type WireRecord } from "../../internal/wire-guards.js";
import { providerErrorFromPayload } from "../http/provider-error-from-payload.js";
import { parseToolArgs } from "../parse-tool-args.js";
import type { FinishReason, ModelEvent } from "../../contracts/provider.js";
import type { OutputLimit } from "../output-limit.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";

interface OpenBlock {
  type: string | undefined;
  id?: string;
  name?: string;
  /** Concatenated `input_json_delta` fragments of a tool_use block. */
  json: string;
  /** The `input` of `content_block_start`, used when no fragment came. */
  input?: unknown;
}

type UsageField = "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens";
const USAGE_FIELDS: UsageField[] = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
];

/**
 * Turns Anthropic Messages stream events into model events. Events are dispatched on the data's
 * `type` (the `event:` line is only a fallback), so proxies that omit `event:` work.
 *
 * - `text_delta` → `text_delta`; `thinking_delta` → `thinking_delta`; `signature_delta` → a
 *   `thinking_delta` with `text: ""` and the `signature`, which closes that thinking block;
 *   a `redacted_thinking` block → one `thinking_delta` with `text: ""`, `redacted: true` and its
 *   opaque `data` as `signature` (sent back as `redacted_thinking` on the next turn).
 * - A `tool_use` block streams (`tool_call_start` at its `content_block_start`, a `tool_call_delta`
 *   per `input_json_delta`) and becomes a `tool_call` at its `content_block_stop` (empty input →
 *   `{}`); a block still open when the message stops (`max_tokens` mid-arguments) is never emitted.
 * - Usage: the latest non-null value of each field across `message_start` and `message_delta`.
 *   `inputTokens` counts all input (`input_tokens` + cache reads + cache writes, as Anthropic's
 *   `input_tokens` excludes both); `cachedInputTokens` = cache reads, `cacheWriteInputTokens` =
 *   cache writes.
 * - `error` events throw a `ProviderError` (`overloaded_error` is retryable); `ping` and unknown
 *   events or block types are ignored. A second `message_start` (seen from proxies) restarts
 *   block tracking.
 * - Fields of the wrong type are ignored (a non-string `text`, a non-numeric token count, a
 *   block index that is not a number); malformed JSON is a non-retryable `ProviderError`.
 * - Text and tool-input characters are counted by `output` (the `maxOutputTokens` check), which
 *   throws when there are more than the limit allows.
 */
export function createAnthropicStreamReader(init: { provider: string; output?: OutputLimit }) {
  const { provider, output } = init;
  /** Open blocks by their `index` (whatever JSON value the server used: only equality matters). */
  const blocks = new Map<unknown, OpenBlock>();
  const usage: Partial<Record<UsageField, number>> = {};
  let stopReason: string | undefined;
  let stopped = false;
  let emittedCalls = 0;

  const takeUsage = (value: unknown) => {
    const record = asRecord(value);
    if (record === undefined) return;
    for (const field of USAGE_FIELDS) {
      const n = countField(record, field);
      if (n !== undefined) usage[field] = n;
    }
  };

  return {
    /** True once `message_stop` came. */
    get complete(): boolean {
      return stopped;
    },

    push(sse: SseEvent): ModelEvent[] {
      const out: ModelEvent[] = [];
      if (sse.data.trim() === "") return out;
      let parsed: unknown;
      try {
        parsed = JSON.parse(sse.data);
      } catch {
        throw new ProviderError(`Malformed JSON in the event stream: ${sse.data.slice(0, 200)}`, {
          provider,
          retryable: false,
        });
      }
      // Data that is not an object (`null`, a number) has no fields: its event name alone counts.
      const data = asRecord(parsed) ?? {};
      const type = data.type ?? sse.event;
      switch (type) {
        case "message_start":
          blocks.clear();
          takeUsage(recordField(data, "message")?.usage);
          break;
        case "content_block_start": {
          const block = recordField(data, "content_block") ?? {};
          const blockType = stringField(block, "type");
          const open: OpenBlock = {
            type: blockType,
            id: stringField(block, "id"),
            name: stringField(block, "name"),
            json: "",
            input: block.input,
          };
          blocks.set(data.index, open);
          if (blockType === "tool_use" && open.name)
            out.push({ type: "tool_call_start", id: open.id ?? "", name: open.name });
          const text = stringField(block, "text");
          const thinking = stringField(block, "thinking");
          if (blockType === "text" && text) {
            output?.add(text.length);
            out.push({ type: "text_delta", text });
          }
          if (blockType === "thinking" && thinking) out.push({ type: "thinking_delta", text: thinking });
          if (blockType === "redacted_thinking") {
            out.push({ type: "thinking_delta", text: "", signature: stringField(block, "data") ?? "", redacted: true });
          }
          break;
        }
        case "content_block_delta":
          blockDelta(data, blocks, out, output);
          break;
        case "content_block_stop": {
          const block = blocks.get(data.index);
          blocks.delete(data.index);
          if (block?.type === "tool_use") {
            out.push({ type: "tool_call", id: block.id ?? "", name: block.name ?? "", args: toolInput(block) });
            emittedCalls++;
          }
          break;
        }
        case "message_delta": {
          const stop = stringField(recordField(data, "delta"), "stop_reason");
          if (stop !== undefined) stopReason = stop;
          takeUsage(data.usage);
          break;
        }
        case "message_stop":
          stopped = true;
          break;
        case "error":
          throw providerErrorFromPayload({ provider, payload: data.error ? parsed : { error: parsed } });
        default:
          break; // ping and event types added later
      }
      return out;
    },

    end(): ModelEvent[] {
      if (!stopped && stopReason === undefined) {
        throw new ProviderError("The stream ended before message_stop", { provider, retryable: true });
      }
      const out: ModelEvent[] = [];
      if (USAGE_FIELDS.some((field) => usage[field] !== undefined)) {
        const read = usage.cache_read_input_tokens;
        const write = usage.cache_creation_input_tokens;
        out.push({
          type: "usage",
          inputTokens: (usage.input_tokens ?? 0) + (read ?? 0) + (write ?? 0),
          outputTokens: usage.output_tokens ?? 0,
          ...(read === undefined ? {} : { cachedInputTokens: read }),
          ...(write === undefined ? {} : { cacheWriteInputTokens: write }),
        });
      }
      out.push({ type: "finish", reason: finishReason(stopReason, emittedCalls) });
      return out;
    },
  };
}

/** A `content_block_delta`: text and thinking come out as deltas, tool input is kept on its open block. */
function blockDelta(
  data: WireRecord,
  blocks: Map<unknown, OpenBlock>,
  out: ModelEvent[],
  output: OutputLimit | undefined,
): void {
  const delta = recordField(data, "delta");
  if (delta === undefined) return;
  const { type: deltaType, text, thinking, signature, partial_json: json } = delta;
  if (deltaType === "text_delta" && typeof text === "string" && text !== "") {
    output?.add(text.length);
    out.push({ type: "text_delta", text });
  } else if (deltaType === "thinking_delta" && typeof thinking === "string" && thinking !== "") {
    out.push({ type: "thinking_delta", text: thinking });
  } else if (deltaType === "signature_delta" && typeof signature === "string") {
    out.push({ type: "thinking_delta", text: "", signature });
  } else if (deltaType === "input_json_delta" && typeof json === "string") {
    const block = blocks.get(data.index);
    if (block) {
      output?.add(json.length);
      block.json += json;
      if (block.type === "tool_use" && block.name && json !== "")
        out.push({ type: "tool_call_delta", id: block.id ?? "", argsDelta: json });
    }
  }
}

function toolInput(block: OpenBlock): unknown {
  if (block.json.trim() !== "") return parseToolArgs(block.json);
  return asRecord(block.input) ?? {};
}

function finishReason(stop: string | undefined, calls: number): FinishReason {
  switch (stop) {
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    case undefined:
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
      return calls > 0 ? "tool_calls" : stop === "tool_use" ? "other" : "stop";
    default:
      return calls > 0 ? "tool_calls" : "other";
  }
}
