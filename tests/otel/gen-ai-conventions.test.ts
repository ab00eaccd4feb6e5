import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, ProviderError, type AgentRuntimeOptions } from "@agentry/core";
import { instrumentRuntime } from "@agentry/core/otel";
import { createFakeProvider, type FakeScript } from "@agentry/core/testing";
import { ATTR } from "../../src/otel/gen-ai-attributes.js";
import { providerName, WELL_KNOWN_PROVIDER_NAMES } from "../../src/otel/gen-ai-values.js";
import { makeRuntime } from "../runtime/helpers.js";
import { idOf, memoryTracer, parentOf } from "./helpers.js";

/** Every attribute name the conventions define (`ATTR_*`), deprecated ones excepted. */
const DEPRECATED = new Set<string>([
  semconv.ATTR_GEN_AI_SYSTEM,
  semconv.ATTR_GEN_AI_PROMPT,
  semconv.ATTR_GEN_AI_COMPLETION,
  semconv.ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  semconv.ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
]);
const DEFINED = new Set<string>(
  Object.entries(semconv)
    .filter(([name, value]) => name.startsWith("ATTR_") && typeof value === "string" && !DEPRECATED.has(value))
    .map(([, value]) => value as string),
);
const WELL_KNOWN_PROVIDERS = new Set<string>(
  Object.entries(semconv)
    .filter(([name]) => name.startsWith("GEN_AI_PROVIDER_NAME_VALUE_"))
    .map(([, value]) => value as string),
);

/** An attribute Agentry sets that the conventions do not define: outside the `agentry.` namespace, a mistake. */
const foreign = (names: Iterable<string>) =>
  [...names].filter((name) => !name.startsWith("agentry.") && !DEFINED.has(name));

/** Every attribute name on the spans and their events. */
const attributeNames = (spans: ReadableSpan[]) =>
  new Set(
    spans.flatMap((span) => [
      ...Object.keys(span.attributes),
      ...span.events.flatMap((event) => Object.keys(event.attributes ?? {})),
      ...span.links.flatMap((link) => Object.keys(link.attributes ?? {})),
    ]),
  );

/** The todo agent without a model of its own (the runtime's `defaultModel` applies), with request parameters. */
function anthropicRuntime(script: FakeScript, overrides: Partial<AgentRuntimeOptions> = {}) {
  return makeRuntime(script, {
    registry: createAgentRegistry([
      {
        agentId: "todo",
        displayName: "Todo Manager",
        toolAllowlist: ["todo_*", "run_subtask"],
        chat: { temperature: 0.3, maxOutputTokens: 256 },
      },
    ]),
    providers: { claude: createFakeProvider(script, { id: "anthropic.messages" }) },
    defaultModel: "claude-test",
    ...overrides,
  });
}

/** A turn with a tool call and a sub-task, then its answer. */
const WORKING: FakeScript = (request) => {
  const last = request.messages.at(-1)!;
  if (request.caller?.depth === 1) return { text: "found it", usage: { inputTokens: 7, outputTokens: 2 } };
  if (last.role === "user")
    return {
      toolCalls: [
        { id: "call_add", name: "todo_add", args: { item: "milk" } },
        { id: "call_sub", name: "run_subtask", args: { title: "Lookup", instructions: "Find the thing." } },
      ],
      usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 4 },
    };
  return { text: "All done.", usage: { inputTokens: 20, outputTokens: 3 } };
};

describe("OpenTelemetry spans against the GenAI semantic conventions", () => {
  it("a successful turn: provider, model (from defaultModel) and request parameters on every chat span", async () => {
    const { tracer, named, one } = memoryTracer();
    const { runtime } = anthropicRuntime(WORKING);
    instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "todo", content: "add milk, then look it up" });
    expect(result.status).toBe("complete");

    const turn = one("invoke_agent Todo Manager");
    expect(turn.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      [semconv.ATTR_GEN_AI_PROVIDER_NAME]: semconv.GEN_AI_PROVIDER_NAME_VALUE_ANTHROPIC,
      [semconv.ATTR_GEN_AI_REQUEST_MODEL]: "claude-test",
      [semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 37,
      [semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 10,
    });
    expect(turn.status.code).toBe(SpanStatusCode.UNSET);

    const chats = named("chat");
    expect(chats.map((chat) => chat.name)).toEqual(["chat claude-test", "chat claude-test", "chat claude-test"]);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.status.code).toBe(SpanStatusCode.UNSET);
      expect(chat.attributes).toMatchObject({
        [semconv.ATTR_GEN_AI_OPERATION_NAME]: semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT,
        [semconv.ATTR_GEN_AI_PROVIDER_NAME]: "anthropic",
        [semconv.ATTR_GEN_AI_REQUEST_MODEL]: "claude-test",
        [semconv.ATTR_GEN_AI_REQUEST_TEMPERATURE]: 0.3,
        [semconv.ATTR_GEN_AI_REQUEST_MAX_TOKENS]: 256,
        [semconv.ATTR_GEN_AI_REQUEST_STREAM]: true,
        [semconv.ATTR_GEN_AI_CONVERSATION_ID]: result.sessionId,
      });
      expect(chat.attributes).not.toHaveProperty(semconv.ATTR_ERROR_TYPE);
    }
    const [first, sub, last] = chats;
    expect(first!.attributes).toMatchObject({
      [semconv.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 10,
      [semconv.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 5,
      [semconv.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 4,
      [semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ["tool_calls"],
    });
    expect(sub!.attributes[semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toEqual(["stop"]);
    expect(last!.attributes[semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toEqual(["stop"]);

    // Tool spans hang under the turn; the sub-task's model call under its run_subtask span.
    const add = one("execute_tool todo_add");
    const subtask = one("execute_tool run_subtask");
    expect([parentOf(add), parentOf(subtask), parentOf(first!), parentOf(last!)]).toEqual(Array(4).fill(idOf(turn)));
    expect(parentOf(sub!)).toBe(idOf(subtask));
    expect(sub!.attributes["agentry.depth"]).toBe(1);
  });

  it("a provider error: the chat span is an ERROR with the provider's error type and no finish reason, and so is the turn", async () => {
    const { tracer, named, one } = memoryTracer();
    const overloaded = new ProviderError("Overloaded", {
      provider: "anthropic.messages",
      status: 529,
      retryable: true,
      errorType: "overloaded_error",
    });
    // The model had started to answer when the provider failed: the partial answer is kept.
    const { runtime } = anthropicRuntime([{ text: "Let me check", error: overloaded }]);
    instrumentRuntime(runtime, { tracer });
    const result = await runtime.send({ agentId: "todo", content: "hi" });
    expect(result.status).toBe("error");

    const chat = one("chat claude-test");
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "Overloaded" });
    expect(chat.attributes[semconv.ATTR_ERROR_TYPE]).toBe("overloaded_error");
    expect(chat.attributes).not.toHaveProperty(semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS);
    expect(chat.attributes[semconv.ATTR_GEN_AI_PROVIDER_NAME]).toBe("anthropic");
    const turn = named("invoke_agent")[0]!;
    expect(turn.status.code).toBe(SpanStatusCode.ERROR);
    expect(turn.attributes[semconv.ATTR_ERROR_TYPE]).toBe("overloaded_error");
  });

  it("error.type falls back to ProviderError (a provider error without a type) and _OTHER (any other failure)", async () => {
    const { tracer, named } = memoryTracer();
    const { runtime } = anthropicRuntime([
      { error: new ProviderError("Bad gateway", { provider: "anthropic.messages", status: 502 }) },
      { error: new TypeError("fetch failed") },
    ]);
    instrumentRuntime(runtime, { tracer });
    await runtime.send({ agentId: "todo", content: "one" });
    await runtime.send({ agentId: "todo", content: "two" });
    const chats = named("chat");
    expect(chats.map((chat) => [chat.status.code, chat.attributes[semconv.ATTR_ERROR_TYPE]])).toEqual([
      [SpanStatusCode.ERROR, "ProviderError"],
      [SpanStatusCode.ERROR, semconv.ERROR_TYPE_VALUE_OTHER],
    ]);
    expect(named("invoke_agent").map((turn) => turn.attributes[semconv.ATTR_ERROR_TYPE])).toEqual([
      "ProviderError",
      semconv.ERROR_TYPE_VALUE_OTHER,
    ]);
  });

  it("a guardrail's block and the host's abort are not errors: UNSET, told apart by agentry.turn.status", async () => {
    const { tracer, named } = memoryTracer();
    const { runtime } = anthropicRuntime([{ text: "never", delayMs: Number.POSITIVE_INFINITY }], {
      hooks: { guardInput: ({ content }) => (content === "forbidden" ? { block: "Not here." } : undefined) },
    });
    instrumentRuntime(runtime, { tracer });
    expect((await runtime.send({ agentId: "todo", content: "forbidden" })).status).toBe("blocked");
    const controller = new AbortController();
    runtime.events.on("event", (event) => {
      if (event.type === "llm_call_start") controller.abort();
    });
    expect((await runtime.send({ agentId: "todo", content: "wait", signal: controller.signal })).status).toBe(
      "aborted",
    );
    const [blocked, aborted] = named("invoke_agent");
    expect(blocked!.status.code).toBe(SpanStatusCode.UNSET);
    expect(blocked!.attributes["agentry.turn.status"]).toBe("blocked");
    expect(blocked!.events.map((event) => [event.name, event.attributes])).toEqual([
      ["agentry.guardrail_tripped", { "agentry.guardrail.guard": "input" }],
    ]);
    expect(aborted!.status.code).toBe(SpanStatusCode.UNSET);
    expect(aborted!.attributes["agentry.turn.status"]).toBe("aborted");
    expect(aborted!.attributes).not.toHaveProperty(semconv.ATTR_ERROR_TYPE);
    const chat = named("chat")[0]!;
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes).not.toHaveProperty(semconv.ATTR_GEN_AI_RESPONSE_FINISH_REASONS);
  });

  it("every attribute name Agentry uses is one the conventions define (or Agentry's own agentry.*), and each span kind has the required ones", async () => {
    expect(foreign(Object.values(ATTR))).toEqual([]);

    const { tracer, spans, named } = memoryTracer();
    const { runtime } = anthropicRuntime(WORKING);
    instrumentRuntime(runtime, { tracer, recordContent: true });
    await runtime.send({ agentId: "todo", content: "add milk, then look it up" });
    const failing = anthropicRuntime([
      { toolCalls: [{ id: "bad", name: "todo_add", args: { wrong: true } }] },
      { error: new ProviderError("Overloaded", { provider: "anthropic", errorType: "overloaded_error" }) },
    ]).runtime;
    instrumentRuntime(failing, { tracer, recordContent: true });
    await failing.send({ agentId: "todo", content: "go" });

    const all = spans();
    expect(foreign(attributeNames(all))).toEqual([]);
    const required: Record<string, string[]> = {
      [semconv.GEN_AI_OPERATION_NAME_VALUE_CHAT]: [
        semconv.ATTR_GEN_AI_PROVIDER_NAME,
        semconv.ATTR_GEN_AI_REQUEST_MODEL,
        semconv.ATTR_GEN_AI_CONVERSATION_ID,
      ],
      [semconv.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT]: [
        semconv.ATTR_GEN_AI_PROVIDER_NAME,
        semconv.ATTR_GEN_AI_REQUEST_MODEL,
        semconv.ATTR_GEN_AI_AGENT_ID,
        semconv.ATTR_GEN_AI_AGENT_NAME,
        semconv.ATTR_GEN_AI_CONVERSATION_ID,
      ],
      [semconv.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL]: [
        semconv.ATTR_GEN_AI_TOOL_NAME,
        semconv.ATTR_GEN_AI_TOOL_CALL_ID,
        semconv.ATTR_GEN_AI_TOOL_TYPE,
      ],
    };
    const operations = new Set(all.map((span) => span.attributes[semconv.ATTR_GEN_AI_OPERATION_NAME]));
    expect([...operations].sort()).toEqual(Object.keys(required).sort());
    for (const span of all) {
      const operation = String(span.attributes[semconv.ATTR_GEN_AI_OPERATION_NAME]);
      expect(span.name.split(" ")[0]).toBe(operation);
      for (const name of required[operation]!) expect(span.attributes, `${span.name}: ${name}`).toHaveProperty([name]);
      if (span.status.code === SpanStatusCode.ERROR)
        expect(span.attributes, `${span.name}: error.type`).toHaveProperty([semconv.ATTR_ERROR_TYPE]);
    }
    // The inference span is named after its model: `{gen_ai.operation.name} {gen_ai.request.model}`.
    for (const chat of named("chat")) expect(chat.name).toBe(`chat ${String(chat.attributes[ATTR.requestModel])}`);
    expect(all.filter((span) => span.status.code === SpanStatusCode.ERROR).map((span) => span.name)).toEqual(
      expect.arrayContaining(["execute_tool todo_add", "chat claude-test", "invoke_agent Todo Manager"]),
    );
  });

  it("maps provider ids to the conventions' well-known gen_ai.provider.name values, else keeps the id", () => {
    for (const value of WELL_KNOWN_PROVIDER_NAMES.values()) expect(WELL_KNOWN_PROVIDERS).toContain(value);
    expect(
      ["openai", "openai.responses", "anthropic.messages", "amazon-bedrock", "azure.chat", "google.generative-ai"].map(
        providerName,
      ),
    ).toEqual(["openai", "openai", "anthropic", "aws.bedrock", "azure.ai.openai", "gcp.gemini"]);
    expect(["google.vertex.chat", "mistral.chat", "xai.chat"].map(providerName)).toEqual([
      "gcp.vertex_ai",
      "mistral_ai",
      "x_ai",
    ]);
    expect(["ollama", "moonshot", "fake", "constructor"].map(providerName)).toEqual([
      "ollama",
      "moonshot",
      "fake",
      "constructor",
    ]);
  });
});
