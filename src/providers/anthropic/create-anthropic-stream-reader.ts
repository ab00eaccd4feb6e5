import { ProviderError } from "../../errors/errors.js";
import { providerErrorFromPayload } from "../http/provider-error-from-payload.js";
import { parseToolArgs } from "../parse-tool-args.js";
import type { FinishReason, ModelEvent } from "../provider.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";

interface OpenBlock {
  type: string;
  id?: string;
  name?: string;
  /** Concatenated `input_json_delta` fragments of a tool_use block. */
  json: string;
  /** The `input` of `content_block_start`, used when no fragment came. */
  input?: unknown;
}

type UsageField = "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens";
const USAGE_FIELDS: UsageField[] = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"];

/**
 * Turns Anthropic Messages stream events into model events. Events are dispatched on the data's
 * `type` (the `event:` line is only a fallback), so proxies that omit `event:` work.
 *
 * - `text_delta` → `text_delta`; `thinking_delta` → `thinking_delta`; `signature_delta` → a
 *   `thinking_delta` with `text: ""` and the `signature`, which closes that thinking block;
 *   a `redacted_thinking` block → one `thinking_delta` with `text: ""`, `redacted: true` and its
 *   opaque `data` as `signature` (sent back as `redacted_thinking` on the next turn).
 * - A `tool_use` block becomes a `tool_call` at its `content_block_stop` (empty input → `{}`); a
 *   block still open when the message stops (`max_tokens` mid-arguments) is never emitted.
 * - Usage: the latest non-null value of each field across `message_start` and `message_delta`.
 *   `inputTokens` counts all input (`input_tokens` + cache reads + cache writes, as Anthropic's
 *   `input_tokens` excludes both); `cachedInputTokens` = cache reads, `cacheWriteInputTokens` =
 *   cache writes.
 * - `error` events throw a `ProviderError` (`overloaded_error` is retryable); `ping` and unknown
 *   events or block types are ignored. A second `message_start` (seen from proxies) restarts
 *   block tracking.
 */
export function createAnthropicStreamReader(init: { provider: string }) {
  const { provider } = init;
  const blocks = new Map<number, OpenBlock>();
  const usage: Partial<Record<UsageField, number>> = {};
  let stopReason: string | undefined;
  let stopped = false;
  let emittedCalls = 0;

  const takeUsage = (value: unknown) => {
    if (!value || typeof value !== "object") return;
    for (const field of USAGE_FIELDS) {
      const n = (value as Record<string, unknown>)[field];
      if (typeof n === "number") usage[field] = n;
    }
  };

  return {
    push(sse: SseEvent): ModelEvent[] {
      const out: ModelEvent[] = [];
      if (sse.data.trim() === "") return out;
      let data: any;
      try {
        data = JSON.parse(sse.data);
      } catch {
        throw new ProviderError(`Malformed JSON in the event stream: ${sse.data.slice(0, 200)}`, { provider, retryable: false });
      }
      const type: unknown = data?.type ?? sse.event;
      switch (type) {
        case "message_start":
          blocks.clear();
          takeUsage(data.message?.usage);
          break;
        case "content_block_start": {
          const block = data.content_block ?? {};
          const open: OpenBlock = { type: block.type, id: block.id, name: block.name, json: "", input: block.input };
          blocks.set(data.index, open);
          if (block.type === "text" && typeof block.text === "string" && block.text !== "") out.push({ type: "text_delta", text: block.text });
          if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
            out.push({ type: "thinking_delta", text: block.thinking });
          }
          if (block.type === "redacted_thinking") {
            out.push({ type: "thinking_delta", text: "", signature: String(block.data ?? ""), redacted: true });
          }
          break;
        }
        case "content_block_delta": {
          const delta = data.delta ?? {};
          const block = blocks.get(data.index);
          if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
            out.push({ type: "text_delta", text: delta.text });
          } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string" && delta.thinking !== "") {
            out.push({ type: "thinking_delta", text: delta.thinking });
          } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
            out.push({ type: "thinking_delta", text: "", signature: delta.signature });
          } else if (delta.type === "input_json_delta" && block && typeof delta.partial_json === "string") {
            block.json += delta.partial_json;
          }
          break;
        }
        case "content_block_stop": {
          const block = blocks.get(data.index);
          blocks.delete(data.index);
          if (block?.type === "tool_use") {
            out.push({ type: "tool_call", id: block.id ?? "", name: block.name ?? "", args: toolInput(block) });
            emittedCalls++;
          }
          break;
        }
        case "message_delta":
          if (typeof data.delta?.stop_reason === "string") stopReason = data.delta.stop_reason;
          takeUsage(data.usage);
          break;
        case "message_stop":
          stopped = true;
          break;
        case "error":
          throw providerErrorFromPayload({ provider, payload: data?.error ? data : { error: data } });
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

function toolInput(block: OpenBlock): unknown {
  if (block.json.trim() !== "") return parseToolArgs(block.json);
  const input = block.input;
  return input && typeof input === "object" ? input : {};
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
