import { trace } from "@opentelemetry/api";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import { createSpanRecorder, type TracedEvent } from "./create-span-recorder.js";
import type { TracingOptions } from "./tracing-options.js";

/** What {@link instrumentRuntime} returns. */
export interface RuntimeInstrumentation {
  /** Stops tracing: unsubscribes from `runtime.events` and ends the spans still open. Idempotent. */
  stop(): void;
}

/**
 * The runtime parts the instrumentation reads: its event emitter and its registry (agent names
 * and chat settings). An `AgentRuntime` has both; written structurally so this entry does not
 * depend on the runtime's code.
 */
export interface InstrumentableRuntime {
  events: {
    on(
      event: "event",
      listener: (event: TracedEvent & { sessionId: string; agentId: string; ts: number }) => void,
    ): unknown;
    off(
      event: "event",
      listener: (event: TracedEvent & { sessionId: string; agentId: string; ts: number }) => void,
    ): unknown;
  };
  registry?: { get(agentId: string): AgentDefinition | undefined };
}

/**
 * Traces every turn of an agent runtime with OpenTelemetry spans that follow the GenAI semantic
 * conventions, built from `runtime.events` (it wraps nothing and changes nothing in the runtime):
 *
 * - `invoke_agent {agent}` per turn: `gen_ai.conversation.id` (the session id), `gen_ai.agent.id`,
 *   `gen_ai.agent.name`, `gen_ai.provider.name` and `gen_ai.request.model` (from its first model
 *   call), `gen_ai.request.temperature` / `.max_tokens` when the agent sets them, turn usage
 *   totals, `agentry.run.id`, `agentry.turn.status`;
 * - `chat {model}` per model call (kind `CLIENT`): `gen_ai.provider.name` (the conventions'
 *   well-known name, e.g. `anthropic` for `"anthropic.messages"`, else the provider's id),
 *   `gen_ai.request.model` (the call's own, whether from the agent, `defaultModel` or
 *   `prepareStep`), `gen_ai.request.temperature` / `.max_tokens` / `.stream`,
 *   `gen_ai.usage.input_tokens` / `output_tokens` / `cache_read.input_tokens` /
 *   `reasoning.output_tokens`, `gen_ai.response.finish_reasons` (none for a failed call);
 * - `execute_tool {tool}` per tool call: `gen_ai.tool.name`, `gen_ai.tool.call.id`; a sub-task's
 *   spans are children of its `run_subtask` span;
 * - `agents_message` spans are linked to the turn they started in the other session (and back).
 *
 * A failed model call, a failed or refused tool call, and a turn that ends `"error"`,
 * `"budget_exceeded"` or `"iteration_limit"` set status `ERROR` with `error.type` (a provider
 * error's type, else `ProviderError`, else `_OTHER`; a refusal's reason, else `tool_error`). A turn
 * a guardrail blocked or the host aborted keeps `UNSET`. Message content is recorded only with
 * `recordContent: true`.
 *
 * A turn's span is parented to the context active when its first event is emitted. Spans are
 * only as precise as the events: times come from the events' `ts`.
 *
 * @example
 * import { trace } from "@opentelemetry/api";
 * import { instrumentRuntime } from "@agentry/core/otel";
 * const tracing = instrumentRuntime(runtime, { tracer: trace.getTracer("my-app") });
 * // ... later
 * tracing.stop();
 */
export function instrumentRuntime(
  runtime: InstrumentableRuntime,
  options: TracingOptions = {},
): RuntimeInstrumentation {
  const recorder = createSpanRecorder({
    tracer: options.tracer ?? trace.getTracer("@agentry/core"),
    recordContent: options.recordContent ?? false,
    maxContentLength: options.maxContentLength ?? 8192,
    describeTurn: (agentId) => {
      const agent = agentId === undefined ? undefined : runtime.registry?.get(agentId);
      return {
        ...(agent?.displayName !== undefined && { agentName: agent.displayName }),
        ...(agent?.chat?.model !== undefined && { model: agent.chat.model }),
        ...(agent?.chat?.temperature !== undefined && { temperature: agent.chat.temperature }),
        ...(agent?.chat?.maxOutputTokens !== undefined && { maxOutputTokens: agent.chat.maxOutputTokens }),
      };
    },
  });
  const listener = (event: TracedEvent) => {
    try {
      recorder.record(event);
    } catch {
      // Tracing must never break a turn (the emitter would rethrow into the runtime).
    }
  };
  runtime.events.on("event", listener);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      runtime.events.off("event", listener);
      recorder.endAll();
    },
  };
}
