import type { Tracer } from "@opentelemetry/api";

/** Options shared by {@link instrumentRuntime} and {@link tracedLoop}. */
export interface TracingOptions {
  /** Where spans go. @default trace.getTracer("@agentry/core") (the global tracer provider) */
  tracer?: Tracer;
  /**
   * Record message content: the model's output text and tool calls on `chat` spans
   * (`gen_ai.output.messages`), tool arguments and results on `execute_tool` spans
   * (`gen_ai.tool.call.arguments` / `.result`), and tool error texts in span statuses. Off by
   * default: prompts, answers and tool data are often personal or secret, and spans go to
   * third-party backends.
   * @default false
   */
  recordContent?: boolean;
  /** Longest recorded content attribute, in characters (longer values are cut). @default 8192 */
  maxContentLength?: number;
}
