import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { InvalidArgumentError, runUnifiedAgentLoop, type Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  collectEvents,
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  type FakeScript,
  type FakeServer,
} from "@agentry/core/testing";
import { collect, startServer, type TestServer } from "./helpers.js";

const encoder = new TextEncoder();
let servers: (TestServer | FakeServer)[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/** One batch of deltas in each wire format (about 64 KiB), repeated for ever by {@link endlessServer}. */
const BATCHES: Record<"openai" | "anthropic", { head: string; batch: string }> = {
  openai: {
    head: "",
    batch:
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "x".repeat(1000) }, finish_reason: null }] })}\n\n`.repeat(
        64,
      ),
  },
  anthropic: {
    head:
      `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { usage: { input_tokens: 1 } } })}\n\n` +
      `event: content_block_start\ndata: ${JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })}\n\n`,
    batch:
      `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x".repeat(1000) } })}\n\n`.repeat(
        64,
      ),
  },
};

/** A server that streams deltas at full speed and never finishes; counts the connections the client closed. */
async function endlessServer(format: "openai" | "anthropic") {
  const state = { closed: 0 };
  const { head, batch } = BATCHES[format];
  const bytes = encoder.encode(batch);
  const server = await startServer(async (_request, response: ServerResponse) => {
    let open = true;
    response.on("close", () => {
      open = false;
      state.closed++;
    });
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(head);
    while (open) {
      if (!response.write(bytes))
        await new Promise((resolve) => response.once("drain", resolve).once("close", resolve));
    }
  });
  servers.push(server);
  return Object.assign(state, { server });
}

const adapters: [
  name: "openai" | "anthropic",
  make: (baseURL: string, options?: { maxResponseBytes?: number }) => Provider,
  suffix: string,
][] = [
  [
    "openai",
    (baseURL, options) => openai({ apiKey: "k", baseURL, maxRetries: 2, retryBaseDelayMs: 1, ...options }),
    "/v1",
  ],
  [
    "anthropic",
    (baseURL, options) => anthropic({ apiKey: "k", baseURL, maxRetries: 2, retryBaseDelayMs: 1, ...options }),
    "",
  ],
];

describe("maxResponseBytes", () => {
  it.each(adapters)(
    "%s: a server streaming deltas for ever fails the call with a non-retryable ProviderError and is cut off",
    async (name, make, suffix) => {
      const wire = await endlessServer(name);
      const r = await collect(make(`${wire.server.url}${suffix}`, { maxResponseBytes: 1024 * 1024 }));
      expect(r.error).toMatchObject({
        name: "ProviderError",
        provider: name,
        retryable: false,
        errorType: "response_too_large",
      });
      expect((r.error as Error).message).toContain("maxResponseBytes (1048576 bytes)");
      expect(r.text.length).toBeLessThanOrEqual(1024 * 1024);
      expect(r.finishes).toEqual([]);
      expect(wire.server.requests).toHaveLength(1); // not retried
      for (let i = 0; i < 200 && wire.closed < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(wire.closed).toBe(1);
    },
  );

  it("defaults to 64 MiB", async () => {
    const wire = await endlessServer("openai");
    const r = await collect(openai({ apiKey: "k", baseURL: `${wire.server.url}/v1`, maxRetries: 0 }));
    expect(r.error).toMatchObject({ errorType: "response_too_large" });
    expect((r.error as Error).message).toContain("maxResponseBytes (67108864 bytes)");
  });

  it("through the loop: the turn ends with status error and the reason, not a crash", async () => {
    const wire = await endlessServer("openai");
    const provider = openai({ apiKey: "k", baseURL: `${wire.server.url}/v1`, maxResponseBytes: 1024 * 1024 });
    const { result } = await collectEvents(
      runUnifiedAgentLoop({
        provider,
        model: "m",
        systemPrompt: "",
        history: [{ role: "user", content: "hi" }],
        tools: [],
      }),
    );
    expect(result).toMatchObject({
      status: "error",
      error: { code: "response_too_large", retryable: false, provider: "openai" },
    });
  });

  it.each([0, -1, Number.NaN])("rejects maxResponseBytes %s before any request", (maxResponseBytes) => {
    expect(() => openai({ maxResponseBytes })).toThrow(InvalidArgumentError);
    expect(() => anthropic({ maxResponseBytes })).toThrow(/maxResponseBytes must be a positive number/);
  });
});

describe("maxOutputTokens sanity", () => {
  const servers_: [string, (script: FakeScript) => Promise<FakeServer>, (server: FakeServer) => Provider][] = [
    ["openai", createFakeOpenAIServer, (server) => openai({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 })],
    [
      "anthropic",
      createFakeAnthropicServer,
      (server) => anthropic({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 }),
    ],
  ];
  // maxOutputTokens 10: at most 10 × 32 + 1024 = 1344 characters of text and tool-call arguments.
  const words = (chars: number) => "word ".repeat(chars / 5);

  it.each(servers_)(
    "%s: more text than maxOutputTokens can hold fails the call (output_too_large, not retryable)",
    async (name, start, make) => {
      const server = await start([{ text: words(1400) }]);
      servers.push(server);
      const r = await collect(make(server), { maxOutputTokens: 10 });
      expect(r.error).toMatchObject({
        name: "ProviderError",
        provider: name,
        retryable: false,
        errorType: "output_too_large",
      });
      expect((r.error as Error).message).toContain("maxOutputTokens (10)");
      expect(r.finishes).toEqual([]);
    },
  );

  it.each(servers_)("%s: so do tool-call arguments", async (_name, start, make) => {
    const server = await start([{ toolCalls: [{ name: "t", args: { text: "y".repeat(1400) } }] }]);
    servers.push(server);
    const r = await collect(make(server), { maxOutputTokens: 10 });
    expect(r.error).toMatchObject({ errorType: "output_too_large" });
    expect(r.calls).toEqual([]);
  });

  it.each(servers_)(
    "%s: within the limit, or without maxOutputTokens, the response is whole",
    async (_name, start, make) => {
      const server = await start([{ text: words(1300) }, { text: words(1500) }]);
      servers.push(server);
      const within = await collect(make(server), { maxOutputTokens: 10 });
      expect(within.error).toBeUndefined();
      expect(within.text).toBe(words(1300));
      const unset = await collect(make(server));
      expect(unset.error).toBeUndefined();
      expect(unset.text).toBe(words(1500));
    },
  );
});

describe("tool-call arguments nested too deep", () => {
  const deepText = `{"item":${"[".repeat(5000)}${"]".repeat(5000)}}`;
  it.each([
    [
      "openai",
      createFakeOpenAIServer,
      (server: FakeServer) => openai({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 }),
    ],
    [
      "anthropic",
      createFakeAnthropicServer,
      (server: FakeServer) => anthropic({ apiKey: "k", baseURL: server.baseURL, maxRetries: 0 }),
    ],
  ] as const)(
    "%s: are handed over as their raw text, never parsed into a value nothing can store",
    async (_name, start, make) => {
      const server = await start([
        {
          toolCalls: [
            { id: "c1", name: "todo_add", args: deepText },
            { id: "c2", name: "todo_add", args: { item: [[1]] } },
          ],
        },
      ]);
      servers.push(server);
      const r = await collect(make(server));
      expect(r.error).toBeUndefined();
      expect(r.calls.map((c) => c.args)).toEqual([deepText, { item: [[1]] }]);
    },
  );
});

describe("the end marker ends the response", () => {
  const complete: Record<"openai" | "anthropic", string> = {
    openai:
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }] })}\n\n` +
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
    anthropic: [
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ]
      .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      .join(""),
  };

  it.each(adapters)(
    "%s: a server that keeps the body open after [DONE] / message_stop is not waited on",
    async (name, make, suffix) => {
      let closed = false;
      const server = await startServer((_request, response) => {
        response.on("close", () => (closed = true));
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write(complete[name]); // and never ends
      });
      servers.push(server);
      const r = await collect(make(`${server.url}${suffix}`));
      expect(r.error).toBeUndefined();
      expect(r.text).toBe("Hi");
      expect(r.finishes).toEqual([{ type: "finish", reason: "stop" }]);
      for (let i = 0; i < 200 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(closed).toBe(true);
    },
  );
});
