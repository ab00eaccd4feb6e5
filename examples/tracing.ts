/**
 * Tracing: OpenTelemetry spans for every turn, model call and tool call of an agent runtime,
 * with the GenAI semantic-convention attributes, through `instrumentRuntime`.
 *
 * Runs offline on the scripted provider and prints the span tree. In an app, register your
 * OpenTelemetry SDK (OTLP exporter to Jaeger, Honeycomb, Langfuse, ...) and pass its tracer.
 *
 *   npx tsx --tsconfig tsconfig.tests.json examples/tracing.ts
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, MemorySessionStore } from "@agentry/core";
import { instrumentRuntime } from "@agentry/core/otel";
import { createFakeProvider } from "@agentry/core/testing";

// 1. An OpenTelemetry tracer. Here spans are kept in memory to print them at the end.
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = tracerProvider.getTracer("tracing-example");

// 2. An agent with a tool; the scripted model delegates one part to a sub-task.
const lookup = defineTool({
  name: "lookup_order",
  description: "Find an order by id.",
  input: z.object({ orderId: z.string() }),
  execute: ({ orderId }) => ({ orderId, status: "shipped", carrier: "DHL" }),
});
const provider = createFakeProvider((request) => {
  const last = request.messages[request.messages.length - 1]!;
  if ((request.caller?.depth ?? 0) > 0) {
    return last.role === "user"
      ? {
          toolCalls: [{ name: "lookup_order", args: { orderId: "A-17" } }],
          usage: { inputTokens: 120, outputTokens: 18 },
        }
      : { text: "Order A-17 shipped with DHL.", usage: { inputTokens: 160, outputTokens: 9 } };
  }
  return last.role === "user"
    ? {
        toolCalls: [
          { name: "run_subtask", args: { title: "Check order A-17", instructions: "Find the status of order A-17." } },
        ],
        usage: { inputTokens: 300, outputTokens: 40 },
      }
    : { text: "Your order A-17 is on its way with DHL.", usage: { inputTokens: 380, outputTokens: 14 } };
});
const runtime = createAgentRuntime({
  registry: createAgentRegistry([
    { agentId: "support", displayName: "Support", chat: { model: "gpt-4.1-mini", temperature: 0.3 } },
  ]),
  store: new MemorySessionStore(),
  providers: { fake: provider },
  tools: [lookup],
});

// 3. Trace the runtime. Message content stays out of spans unless `recordContent: true`.
const tracing = instrumentRuntime(runtime, { tracer });

const result = await runtime.send({ agentId: "support", content: "Where is my order A-17?" });
console.log(`assistant: ${result.text}`);
tracing.stop();
await runtime.close();

// 4. The span tree, with a few attributes.
const spans = exporter.getFinishedSpans();
const children = (parent: string | undefined) => spans.filter((span) => span.parentSpanContext?.spanId === parent);
const KEYS = [
  "gen_ai.conversation.id",
  "gen_ai.request.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gen_ai.response.finish_reasons",
  "gen_ai.tool.name",
];
function print(span: ReadableSpan, indent: string) {
  const attributes = KEYS.filter((key) => span.attributes[key] !== undefined)
    .map(
      (key) =>
        `${key.replace("gen_ai.", "")}=${JSON.stringify(span.attributes[key] === result.sessionId ? "<session>" : span.attributes[key])}`,
    )
    .join(" ");
  console.log(`${indent}${span.name}  ${attributes}`);
  for (const child of children(span.spanContext().spanId)) print(child, `${indent}  `);
}
for (const root of children(undefined)) print(root, "");
console.log(`${spans.length} spans, one trace: ${new Set(spans.map((span) => span.spanContext().traceId)).size === 1}`);
