/**
 * `@agentry/core/otel`: OpenTelemetry tracing for Agentry, following the GenAI semantic
 * conventions: `invoke_agent` spans per turn, `chat` per model call, `execute_tool` per tool
 * call, sub-tasks nested under their `run_subtask` span, delegation linked across sessions.
 * `@opentelemetry/api` is an optional peer: install it (and an SDK) to use this entry.
 *
 * @example
 * import { instrumentRuntime } from "@agentry/core/otel";
 * const tracing = instrumentRuntime(runtime, { tracer });
 *
 * @module \@agentry/core/otel
 */

export { instrumentRuntime } from "../otel/instrument-runtime.js";
export type { InstrumentableRuntime, RuntimeInstrumentation } from "../otel/instrument-runtime.js";
export { tracedLoop } from "../otel/traced-loop.js";
export type { TracedLoopOptions } from "../otel/traced-loop.js";
export type { TracingOptions } from "../otel/tracing-options.js";
