import { trace } from "@opentelemetry/api";
import type { LoopEvent } from "../contracts/loop-event.js";
import type { LoopResult } from "../contracts/loop-result.js";
import { createSpanRecorder } from "./create-span-recorder.js";
import type { TracingOptions } from "./tracing-options.js";

/** Options of {@link tracedLoop}. */
export interface TracedLoopOptions extends TracingOptions {
  /**
   * The model, for events that do not name it (the loop's `llm_call_start` events name each call's model and
   * provider). @default each call's own model
   */
  model?: string;
  /**
   * The loop's `modelOptions`, for the request parameters of every `chat` span (`gen_ai.request.temperature`,
   * `gen_ai.request.max_tokens`): pass the object you passed to the loop. @default none recorded
   */
  modelOptions?: { temperature?: number; maxOutputTokens?: number };
  /** `gen_ai.agent.id` / `gen_ai.agent.name` of the turn span. @default none (span name `invoke_agent`) */
  agentId?: string;
  /** `gen_ai.conversation.id` of every span. @default none */
  conversationId?: string;
}

/**
 * Traces one run of `runUnifiedAgentLoop` (the loop without the runtime): pass the generator
 * the loop returned and iterate the result instead. Events and the return value pass through
 * unchanged; spans are those of {@link instrumentRuntime} (`invoke_agent` for the run, `chat` per
 * model call, `execute_tool` per tool call, sub-tasks nested under their `run_subtask` span).
 * Leaving the loop early (`break`, `return()`) stops the wrapped loop too and ends its spans.
 *
 * Taking the generator rather than the loop's options keeps this entry free of the loop itself:
 * it works with any loop options, and a host that wraps the loop further can trace the result.
 *
 * @example
 * import { runUnifiedAgentLoop } from "@agentry/core";
 * import { tracedLoop } from "@agentry/core/otel";
 * const modelOptions = { temperature: 0.2, maxOutputTokens: 1024 };
 * const loop = runUnifiedAgentLoop({ provider, model, systemPrompt, history, tools, modelOptions });
 * for await (const event of tracedLoop(loop, { tracer, agentId: "helper", modelOptions })) {
 *   // ...
 * }
 */
export async function* tracedLoop(
  loop: AsyncGenerator<LoopEvent, LoopResult>,
  options: TracedLoopOptions = {},
): AsyncGenerator<LoopEvent, LoopResult> {
  const recorder = createSpanRecorder({
    tracer: options.tracer ?? trace.getTracer("@agentry/core"),
    recordContent: options.recordContent ?? false,
    maxContentLength: options.maxContentLength ?? 8192,
    describeTurn: () => ({
      ...(options.model !== undefined && { model: options.model }),
      ...(options.agentId !== undefined && { agentName: options.agentId }),
      ...(options.modelOptions?.temperature !== undefined && { temperature: options.modelOptions.temperature }),
      ...(options.modelOptions?.maxOutputTokens !== undefined && {
        maxOutputTokens: options.modelOptions.maxOutputTokens,
      }),
    }),
  });
  const runId = globalThis.crypto.randomUUID();
  const stamp = {
    runId,
    ...(options.agentId !== undefined && { agentId: options.agentId }),
    ...(options.conversationId !== undefined && { sessionId: options.conversationId }),
  };
  let finished = false;
  try {
    for (;;) {
      const next = await loop.next();
      if (next.done) {
        finished = true;
        return next.value;
      }
      try {
        recorder.record({ ...next.value, ...stamp });
      } catch {
        // Tracing never breaks the run.
      }
      yield next.value;
    }
  } finally {
    if (!finished) await loop.return(undefined as never);
    recorder.endAll();
  }
}
