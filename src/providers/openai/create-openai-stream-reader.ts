import { ProviderError } from "../../errors/errors.js";
import { asRecord, countField, recordField, type WireRecord } from "../../internal/wire-guards.js";
import { providerErrorFromPayload } from "../http/provider-error-from-payload.js";
import type { FinishReason, ModelEvent } from "../../contracts/provider.js";
import type { OutputLimit } from "../output-limit.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { createToolCallAssembler } from "./create-tool-call-assembler.js";

/**
 * Turns Chat Completions stream events into model events. Only choice 0 is read (we send `n: 1`;
 * other choices of an `n > 1` stream are ignored, not mixed in).
 *
 * - `content` and `refusal` fragments are `text_delta`s (a refusal is what the model says to the
 *   user); `reasoning_content` (DeepSeek, xAI, Kimi) and `reasoning` (Groq, OpenRouter) are
 *   `thinking_delta`s.
 * - Tool calls stream as they come (`tool_call_start` once a call's name is known, then a
 *   `tool_call_delta` per argument fragment, keyed by `index`) and are emitted whole when
 *   `finish_reason` arrives (or at `[DONE]` without one); after `finish_reason: "length"` they are
 *   dropped: a call cut off by the token limit is never emitted.
 * - The model asked for tools when calls were assembled, whatever `finish_reason` says.
 * - Usage: the last non-null `usage` of any chunk (Groq's `x_groq.usage` as a fallback), emitted
 *   once at the end. `outputTokens` is `total - prompt` when that is larger than
 *   `completion_tokens` (xAI reports reasoning tokens outside `completion_tokens`).
 * - An `error` event or an `error` field in any chunk throws a `ProviderError`, even after output.
 * - Fields of the wrong type are ignored (a chunk that is not an object, a non-string `content`,
 *   a non-numeric token count); malformed JSON is a non-retryable `ProviderError`.
 * - `end()` throws a retryable `ProviderError` when the stream stopped before `finish_reason` and
 *   before `[DONE]` (a dropped connection).
 * - Text, refusal and tool-call argument characters are counted by `output` (the `maxOutputTokens`
 *   check), which throws when there are more than the limit allows.
 */
export function createOpenAIStreamReader(init: { provider: string; generateId: () => string; output?: OutputLimit }) {
  const { provider, output } = init;
  const tools = createToolCallAssembler({ generateId: init.generateId });
  let wireFinish: string | undefined;
  let done = false;
  /** The last `usage` object seen (its fields are checked when read). */
  let usage: WireRecord | undefined;
  let emittedCalls = 0;

  const closeCalls = (out: ModelEvent[], truncated: boolean) => {
    const calls = tools.finish();
    if (truncated) return;
    for (const call of calls) out.push({ type: "tool_call", id: call.id, name: call.name, args: call.args });
    emittedCalls += calls.length;
  };

  return {
    /** True once `[DONE]` came. */
    get complete(): boolean {
      return done;
    },

    push(sse: SseEvent): ModelEvent[] {
      const out: ModelEvent[] = [];
      const data = sse.data.trim();
      if (data === "[DONE]") {
        done = true;
        return out;
      }
      if (data === "") return out;
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        throw new ProviderError(`Malformed JSON in the event stream: ${data.slice(0, 200)}`, {
          provider,
          retryable: false,
        });
      }
      const chunk = asRecord(parsed);
      if (sse.event === "error" || (chunk !== undefined && chunk.error != null)) {
        throw providerErrorFromPayload({
          provider,
          payload: chunk !== undefined && chunk.error != null ? chunk : { error: parsed },
        });
      }
      if (chunk === undefined) return out;
      const choices = chunk.choices;
      if (Array.isArray(choices)) {
        for (const item of choices as unknown[]) {
          const choice = asRecord(item);
          if (choice === undefined || (choice.index ?? 0) !== 0) continue;
          const delta = asRecord(choice.delta);
          if (delta !== undefined && wireFinish === undefined) {
            const reasoning = delta.reasoning_content ?? delta.reasoning;
            if (typeof reasoning === "string" && reasoning !== "")
              out.push({ type: "thinking_delta", text: reasoning });
            const { content, refusal, tool_calls: calls } = delta;
            if (typeof content === "string" && content !== "") {
              output?.add(content.length);
              out.push({ type: "text_delta", text: content });
            }
            if (typeof refusal === "string" && refusal !== "") {
              output?.add(refusal.length);
              out.push({ type: "text_delta", text: refusal });
            }
            if (Array.isArray(calls)) {
              for (const call of calls as unknown[]) {
                const record = asRecord(call);
                if (record !== undefined) output?.add(tools.add(record, out));
              }
            }
          }
          const finish = choice.finish_reason;
          if (typeof finish === "string" && finish !== "" && wireFinish === undefined) {
            wireFinish = finish;
            closeCalls(out, wireFinish === "length");
          }
        }
      }
      const chunkUsage =
        chunk.usage == null ? recordField(recordField(chunk, "x_groq"), "usage") : asRecord(chunk.usage);
      if (chunkUsage !== undefined) usage = chunkUsage;
      return out;
    },

    end(): ModelEvent[] {
      if (wireFinish === undefined && !done) {
        throw new ProviderError("The stream ended before the response was complete (no finish_reason, no [DONE])", {
          provider,
          retryable: true,
        });
      }
      const out: ModelEvent[] = [];
      if (wireFinish === undefined) closeCalls(out, false);
      if (usage) out.push(toUsageEvent(usage));
      out.push({ type: "finish", reason: finishReason(wireFinish, emittedCalls) });
      return out;
    },
  };
}

/** The usage event of a Chat Completions `usage` object (OpenAI, plus what compatible servers add). */
function toUsageEvent(usage: WireRecord): ModelEvent {
  const input = countField(usage, "prompt_tokens") ?? 0;
  const completion = countField(usage, "completion_tokens") ?? 0;
  const total = countField(usage, "total_tokens");
  const output = total !== undefined && total - input > completion ? total - input : completion;
  const cached = countField(recordField(usage, "prompt_tokens_details"), "cached_tokens");
  // Part of the output tokens (OpenAI's o-series and compatible servers report it here).
  const reasoning = countField(recordField(usage, "completion_tokens_details"), "reasoning_tokens");
  return {
    type: "usage",
    inputTokens: input,
    outputTokens: output,
    ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
    ...(typeof reasoning === "number" && reasoning > 0 ? { reasoningTokens: reasoning } : {}),
  };
}

function finishReason(wire: string | undefined, calls: number): FinishReason {
  if (wire === "length") return "length";
  if (wire === "content_filter") return "content_filter";
  if (calls > 0) return "tool_calls";
  if (wire === undefined || wire === "stop") return "stop";
  return "other";
}
