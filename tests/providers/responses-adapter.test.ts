import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openai, ProviderError } from "@agentry/core/openai";
import { defineTool, runUnifiedAgentLoop, type Message } from "@agentry/core";
import { collectEvents, createFakeResponsesServer, eventsOfType } from "@agentry/core/testing";
import { collect, sseBody, startServer, textFetch } from "./helpers.js";

/** Responses events framed as the API sends them (`event:` and `data:`). */
const body = (events: Record<string, unknown>[]) => sseBody(events, { eventNames: true });
const completed = (usage: Record<string, unknown> | null = null) => ({
  type: "response.completed",
  response: { status: "completed", usage },
});
const textDelta = (delta: string) => ({
  type: "response.output_text.delta",
  item_id: "msg_1",
  output_index: 0,
  content_index: 0,
  delta,
});

async function run(events: Record<string, unknown>[], request: Parameters<typeof collect>[1] = {}) {
  const fetch = textFetch(body(events));
  const result = await collect(openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }), request);
  return { ...result, fetch };
}

describe('openai({ api: "responses" }): the request', () => {
  it("posts to {baseURL}/responses, stateless, with encrypted reasoning asked for and non-strict function tools", async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(body([textDelta("ok"), completed()]));
    });
    try {
      const provider = openai({ api: "responses", apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 0 });
      const tools = [
        {
          name: "get_weather",
          description: "Weather",
          inputSchema: { type: "object", properties: { city: { type: "string" } } },
        },
      ];
      const result = await collect(provider, { system: "Be brief.", tools, maxOutputTokens: 100, temperature: 0.5 });
      expect(result.text).toBe("ok");
      expect(server.requests[0]!.url).toBe("/v1/responses");
      expect(server.requests[0]!.body).toEqual({
        model: "test-model",
        instructions: "Be brief.",
        input: [{ role: "user", content: "hi" }],
        stream: true,
        store: false,
        include: ["reasoning.encrypted_content"],
        tools: [
          {
            type: "function",
            name: "get_weather",
            description: "Weather",
            parameters: tools[0]!.inputSchema,
            strict: false,
          },
        ],
        max_output_tokens: 100,
        temperature: 0.5,
      });
    } finally {
      await server.close();
    }
  });

  it("sends history as items: reasoning items back unchanged and in place, calls by call_id, results as outputs", async () => {
    const item = {
      id: "rs_1",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Plan." }],
      encrypted_content: "gAAA==",
    };
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Look" },
          { type: "image", mediaType: "image/png", data: "iVBO" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "Plan.", providerMetadata: { openaiResponses: { item } } },
          { type: "thinking", text: "another provider's", signature: "sig" },
          { type: "text", text: "Checking " },
          { type: "text", text: "now." },
          { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
        ],
      },
      {
        role: "tool",
        content: [{ type: "tool_result", toolCallId: "call_1", name: "get_weather", result: { temp: 3 } }],
      },
    ];
    const r = await run([textDelta("ok"), completed()], { messages });
    expect(r.fetch.bodies[0].input).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look" },
          { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" },
        ],
      },
      item,
      { role: "assistant", content: "Checking now." },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { type: "function_call_output", call_id: "call_1", output: '{"temp":3}' },
    ]);
  });

  it("drops a reasoning item left last in an assistant message (its call was cut off)", async () => {
    const item = { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "gAAA" };
    const thinking = { type: "thinking" as const, text: "", providerMetadata: { openaiResponses: { item } } };
    const messages: Message[] = [
      { role: "user", content: "Go" },
      { role: "assistant", content: [thinking] },
      { role: "user", content: "Go on" },
      { role: "assistant", content: [thinking, { type: "text", text: "Done." }] },
    ];
    const r = await run([textDelta("ok"), completed()], { messages });
    expect(r.fetch.bodies[0].input).toEqual([
      { role: "user", content: "Go" },
      { role: "user", content: "Go on" },
      item,
      { role: "assistant", content: "Done." },
    ]);
  });

  it("structured output: text.format passes through, and a Chat-style response_format is moved there", async () => {
    const schema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const format = { type: "json_schema", name: "reply", schema, strict: true };
    const direct = await run([textDelta('{"answer":"4"}'), completed()], { providerOptions: { text: { format } } });
    expect(direct.fetch.bodies[0].text).toEqual({ format });
    expect(JSON.parse(direct.text)).toEqual({ answer: "4" });
    const moved = await run([textDelta("{}"), completed()], {
      providerOptions: {
        response_format: { type: "json_schema", json_schema: { name: "reply", schema, strict: true } },
      },
    });
    expect(moved.fetch.bodies[0].text).toEqual({ format });
    expect(moved.fetch.bodies[0]).not.toHaveProperty("response_format");
  });
});

describe('openai({ api: "responses" }): the stream', () => {
  it("reports usage with cached and reasoning tokens", async () => {
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 60 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 25 },
    };
    const r = await run([textDelta("hi"), completed(usage)]);
    expect(r.usage).toEqual([
      { type: "usage", inputTokens: 100, outputTokens: 40, cachedInputTokens: 60, reasoningTokens: 25 },
    ]);
  });

  it("keys parallel calls by item id and emits each when its item is done, in order", async () => {
    const added = (id: string, callId: string, name: string, index: number) => ({
      type: "response.output_item.added",
      output_index: index,
      item: { id, type: "function_call", call_id: callId, name, arguments: "" },
    });
    const args = (id: string, index: number, delta: string) => ({
      type: "response.function_call_arguments.delta",
      item_id: id,
      output_index: index,
      delta,
    });
    const done = (id: string, callId: string, name: string, index: number) => ({
      type: "response.output_item.done",
      output_index: index,
      item: { id, type: "function_call", call_id: callId, name },
    });
    const r = await run([
      { type: "response.output_item.added", output_index: 0, item: { id: "rs_1", type: "reasoning", summary: [] } },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "x" },
      },
      added("fc_a", "call_a", "f", 1),
      added("fc_b", "call_b", "g", 2),
      args("fc_a", 1, '{"x":'),
      args("fc_b", 2, '{"y":2}'),
      args("fc_a", 1, "1}"),
      done("fc_a", "call_a", "f", 1),
      done("fc_b", "call_b", "g", 2),
      completed(),
    ]);
    expect(r.calls).toEqual([
      { id: "call_a", name: "f", args: { x: 1 } },
      { id: "call_b", name: "g", args: { y: 2 } },
    ]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "tool_calls" }]);
  });

  it("response.incomplete (max_output_tokens) finishes as length and drops a call that was not done", async () => {
    const r = await run([
      textDelta("Let me"),
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "f" },
      },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '{"x":' },
      {
        type: "response.incomplete",
        response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
      },
    ]);
    expect(r.calls).toEqual([]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "length" }]);
  });

  it("an error event (fields at the top level) is a ProviderError, retryable by its type", async () => {
    const r = await run([textDelta("partial"), { type: "error", code: "server_error", message: "Something broke" }]);
    expect(ProviderError.isInstance(r.error)).toBe(true);
    expect((r.error as ProviderError).message).toBe("Something broke");
    expect((r.error as ProviderError).retryable).toBe(true);
    expect(r.finishes).toEqual([]);
  });

  it("response.failed alone is a ProviderError with the response's error", async () => {
    const r = await run([
      {
        type: "response.failed",
        response: { status: "failed", error: { code: "rate_limit_exceeded", message: "Slow down" } },
      },
    ]);
    expect((r.error as ProviderError).message).toBe("Slow down");
    expect((r.error as ProviderError).errorType).toBe("rate_limit_exceeded");
  });

  it("a stream that ends without a terminal event is a retryable ProviderError", async () => {
    const r = await run([textDelta("cut")]);
    expect((r.error as ProviderError).retryable).toBe(true);
    expect((r.error as ProviderError).message).toContain("response.completed");
  });

  it("ignores fields of the wrong type and events it does not know", async () => {
    const r = await run([
      { type: "response.output_text.delta", delta: 42 },
      { type: "response.something_new", delta: "x" },
      { type: "response.output_item.done", item: "not an item" },
      textDelta("fine"),
      { type: "response.completed", response: { usage: { input_tokens: "many", output_tokens: -1 } } },
    ]);
    expect(r.text).toBe("fine");
    expect(r.usage).toEqual([{ type: "usage", inputTokens: 0, outputTokens: 0 }]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it("retries an HTTP 429 before any output, like the chat adapter", async () => {
    const server = await startServer((_request, response, index) => {
      if (index === 0) {
        response.writeHead(429, { "content-type": "application/json", "retry-after-ms": "1" });
        response.end(
          JSON.stringify({ error: { message: "Rate limited", type: "requests", code: "rate_limit_exceeded" } }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(body([textDelta("second time"), completed()]));
    });
    try {
      const result = await collect(
        openai({ api: "responses", apiKey: "k", baseURL: server.url, maxRetries: 1, retryBaseDelayMs: 1 }),
      );
      expect(result.text).toBe("second time");
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("applies maxResponseBytes to the Responses stream", async () => {
    const events = Array.from({ length: 200 }, () => textDelta("x".repeat(100)));
    const fetch = textFetch(body([...events, completed()]), 512);
    const result = await collect(
      openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0, maxResponseBytes: 4096 }),
    );
    expect((result.error as ProviderError).errorType).toBe("response_too_large");
  });
});

describe('openai({ api: "responses" }) in the loop', () => {
  const weather = defineTool({
    name: "weather.get",
    description: "Weather for a city",
    input: z.object({ city: z.string() }),
    execute: ({ city }) => ({ city, temp: 3 }),
  });

  it("keeps the reasoning item on the thinking part and sends it back unchanged within the turn, not after it", async () => {
    const server = await createFakeResponsesServer(
      [
        { thinking: "I need the weather.", toolCalls: [{ id: "call_w", name: "weather.get", args: { city: "Oslo" } }] },
        { text: "3 degrees." },
        { text: "You are welcome." },
      ],
      { tools: [weather] },
    );
    try {
      const provider = openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" });
      const first = await collectEvents(
        runUnifiedAgentLoop({
          provider,
          model: "m",
          systemPrompt: "",
          history: [{ role: "user", content: "Weather?" }],
          tools: [weather],
        }),
      );
      expect(first.result?.text).toBe("3 degrees.");
      const item = (server.requests[1] as { input: unknown[] }).input[1];
      expect(item).toEqual({
        id: "rs_fake_0",
        type: "reasoning",
        summary: [{ type: "summary_text", text: "I need the weather." }],
        encrypted_content: "fake-encrypted-0",
      });
      // As a session store keeps it: plain JSON, read back in a later turn.
      const history = JSON.parse(
        JSON.stringify([{ role: "user", content: "Weather?" }, ...first.result!.messages]),
      ) as Message[];
      const thinking = history
        .flatMap((message) => (message.role === "assistant" ? message.content : []))
        .find((part) => part.type === "thinking");
      expect(thinking).toEqual({
        type: "thinking",
        text: "I need the weather.",
        providerMetadata: { openaiResponses: { item } },
      });
      await collectEvents(
        runUnifiedAgentLoop({
          provider,
          model: "m",
          systemPrompt: "",
          history: [...history, { role: "user", content: "Thanks" }],
          tools: [weather],
        }),
      );
      // A later user message starts a new sequence: OpenAI discards earlier turns' reasoning, so it is not sent.
      const later = (server.requests[2] as { input: { type?: string }[] }).input;
      expect(later.filter((entry) => entry.type === "reasoning")).toEqual([]);
      expect(later).toContainEqual({
        type: "function_call",
        call_id: "call_w",
        name: "weather_get",
        arguments: '{"city":"Oslo"}',
      });
    } finally {
      await server.close();
    }
  });

  it("passes reasoning tokens to the loop's usage event", async () => {
    const fetch = textFetch(
      body([
        textDelta("ok"),
        completed({ input_tokens: 10, output_tokens: 8, output_tokens_details: { reasoning_tokens: 5 } }),
      ]),
    );
    const provider = openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 });
    const { events } = await collectEvents(
      runUnifiedAgentLoop({
        provider,
        model: "m",
        systemPrompt: "",
        history: [{ role: "user", content: "hi" }],
        tools: [],
      }),
    );
    expect(eventsOfType(events, "usage")).toMatchObject([{ inputTokens: 10, outputTokens: 8, reasoningTokens: 5 }]);
  });
});
