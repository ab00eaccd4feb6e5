import { describe, expect, it } from "vitest";
import { openai, ProviderError } from "@agentry/core/openai";
import type { Message } from "@agentry/core";
import { collect, sseBody, textFetch } from "./helpers.js";

/** A chunk with one choice-0 delta (and optional finish_reason). */
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const call = (c: Record<string, unknown>) => delta({ tool_calls: [c] });
const finish = (reason: string) => delta({}, reason);
const usage = {
  object: "chat.completion.chunk",
  choices: [],
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
};

async function run(payloads: unknown[], options: { done?: boolean } = { done: true }) {
  const fetch = textFetch(sseBody(payloads, options));
  const result = await collect(openai({ apiKey: "k", fetch, maxRetries: 0 }));
  return { ...result, fetch };
}

describe("openai(): tool-call assembly", () => {
  it("assembles interleaved parallel calls by index", async () => {
    const r = await run([
      call({ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }),
      call({ index: 1, id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }),
      call({ index: 0, function: { arguments: '{"x":' } }),
      call({ index: 1, function: { arguments: ":2}" } }),
      call({ index: 0, function: { arguments: "1}" } }),
      finish("tool_calls"),
    ]);
    expect(r.calls).toEqual([
      { id: "a", name: "f", args: { x: 1 } },
      { id: "b", name: "g", args: { y: 2 } },
    ]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "tool_calls" }]);
  });

  it("starts a new call when an index is reused with a different id (Ollama: index 0 for every call)", async () => {
    const r = await run([
      call({ index: 0, id: "a", function: { name: "f", arguments: '{"n":1}' } }),
      call({ index: 0, id: "b", function: { name: "f", arguments: '{"n":2}' } }),
      finish("tool_calls"),
    ]);
    expect(r.calls).toEqual([
      { id: "a", name: "f", args: { n: 1 } },
      { id: "b", name: "f", args: { n: 2 } },
    ]);
  });

  it("keys calls by id when index is missing; an id-less delta continues the last call", async () => {
    const r = await run([
      call({ id: "a", function: { name: "f", arguments: '{"n":' } }),
      call({ function: { arguments: "1}" } }),
      call({ id: "b", function: { name: "g", arguments: "" } }),
      call({ function: { arguments: '{"m":2}' } }),
      finish("tool_calls"),
    ]);
    expect(r.calls).toEqual([
      { id: "a", name: "f", args: { n: 1 } },
      { id: "b", name: "g", args: { m: 2 } },
    ]);
  });

  it("takes a name that arrives late (after an empty name, after the arguments)", async () => {
    const r = await run([
      call({ index: 3, id: "a", type: "function", function: { name: "", arguments: '{"q":' } }),
      call({ index: 3, id: "", type: "", function: { name: "search", arguments: '"x"}' } }),
      call({ index: 3, function: { name: "search", arguments: "" } }),
      finish("tool_calls"),
    ]);
    expect(r.calls).toEqual([{ id: "a", name: "search", args: { q: "x" } }]);
  });

  it("turns empty arguments into {} and passes invalid JSON through as the raw string", async () => {
    const r = await run([
      call({ index: 0, id: "a", function: { name: "noargs", arguments: "" } }),
      call({ index: 1, id: "b", function: { name: "broken", arguments: '{"a": tru' } }),
      finish("tool_calls"),
    ]);
    expect(r.calls).toEqual([
      { id: "a", name: "noargs", args: {} },
      { id: "b", name: "broken", args: '{"a": tru' },
    ]);
  });

  it("reports tool_calls when calls are present even if finish_reason says stop", async () => {
    const r = await run([call({ index: 0, id: "a", function: { name: "f", arguments: "{}" } }), finish("stop")]);
    expect(r.calls).toHaveLength(1);
    expect(r.finishes).toEqual([{ type: "finish", reason: "tool_calls" }]);
  });

  it("never emits a call cut off by finish_reason length", async () => {
    const r = await run([
      delta({ content: "Let me" }),
      call({ index: 0, id: "a", function: { name: "f", arguments: '{"path": "/tm' } }),
      finish("length"),
    ]);
    expect(r.text).toBe("Let me");
    expect(r.calls).toEqual([]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "length" }]);
  });

  it("does not duplicate or reopen a call on empty deltas after finish_reason", async () => {
    const r = await run([
      call({ index: 0, id: "a", function: { name: "f", arguments: "{}" } }),
      finish("tool_calls"),
      call({ index: 0, id: "a", function: { arguments: "" } }),
      usage,
    ]);
    expect(r.calls).toEqual([{ id: "a", name: "f", args: {} }]);
  });

  it("does not close a call early when its partial arguments happen to parse", async () => {
    const r = await run([
      call({ index: 0, id: "a", function: { name: "f", arguments: "[1" } }),
      call({ index: 0, function: { arguments: "]" } }),
      call({ index: 0, function: { arguments: " " } }),
      call({ index: 1, id: "b", function: { name: "g", arguments: "1" } }),
      call({ index: 1, function: { arguments: "2" } }),
      finish("tool_calls"),
    ]);
    expect(r.calls.map((c) => c.args)).toEqual([[1], 12]);
  });

  it("generates an id for a call that never got one", async () => {
    const r = await run([call({ index: 0, function: { name: "f", arguments: "{}" } }), finish("tool_calls")]);
    expect(r.calls[0]!.id).toMatch(/^call_\w+$/);
  });
});

describe("openai(): stream shape", () => {
  it("takes usage from a usage-only final chunk and emits it once, before finish", async () => {
    const r = await run([delta({ role: "assistant", content: "" }), delta({ content: "Hi" }), finish("stop"), usage]);
    expect(r.events).toEqual([
      { type: "text_delta", text: "Hi" },
      { type: "usage", inputTokens: 10, outputTokens: 5 },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("maps content_filter and unknown finish reasons", async () => {
    expect((await run([finish("content_filter")])).finishes).toEqual([{ type: "finish", reason: "content_filter" }]);
    expect((await run([finish("something_new")])).finishes).toEqual([{ type: "finish", reason: "other" }]);
  });

  it("completes at [DONE] even without finish_reason, emitting pending calls", async () => {
    const r = await run([call({ index: 0, id: "a", function: { name: "f", arguments: '{"a":1}' } })]);
    expect(r.calls).toEqual([{ id: "a", name: "f", args: { a: 1 } }]);
    expect(r.finishes).toEqual([{ type: "finish", reason: "tool_calls" }]);
  });

  it("fails with a retryable ProviderError when the stream is cut off (no finish_reason, no [DONE])", async () => {
    const r = await run([delta({ content: "Hel" })], { done: false });
    expect(r.text).toBe("Hel");
    expect(ProviderError.isInstance(r.error)).toBe(true);
    expect((r.error as ProviderError).retryable).toBe(true);
    expect(r.finishes).toEqual([]);
  });

  it("fails on an error object inside a 200 stream after output, with the provider's message", async () => {
    const r = await run([
      delta({ content: "partial" }),
      { error: { message: "boom", type: "server_error", code: null } },
    ]);
    expect(r.text).toBe("partial");
    expect(r.error).toMatchObject({
      name: "ProviderError",
      message: "boom",
      retryable: true,
      errorType: "server_error",
    });
    expect(r.finishes).toEqual([]);
  });

  it("ignores choices other than 0", async () => {
    const r = await run([
      { choices: [{ index: 1, delta: { content: "B" }, finish_reason: null }] },
      delta({ content: "A" }),
      { choices: [{ index: 1, delta: {}, finish_reason: "length" }] },
      finish("stop"),
    ]);
    expect(r.text).toBe("A");
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop" }]);
  });
});

describe("openai(): request", () => {
  const history: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in" },
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "hidden", signature: "sig" },
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "c1", name: "look", args: { at: "image" } },
        { type: "tool_call", id: "c2", name: "bad", args: '{"oops' },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool_result", toolCallId: "c1", name: "look", result: { seen: "a cat" } },
        { type: "tool_result", toolCallId: "c2", name: "bad", result: "invalid JSON", isError: true },
      ],
    },
    { role: "user", content: "thanks" },
  ];

  it("maps system, images, assistant tool calls and tool results to the wire format", async () => {
    const fetch = textFetch(sseBody([finish("stop")], { done: true }));
    await collect(openai({ apiKey: "sk-test", fetch, headers: { "x-extra": "1" } }), {
      model: "gpt-4o",
      system: "Be brief.",
      messages: history,
      tools: [{ name: "look", description: "Look at it", inputSchema: { type: "object", properties: {} } }],
      maxOutputTokens: 100,
      temperature: 0.2,
      providerOptions: { parallel_tool_calls: false },
    });
    expect(fetch.bodies[0]).toEqual({
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 100,
      temperature: 0.2,
      parallel_tool_calls: false,
      tools: [
        {
          type: "function",
          function: { name: "look", description: "Look at it", parameters: { type: "object", properties: {} } },
        },
      ],
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is in" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "c1", type: "function", function: { name: "look", arguments: '{"at":"image"}' } },
            { id: "c2", type: "function", function: { name: "bad", arguments: '{"oops' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: '{"seen":"a cat"}' },
        { role: "tool", tool_call_id: "c2", content: "invalid JSON" },
        { role: "user", content: "thanks" },
      ],
    });
    const headers = fetch.headers[0]!;
    expect(headers.get("authorization")).toBe("Bearer sk-test");
    expect(headers.get("x-extra")).toBe("1");
  });

  it("uses max_tokens for other servers, and no Authorization header without a key", async () => {
    const fetch = textFetch(sseBody([finish("stop")], { done: true }));
    const previous = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await collect(openai({ baseURL: "http://127.0.0.1:1/v1", fetch }), {
        maxOutputTokens: 7,
        messages: [{ role: "user", content: "x" }],
      });
    } finally {
      if (previous !== undefined) process.env.OPENAI_API_KEY = previous;
    }
    expect(fetch.bodies[0].max_tokens).toBe(7);
    expect(fetch.bodies[0].max_completion_tokens).toBeUndefined();
    expect(fetch.headers[0]!.get("authorization")).toBeNull();
  });

  it("reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment", async () => {
    const seen: string[] = [];
    const base = textFetch(sseBody([finish("stop")], { done: true }));
    const fetch = (async (url: string | URL | Request, init?: RequestInit) => {
      seen.push(typeof url === "string" ? url : url instanceof URL ? url.href : url.url);
      return base(url, init);
    }) as typeof globalThis.fetch;
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    process.env.OPENAI_API_KEY = "from-env";
    process.env.OPENAI_BASE_URL = "http://127.0.0.1:1/custom/";
    try {
      await collect(openai({ fetch }));
    } finally {
      for (const [name, value] of [
        ["OPENAI_API_KEY", saved.key],
        ["OPENAI_BASE_URL", saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(seen).toEqual(["http://127.0.0.1:1/custom/chat/completions"]);
    expect(base.headers[0]!.get("authorization")).toBe("Bearer from-env");
  });

  it("fails with the server's message when a 200 answer is JSON instead of a stream", async () => {
    const fetch = (async () =>
      new Response(JSON.stringify({ error: { message: "streaming unsupported", type: "invalid_request_error" } }), {
        status: 200,
        headers: { "content-type": "application/json" },
      })) as typeof globalThis.fetch;
    const r = await collect(openai({ apiKey: "k", fetch, maxRetries: 0 }));
    expect(r.error).toMatchObject({ name: "ProviderError", message: "streaming unsupported" });
  });
});

describe("openai(): sendReasoningContent", () => {
  const messages: Message[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "First " },
        { type: "thinking", text: "", signature: "opaque", redacted: true },
        { type: "thinking", text: "then call." },
        { type: "tool_call", id: "c1", name: "f", args: {} },
      ],
    },
    { role: "tool", content: [{ type: "tool_result", toolCallId: "c1", name: "f", result: "ok" }] },
  ];
  const finishStop = sseBody(
    [{ object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }],
    { done: true },
  );

  it("sends an assistant message's thinking back as reasoning_content when on (redacted blocks aside)", async () => {
    const fetch = textFetch(finishStop);
    await collect(openai({ apiKey: "k", fetch, maxRetries: 0, sendReasoningContent: true }), { messages });
    expect(fetch.bodies[0].messages[1]).toMatchObject({ role: "assistant", reasoning_content: "First then call." });
  });

  it("sends no reasoning_content by default", async () => {
    const fetch = textFetch(finishStop);
    await collect(openai({ apiKey: "k", fetch, maxRetries: 0 }), { messages });
    expect(fetch.bodies[0].messages[1]).not.toHaveProperty("reasoning_content");
  });
});
