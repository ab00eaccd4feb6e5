import { describe, expect, it } from "vitest";
import { anthropic, ProviderError } from "@agentry/core/anthropic";
import type { Message } from "@agentry/core";
import { collect, sseBody, startServer, textFetch } from "./helpers.js";

const start = (usage: Record<string, number> = { input_tokens: 10, output_tokens: 1 }) => ({
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", content: [], usage },
});
const textBlock = (index: number, text: string) => [
  { type: "content_block_start", index, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index, delta: { type: "text_delta", text } },
  { type: "content_block_stop", index },
];
const end = (stop_reason: string, usage: Record<string, number> = { output_tokens: 5 }) => [
  { type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage },
  { type: "message_stop" },
];

async function run(payloads: unknown[]) {
  const fetch = textFetch(sseBody(payloads, { eventNames: true }));
  return { ...(await collect(anthropic({ apiKey: "k", fetch, maxRetries: 0 }))), fetch };
}

describe("anthropic(): stream", () => {
  it("reports cache reads and writes; inputTokens counts all input", async () => {
    const r = await run([
      start({ input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 1 }),
      ...textBlock(0, "ok"),
      ...end("end_turn", { output_tokens: 9 }),
    ]);
    expect(r.usage).toEqual([
      { type: "usage", inputTokens: 125, outputTokens: 9, cachedInputTokens: 100, cacheWriteInputTokens: 20 },
    ]);
  });

  it("restarts block tracking on a second message_start (spliced proxy streams)", async () => {
    const r = await run([
      start(),
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t_old", name: "f", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a"' } },
      start(),
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t_new", name: "f", input: {} } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":1}' } },
      { type: "content_block_stop", index: 0 },
      ...end("tool_use"),
    ]);
    expect(r.calls).toEqual([{ id: "t_new", name: "f", args: { a: 1 } }]);
  });

  it("ignores unknown events and block types (server tools, citations)", async () => {
    const r = await run([
      start(),
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "s", name: "web_search", input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"q":"x"}' } },
      { type: "content_block_stop", index: 0 },
      { type: "brand_new_event", foo: 1 },
      ...textBlock(1, "done"),
      { type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: {} } },
      ...end("end_turn"),
    ]);
    expect(r.text).toBe("done");
    expect(r.calls).toEqual([]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it("fails with a retryable ProviderError when the stream ends before message_stop", async () => {
    const r = await run([
      start(),
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ]);
    expect(ProviderError.isInstance(r.error)).toBe(true);
    expect((r.error as ProviderError).retryable).toBe(true);
    expect(r.finishes).toEqual([]);
  });

  it("does not retry an error event once output was streamed", async () => {
    const server = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(
        sseBody(
          [
            start(),
            ...textBlock(0, "partial").slice(0, 2),
            { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
          ],
          {
            eventNames: true,
          },
        ),
      );
    });
    try {
      const r = await collect(anthropic({ apiKey: "k", baseURL: server.url, retryBaseDelayMs: 1 }));
      expect(r.text).toBe("partial");
      expect(r.error).toMatchObject({ name: "ProviderError", errorType: "overloaded_error", retryable: true });
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("retries a mid-stream overloaded_error that came before any output", async () => {
    const server = await startServer((_request, response, index) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const payloads =
        index === 0
          ? [start(), { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]
          : [start(), ...textBlock(0, "second try"), ...end("end_turn")];
      response.end(sseBody(payloads, { eventNames: true }));
    });
    try {
      const r = await collect(anthropic({ apiKey: "k", baseURL: server.url, retryBaseDelayMs: 1 }));
      expect(r.error).toBeUndefined();
      expect(r.text).toBe("second try");
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe("anthropic(): request", () => {
  const history: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "Look" },
        { type: "image", mediaType: "image/jpeg", data: "/9j/4AAQ" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "Let me look.", signature: "sig-1" },
        { type: "thinking", text: "", signature: "opaque-redacted", redacted: true },
        { type: "thinking", text: "from another provider" },
        { type: "text", text: "" },
        { type: "tool_call", id: "toolu_1", name: "zoom", args: { level: 2 } },
        { type: "tool_call", id: "toolu_2", name: "crop", args: "not json" },
      ],
    },
    { role: "tool", content: [{ type: "tool_result", toolCallId: "toolu_1", name: "zoom", result: { ok: true } }] },
    {
      role: "tool",
      content: [{ type: "tool_result", toolCallId: "toolu_2", name: "crop", result: "bad args", isError: true }],
    },
    { role: "user", content: "and now?" },
  ];

  it("maps thinking signatures, redacted thinking, images and merged tool results to the wire", async () => {
    const fetch = textFetch(sseBody([start(), ...end("end_turn")], { eventNames: true }));
    await collect(anthropic({ apiKey: "sk-ant", fetch }), {
      model: "claude-x",
      system: "Be careful.",
      messages: history,
      tools: [{ name: "zoom", description: "Zoom in", inputSchema: { type: "object" } }],
      providerOptions: { thinking: { type: "enabled", budget_tokens: 1024 } },
    });
    expect(fetch.bodies[0]).toEqual({
      model: "claude-x",
      max_tokens: 4096,
      stream: true,
      system: "Be careful.",
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [{ name: "zoom", description: "Zoom in", input_schema: { type: "object" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look" },
            { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Let me look.", signature: "sig-1" },
            { type: "redacted_thinking", data: "opaque-redacted" },
            { type: "tool_use", id: "toolu_1", name: "zoom", input: { level: 2 } },
            { type: "tool_use", id: "toolu_2", name: "crop", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: '{"ok":true}' },
            { type: "tool_result", tool_use_id: "toolu_2", content: "bad args", is_error: true },
            { type: "text", text: "and now?" },
          ],
        },
      ],
    });
    const headers = fetch.headers[0]!;
    expect(headers.get("x-api-key")).toBe("sk-ant");
    expect(headers.get("anthropic-version")).toBe("2023-06-01");
  });

  it("sends the thinking it streamed back unchanged on the next turn", async () => {
    const signature = "EvMCCkYICxgCKkCHP2cS";
    const first = await run([
      start(),
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hmm, " } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "weather." } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "redacted_thinking", data: "REDACTED" } },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: "toolu_9", name: "weather", input: {} },
      },
      { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":"Oslo"}' } },
      { type: "content_block_stop", index: 2 },
      ...end("tool_use"),
    ]);
    const assistant: Message = {
      role: "assistant",
      content: [
        ...first.thinking.map((block) => ({ type: "thinking" as const, ...block })),
        ...first.calls.map((c) => ({ type: "tool_call" as const, ...c })),
      ],
    };
    const fetch = textFetch(sseBody([start(), ...end("end_turn")], { eventNames: true }));
    await collect(anthropic({ apiKey: "k", fetch }), {
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        assistant,
        { role: "tool", content: [{ type: "tool_result", toolCallId: "toolu_9", name: "weather", result: "sunny" }] },
      ],
    });
    expect(fetch.bodies[0].messages[1].content).toEqual([
      { type: "thinking", thinking: "Hmm, weather.", signature },
      { type: "redacted_thinking", data: "REDACTED" },
      { type: "tool_use", id: "toolu_9", name: "weather", input: { city: "Oslo" } },
    ]);
  });

  it("uses maxOutputTokens when given and the configured default otherwise", async () => {
    const fetch = textFetch(sseBody([start(), ...end("end_turn")]));
    await collect(anthropic({ apiKey: "k", fetch, defaultMaxTokens: 1000 }), {});
    await collect(anthropic({ apiKey: "k", fetch }), { maxOutputTokens: 50 });
    expect(fetch.bodies.map((body) => body.max_tokens)).toEqual([1000, 50]);
  });
});
