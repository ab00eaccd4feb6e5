import { APICallError, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { LanguageModelV2, LanguageModelV2StreamPart } from "@ai-sdk/provider-v2";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type Message, type ModelRequest } from "@agentry/core";
import { fromAiSdk, ProviderError } from "@agentry/core/ai-sdk";
import { drain, partsStream, v4Model } from "./helpers.js";

const v3Usage = (input: number, output: number, cacheRead?: number, cacheWrite?: number) => ({
  inputTokens: { total: input, noCache: input - (cacheRead ?? 0) - (cacheWrite ?? 0), cacheRead, cacheWrite },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

function v3Model(
  parts: LanguageModelV3StreamPart[] | (() => LanguageModelV3StreamPart[]),
  provider = "anthropic.messages",
) {
  return new MockLanguageModelV3({
    provider,
    doStream: async () => ({ stream: partsStream(typeof parts === "function" ? parts() : parts) }),
  });
}

const HISTORY: Message[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "Look at this" },
      { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "thinking", text: "Let me think.", signature: "sig-1" },
      { type: "thinking", text: "", signature: "opaque", redacted: true },
      { type: "text", text: "Checking." },
      { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
      { type: "tool_call", id: "call_2", name: "get_time", args: {} },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool_result", toolCallId: "call_1", name: "get_weather", result: { temp: 3 } },
      { type: "tool_result", toolCallId: "call_2", name: "get_time", result: "boom", isError: true },
    ],
  },
  { role: "user", content: "And now?" },
];

const REQUEST: Partial<ModelRequest> = {
  system: "Be brief.",
  messages: HISTORY,
  tools: [
    {
      name: "get_weather",
      description: "Weather",
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    },
  ],
  temperature: 0.4,
  maxOutputTokens: 300,
  providerOptions: { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } },
};

describe("fromAiSdk: V3 models (the AI SDK's MockLanguageModelV3)", () => {
  it("maps the request: system, images, reasoning with signatures, tool calls and results, tools, settings, abort signal", async () => {
    const model = v3Model([
      { type: "finish", usage: v3Usage(1, 1), finishReason: { unified: "stop", raw: "end_turn" } },
    ]);
    const controller = new AbortController();
    await drain(fromAiSdk(model), REQUEST, controller.signal);
    const call: LanguageModelV3CallOptions = model.doStreamCalls[0]!;
    expect(call.prompt).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Let me think.", providerOptions: { anthropic: { signature: "sig-1" } } },
          { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque" } } },
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "call_1", toolName: "get_weather", input: { city: "Oslo" } },
          { type: "tool-call", toolCallId: "call_2", toolName: "get_time", input: {} },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_1",
            toolName: "get_weather",
            output: { type: "json", value: { temp: 3 } },
          },
          {
            type: "tool-result",
            toolCallId: "call_2",
            toolName: "get_time",
            output: { type: "error-text", value: "boom" },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "And now?" }] },
    ]);
    expect(call.tools).toEqual([
      { type: "function", name: "get_weather", description: "Weather", inputSchema: REQUEST.tools![0]!.inputSchema },
    ]);
    expect(call.temperature).toBe(0.4);
    expect(call.maxOutputTokens).toBe(300);
    expect(call.providerOptions).toEqual(REQUEST.providerOptions);
    expect(call.abortSignal?.aborted).toBe(false);
    controller.abort();
    expect(call.abortSignal?.aborted).toBe(true);
  });

  it("maps text, reasoning (signature and redacted), tool calls, usage and finish", async () => {
    const model = v3Model([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "r1", modelId: "claude" },
      { type: "reasoning-start", id: "0" },
      { type: "reasoning-delta", id: "0", delta: "Think " },
      { type: "reasoning-delta", id: "0", delta: "hard." },
      { type: "reasoning-delta", id: "0", delta: "", providerMetadata: { anthropic: { signature: "sig-A" } } },
      { type: "reasoning-end", id: "0" },
      { type: "reasoning-start", id: "1", providerMetadata: { anthropic: { redactedData: "secret" } } },
      { type: "reasoning-end", id: "1" },
      { type: "text-start", id: "2" },
      { type: "text-delta", id: "2", delta: "Hello " },
      { type: "text-delta", id: "2", delta: "" },
      { type: "text-delta", id: "2", delta: "world" },
      { type: "text-end", id: "2" },
      { type: "tool-input-start", id: "c1", toolName: "get_weather" },
      { type: "tool-input-delta", id: "c1", delta: '{"city":' },
      { type: "tool-input-end", id: "c1" },
      { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: '{"city":"Oslo"}' },
      { type: "tool-call", toolCallId: "c2", toolName: "get_time", input: "" },
      { type: "tool-call", toolCallId: "", toolName: "broken", input: "{not json" },
      { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: "{}", providerExecuted: true },
      { type: "tool-result", toolCallId: "ws", toolName: "web_search", result: { hits: 1 } },
      { type: "finish", usage: v3Usage(100, 20, 60, 10), finishReason: { unified: "tool-calls", raw: "tool_use" } },
    ]);
    const { events, error } = await drain(fromAiSdk(model));
    expect(error).toBeUndefined();
    const generated = events.find((e) => e.type === "tool_call" && e.name === "broken");
    expect(events).toEqual([
      { type: "thinking_delta", text: "Think " },
      { type: "thinking_delta", text: "hard." },
      { type: "thinking_delta", text: "", signature: "sig-A" },
      { type: "thinking_delta", text: "", signature: "secret", redacted: true },
      { type: "text_delta", text: "Hello " },
      { type: "text_delta", text: "world" },
      { type: "tool_call_start", id: "c1", name: "get_weather" },
      { type: "tool_call_delta", id: "c1", argsDelta: '{"city":' },
      { type: "tool_call", id: "c1", name: "get_weather", args: { city: "Oslo" } },
      { type: "tool_call", id: "c2", name: "get_time", args: {} },
      { type: "tool_call", id: (generated as { id: string }).id, name: "broken", args: "{not json" },
      { type: "usage", inputTokens: 100, outputTokens: 20, cachedInputTokens: 60, cacheWriteInputTokens: 10 },
      { type: "finish", reason: "tool_calls" },
    ]);
    expect((generated as { id: string }).id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it.each([
    ["stop", 0, "stop"],
    ["length", 0, "length"],
    ["content-filter", 0, "content_filter"],
    ["other", 0, "other"],
    ["error", 0, "other"],
    ["stop", 1, "tool_calls"],
    ["length", 1, "length"],
  ] as const)("finish reason %s with %i call(s) → %s", async (unified, calls, expected) => {
    const parts: LanguageModelV3StreamPart[] = [];
    if (calls) parts.push({ type: "tool-call", toolCallId: "c", toolName: "t", input: "{}" });
    parts.push({ type: "finish", usage: v3Usage(1, 1), finishReason: { unified, raw: undefined } });
    const { events } = await drain(fromAiSdk(v3Model(parts)));
    expect(events.at(-1)).toEqual({ type: "finish", reason: expected });
  });

  it("leaves out usage the model does not know, and derives totals from parts", async () => {
    const unknown = await drain(
      fromAiSdk(
        v3Model([
          {
            type: "finish",
            usage: {
              inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: undefined, text: undefined, reasoning: undefined },
            },
            finishReason: { unified: "stop", raw: undefined },
          },
        ]),
      ),
    );
    expect(unknown.events).toEqual([{ type: "finish", reason: "stop" }]);
    const parts = await drain(
      fromAiSdk(
        v3Model([
          {
            type: "finish",
            usage: {
              inputTokens: { total: undefined, noCache: 5, cacheRead: 7, cacheWrite: undefined },
              outputTokens: { total: undefined, text: 3, reasoning: 2 },
            },
            finishReason: { unified: "stop", raw: undefined },
          },
        ]),
      ),
    );
    expect(parts.events[0]).toEqual({
      type: "usage",
      inputTokens: 12,
      outputTokens: 5,
      cachedInputTokens: 7,
      reasoningTokens: 2,
    });
  });

  it("fails with a retryable ProviderError when the stream ends without a finish part", async () => {
    const { events, error } = await drain(
      fromAiSdk(v3Model([{ type: "text-delta", id: "0", delta: "cut" }]), { maxRetries: 0 }),
    );
    expect(events).toEqual([{ type: "text_delta", text: "cut" }]);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it("uses the model's provider as id unless given one", () => {
    expect(fromAiSdk(v3Model([], "openai.chat")).id).toBe("openai.chat");
    expect(fromAiSdk(v3Model([]), { id: "claude" }).id).toBe("claude");
  });

  it("refuses what is not a v2/v3/v4 language model", () => {
    const v1 = {
      specificationVersion: "v1",
      provider: "p",
      modelId: "m",
      doStream: async () => ({ stream: partsStream([]) }),
    };
    expect(() => fromAiSdk(v1 as never)).toThrow(InvalidArgumentError);
    expect(() => fromAiSdk(v1 as never)).toThrow(/specification "v1"/);
    expect(() => fromAiSdk({} as never)).toThrow(InvalidArgumentError);
    expect(() => fromAiSdk(null as never)).toThrow(InvalidArgumentError);
  });
});

describe("fromAiSdk: V2 models", () => {
  function v2Model(parts: LanguageModelV2StreamPart[]): LanguageModelV2 & { calls: unknown[] } {
    const calls: unknown[] = [];
    return {
      specificationVersion: "v2",
      provider: "anthropic.messages",
      modelId: "claude-v2",
      supportedUrls: {},
      calls,
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async (options) => {
        calls.push(options);
        return { stream: partsStream(parts) };
      },
    };
  }

  it("reads V2 flat usage and string finish reasons", async () => {
    const model = v2Model([
      { type: "reasoning-delta", id: "0", delta: "hmm", providerMetadata: { anthropic: { signature: "s" } } },
      { type: "text-delta", id: "1", delta: "Hi" },
      { type: "tool-call", toolCallId: "c1", toolName: "t", input: '{"a":1}' },
      {
        type: "finish",
        usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14, cachedInputTokens: 2 },
        finishReason: "tool-calls",
      },
    ]);
    const { events, error } = await drain(fromAiSdk(model), {
      messages: [{ role: "user", content: [{ type: "image", mediaType: "image/jpeg", data: "AAAA" }] }],
    });
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "thinking_delta", text: "hmm", signature: "s" },
      { type: "text_delta", text: "Hi" },
      { type: "tool_call", id: "c1", name: "t", args: { a: 1 } },
      { type: "usage", inputTokens: 10, outputTokens: 4, cachedInputTokens: 2 },
      { type: "finish", reason: "tool_calls" },
    ]);
    expect((model.calls[0] as { prompt: unknown[] }).prompt).toEqual([
      { role: "user", content: [{ type: "file", mediaType: "image/jpeg", data: "AAAA" }] },
    ]);
  });

  it("maps V2's 'unknown' finish reason to other and 'length' to length", async () => {
    const unknown = await drain(
      fromAiSdk(
        v2Model([
          { type: "finish", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: "unknown" },
        ]),
      ),
    );
    expect(unknown.events.at(-1)).toEqual({ type: "finish", reason: "other" });
    const length = await drain(
      fromAiSdk(
        v2Model([
          { type: "finish", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: "length" },
        ]),
      ),
    );
    expect(length.events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });
});

describe("fromAiSdk: V4 models (types only: the V4 runtime package needs Node 22)", () => {
  it("sends V4 file data as { type: 'data' } and reads V4 usage, 'interrupted' and ping parts", async () => {
    const model = v4Model([
      { type: "ping" },
      { type: "reasoning-delta", id: "r", delta: "plan" },
      { type: "reasoning-end", id: "r", providerMetadata: { google: { signature: "g-sig" } } },
      { type: "text-delta", id: "t", delta: "Done" },
      { type: "finish", usage: v3Usage(8, 2, 3), finishReason: { unified: "interrupted", raw: undefined } },
    ]);
    const { events, error } = await drain(fromAiSdk(model), {
      messages: [{ role: "user", content: [{ type: "image", mediaType: "image/png", data: "QUJD" }] }],
    });
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "thinking_delta", text: "plan" },
      { type: "thinking_delta", text: "", signature: "g-sig" },
      { type: "text_delta", text: "Done" },
      { type: "usage", inputTokens: 8, outputTokens: 2, cachedInputTokens: 3 },
      { type: "finish", reason: "other" },
    ]);
    expect(model.calls[0]!.prompt).toEqual([
      { role: "user", content: [{ type: "file", mediaType: "image/png", data: { type: "data", data: "QUJD" } }] },
    ]);
  });

  it("sends thinking signatures back under the model's provider key", async () => {
    const model = v4Model([
      { type: "finish", usage: v3Usage(1, 1), finishReason: { unified: "stop", raw: undefined } },
    ]);
    await drain(fromAiSdk(model), {
      messages: [
        { role: "assistant", content: [{ type: "thinking", text: "t", signature: "s" }] },
        { role: "user", content: "go" },
      ],
    });
    expect(model.calls[0]!.prompt[0]).toEqual({
      role: "assistant",
      content: [{ type: "reasoning", text: "t", providerOptions: { google: { signature: "s" } } }],
    });
  });
});

describe("fromAiSdk: errors", () => {
  const apiError = (
    statusCode: number | undefined,
    body: unknown,
    headers: Record<string, string> = {},
    isRetryable?: boolean,
  ) =>
    new APICallError({
      message: typeof body === "object" && body !== null ? "Bad things" : "Cannot connect to API",
      url: "https://api.example.com/v1/chat",
      requestBodyValues: {},
      ...(statusCode !== undefined && { statusCode }),
      responseHeaders: headers,
      ...(body !== undefined && { responseBody: JSON.stringify(body), data: body }),
      ...(isRetryable !== undefined && { isRetryable }),
    });

  function failing(
    errors: Error[],
    then: LanguageModelV3StreamPart[] = [
      { type: "text-delta", id: "0", delta: "ok" },
      { type: "finish", usage: v3Usage(1, 1), finishReason: { unified: "stop", raw: undefined } },
    ],
  ) {
    let call = 0;
    const model = new MockLanguageModelV3({
      provider: "openai.chat",
      doStream: async () => {
        const error = errors[call++];
        if (error !== undefined) throw error;
        return { stream: partsStream(then) };
      },
    });
    return { model, calls: () => call };
  }

  it("maps an APICallError's status, payload, retry-after and retryability to a ProviderError", async () => {
    const { model } = failing([
      apiError(
        429,
        { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
        { "retry-after": "7" },
      ),
    ]);
    const { events, error } = await drain(fromAiSdk(model, { maxRetries: 0 }));
    expect(events).toEqual([]);
    expect(ProviderError.isInstance(error)).toBe(true);
    const e = error as ProviderError;
    expect(e.name).toBe("ProviderError");
    expect([e.status, e.retryable, e.retryAfterMs, e.provider, e.errorType, e.message]).toEqual([
      429,
      true,
      7000,
      "openai.chat",
      "rate_limit_exceeded",
      "Rate limit reached",
    ]);
    expect(APICallError.isInstance(e.cause)).toBe(true);
  });

  it("never retries a 4xx, nor a permanent error under a retryable status", async () => {
    const notFound = await drain(
      fromAiSdk(
        failing([apiError(404, { error: { message: "no such model", type: "invalid_request_error" } })]).model,
        { maxRetries: 3, retryBaseDelayMs: 1 },
      ),
    );
    expect([(notFound.error as ProviderError).status, (notFound.error as ProviderError).retryable]).toEqual([
      404,
      false,
    ]);
    const quota = failing([apiError(429, { error: { message: "quota", type: "insufficient_quota" } })]);
    const spent = await drain(fromAiSdk(quota.model, { maxRetries: 3, retryBaseDelayMs: 1 }));
    expect((spent.error as ProviderError).retryable).toBe(false);
    expect(quota.calls()).toBe(1);
  });

  it("retries retryable failures before any output (the AI SDK's doStream does not), then succeeds", async () => {
    const { model, calls } = failing([
      apiError(503, { error: { message: "busy" } }),
      apiError(undefined, undefined, {}, true),
    ]);
    const retries: number[] = [];
    const { events, error } = await drain(
      fromAiSdk(model, { maxRetries: 2, retryBaseDelayMs: 1, onRetry: (info) => retries.push(info.error.status ?? 0) }),
    );
    expect(error).toBeUndefined();
    expect(calls()).toBe(3);
    expect(retries).toEqual([503, 0]);
    expect(events.map((e) => e.type)).toEqual(["text_delta", "usage", "finish"]);
  });

  it("a network failure keeps the SDK's isRetryable", async () => {
    const { error } = await drain(
      fromAiSdk(failing([apiError(undefined, undefined, {}, false)]).model, { maxRetries: 0 }),
    );
    expect([
      (error as ProviderError).status,
      (error as ProviderError).retryable,
      (error as ProviderError).message,
    ]).toEqual([undefined, false, "Cannot connect to API"]);
  });

  it("an error part after output fails the stream (no retry, no finish); an overloaded payload is retryable", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        calls++;
        return {
          stream: partsStream<LanguageModelV3StreamPart>([
            { type: "text-delta", id: "0", delta: "partial" },
            { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          ]),
        };
      },
    });
    const { events, error } = await drain(fromAiSdk(model, { maxRetries: 3, retryBaseDelayMs: 1 }));
    expect(events).toEqual([{ type: "text_delta", text: "partial" }]);
    expect([
      (error as ProviderError).message,
      (error as ProviderError).retryable,
      (error as ProviderError).errorType,
    ]).toEqual(["Overloaded", true, "overloaded_error"]);
    expect(calls).toBe(1);
  });

  it("anything else thrown becomes a non-retryable ProviderError with it as cause", async () => {
    const thrown = new TypeError("model bug");
    const { error } = await drain(fromAiSdk(failing([thrown]).model, { maxRetries: 3 }));
    expect(ProviderError.isInstance(error)).toBe(true);
    expect([
      (error as ProviderError).message,
      (error as ProviderError).retryable,
      (error as ProviderError).cause,
    ]).toEqual(["model bug", false, thrown]);
  });

  it("ignores parts that are not objects with a type (hostile stream)", async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: partsStream([
          null,
          42,
          { type: 7 },
          { type: "text-delta", id: "0", delta: "ok" },
          { type: "finish", usage: v3Usage(1, 1), finishReason: { unified: "stop", raw: undefined } },
        ] as never[]),
      }),
    });
    const { events } = await drain(fromAiSdk(model));
    expect(events.map((e) => e.type)).toEqual(["text_delta", "usage", "finish"]);
  });
});

describe("fromAiSdk: abort", () => {
  it("rejects promptly with AbortError mid-stream even when the model ignores abortSignal, and cancels its stream", async () => {
    let cancelled = false;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "text-delta", id: "0", delta: "first" });
          },
          cancel() {
            cancelled = true;
          },
        }),
      }),
    });
    const controller = new AbortController();
    const events: string[] = [];
    let error: unknown;
    try {
      for await (const event of fromAiSdk(model).stream(
        { model: "m", system: "", messages: [], tools: [] },
        { signal: controller.signal },
      )) {
        events.push(event.type);
        controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(events).toEqual(["text_delta"]);
    expect((error as Error).name).toBe("AbortError");
    expect(cancelled).toBe(true);
  });

  it("rejects with AbortError while doStream hangs, and before calling the model when already aborted", async () => {
    let started = 0;
    const model = new MockLanguageModelV3({
      doStream: () => {
        started++;
        return new Promise(() => undefined);
      },
    });
    const controller = new AbortController();
    const pending = drain(fromAiSdk(model), {}, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const { events, error } = await pending;
    expect(events).toEqual([]);
    expect((error as Error).name).toBe("AbortError");
    expect(started).toBe(1);
    const again = await drain(fromAiSdk(model), {}, controller.signal);
    expect((again.error as Error).name).toBe("AbortError");
    expect(started).toBe(1);
  });
});
