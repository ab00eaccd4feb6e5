import { ProviderError } from "../../errors/errors.js";
import { providerErrorFromPayload } from "../http/provider-error-from-payload.js";
import type { FinishReason, ModelEvent } from "../provider.js";
import type { SseEvent } from "../sse/create-sse-decoder.js";
import { createToolCallAssembler, type ToolCallDelta } from "./create-tool-call-assembler.js";

/** The `usage` object of a Chat Completions chunk (OpenAI, plus what compatible servers add). */
interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

/**
 * Turns Chat Completions stream events into model events. Only choice 0 is read (we send `n: 1`;
 * other choices of an `n > 1` stream are ignored, not mixed in).
 *
 * - `content` and `refusal` fragments are `text_delta`s (a refusal is what the model says to the
 *   user); `reasoning_content` (DeepSeek, xAI, Kimi) and `reasoning` (Groq, OpenRouter) are
 *   `thinking_delta`s.
 * - Tool calls are emitted when `finish_reason` arrives (or at `[DONE]` without one); after
 *   `finish_reason: "length"` they are dropped: a call cut off by the token limit is never emitted.
 * - The model asked for tools when calls were assembled, whatever `finish_reason` says.
 * - Usage: the last non-null `usage` of any chunk (Groq's `x_groq.usage` as a fallback), emitted
 *   once at the end. `outputTokens` is `total - prompt` when that is larger than
 *   `completion_tokens` (xAI reports reasoning tokens outside `completion_tokens`).
 * - An `error` event or an `error` field in any chunk throws a `ProviderError`, even after output.
 * - `end()` throws a retryable `ProviderError` when the stream stopped before `finish_reason` and
 *   before `[DONE]` (a dropped connection).
 */
export function createOpenAIStreamReader(init: { provider: string; generateId: () => string }) {
  const { provider } = init;
  const tools = createToolCallAssembler({ generateId: init.generateId });
  let wireFinish: string | undefined;
  let done = false;
  let usage: ChatUsage | undefined;
  let emittedCalls = 0;

  const closeCalls = (out: ModelEvent[], truncated: boolean) => {
    const calls = tools.finish();
    if (truncated) return;
    for (const call of calls) out.push({ type: "tool_call", id: call.id, name: call.name, args: call.args });
    emittedCalls += calls.length;
  };

  return {
    push(sse: SseEvent): ModelEvent[] {
      const out: ModelEvent[] = [];
      const data = sse.data.trim();
      if (data === "[DONE]") {
        done = true;
        return out;
      }
      if (data === "") return out;
      let chunk: any;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new ProviderError(`Malformed JSON in the event stream: ${data.slice(0, 200)}`, { provider, retryable: false });
      }
      if (sse.event === "error" || (chunk && chunk.error != null)) {
        throw providerErrorFromPayload({ provider, payload: chunk?.error != null ? chunk : { error: chunk } });
      }
      const choices: any[] = Array.isArray(chunk?.choices) ? chunk.choices : [];
      for (const choice of choices) {
        if ((choice?.index ?? 0) !== 0) continue;
        const delta = choice.delta;
        if (delta && wireFinish === undefined) {
          const reasoning = delta.reasoning_content ?? delta.reasoning;
          if (typeof reasoning === "string" && reasoning !== "") out.push({ type: "thinking_delta", text: reasoning });
          if (typeof delta.content === "string" && delta.content !== "") out.push({ type: "text_delta", text: delta.content });
          if (typeof delta.refusal === "string" && delta.refusal !== "") out.push({ type: "text_delta", text: delta.refusal });
          if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls as ToolCallDelta[]) if (call) tools.add(call);
        }
        if (typeof choice.finish_reason === "string" && choice.finish_reason !== "" && wireFinish === undefined) {
          wireFinish = choice.finish_reason;
          closeCalls(out, wireFinish === "length");
        }
      }
      const chunkUsage = chunk?.usage ?? chunk?.x_groq?.usage;
      if (chunkUsage && typeof chunkUsage === "object") usage = chunkUsage as ChatUsage;
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

function toUsageEvent(usage: ChatUsage): ModelEvent {
  const input = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const total = usage.total_tokens;
  const output = typeof total === "number" && total - input > completion ? total - input : completion;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return {
    type: "usage",
    inputTokens: input,
    outputTokens: output,
    ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
  };
}

function finishReason(wire: string | undefined, calls: number): FinishReason {
  if (wire === "length") return "length";
  if (wire === "content_filter") return "content_filter";
  if (calls > 0) return "tool_calls";
  if (wire === undefined || wire === "stop") return "stop";
  return "other";
}
