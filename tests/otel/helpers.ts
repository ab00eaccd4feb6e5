import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";

/** A tracer whose finished spans land in memory (the SDK's own exporter). */
export function memoryTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("agentry-test");
  const spans = () => exporter.getFinishedSpans();
  const named = (prefix: string) =>
    spans().filter((span) => span.name === prefix || span.name.startsWith(`${prefix} `));
  const one = (name: string): ReadableSpan => {
    const found = spans().filter((span) => span.name === name);
    if (found.length !== 1)
      throw new Error(
        `expected one span "${name}", got ${found.length}: ${spans()
          .map((s) => s.name)
          .join(", ")}`,
      );
    return found[0]!;
  };
  return { tracer, spans, named, one, exporter };
}

/** The span's parent span id (undefined at a root). */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
