import { describe, expect, it } from "vitest";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import type { ModelRequest, Provider, ToolChoice } from "@agentry/core";

type ModelTool = ModelRequest["tools"][number];
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeProvider,
  createFakeResponsesServer,
  type FakeServer,
} from "@agentry/core/testing";
import { collect, sseBody, textFetch } from "./helpers.js";

const TOOLS: ModelTool[] = [
  { name: "orders.lookup", description: "Find an order", inputSchema: { type: "object" } },
  { name: "refund", description: "Refund an order", inputSchema: { type: "object" } },
];

/** A minimal finished answer in each wire format, so the adapter's request can be read off the fetch. */
const ANSWERS = {
  chat: sseBody([{ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }], { done: true }),
  responses: sseBody(
    [
      { type: "response.output_text.delta", item_id: "m", output_index: 0, delta: "ok" },
      { type: "response.completed", response: { status: "completed" } },
    ],
    { eventNames: true },
  ),
  anthropic: sseBody(
    [
      { type: "message_start", message: { id: "m", role: "assistant", content: [], usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ],
    { eventNames: true },
  ),
};

const wires: [string, (fetch: typeof globalThis.fetch) => Provider, string, Record<string, unknown>][] = [
  [
    "Chat Completions",
    (fetch) => openai({ apiKey: "k", fetch, maxRetries: 0 }),
    ANSWERS.chat,
    {
      auto: "auto",
      required: "required",
      none: "none",
      named: { type: "function", function: { name: "orders_lookup" } },
    },
  ],
  [
    "Responses",
    (fetch) => openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }),
    ANSWERS.responses,
    { auto: "auto", required: "required", none: "none", named: { type: "function", name: "orders_lookup" } },
  ],
  [
    "Anthropic",
    (fetch) => anthropic({ apiKey: "k", fetch, maxRetries: 0 }),
    ANSWERS.anthropic,
    {
      auto: { type: "auto" },
      required: { type: "any" },
      none: { type: "none" },
      named: { type: "tool", name: "orders_lookup" },
    },
  ],
];

const CHOICES: [string, ToolChoice][] = [
  ["auto", "auto"],
  ["required", "required"],
  ["none", "none"],
  ["named", { name: "orders.lookup" }],
];

describe.each(wires)("%s: toolChoice", (_wire, makeProvider, answer, expected) => {
  it.each(CHOICES)("sends %s in the vendor's form, a dotted name as its wire name", async (key, toolChoice) => {
    const fetch = textFetch(answer);
    const result = await collect(makeProvider(fetch), { tools: TOOLS, toolChoice });
    expect(result.text).toBe("ok");
    expect(fetch.bodies[0].tool_choice).toEqual(expected[key]);
    expect(fetch.bodies[0].tools).toHaveLength(2);
  });

  it("leaves tool_choice out without tools, and when it is not set", async () => {
    const fetch = textFetch(answer);
    await collect(makeProvider(fetch), { tools: [], toolChoice: "required" });
    await collect(makeProvider(fetch), { tools: TOOLS });
    expect(fetch.bodies[0]).not.toHaveProperty("tool_choice");
    expect(fetch.bodies[1]).not.toHaveProperty("tool_choice");
  });

  it("maps a name the request's tools do not hold as any name, without throwing", async () => {
    const fetch = textFetch(answer);
    const result = await collect(makeProvider(fetch), { tools: TOOLS, toolChoice: { name: "not.offered" } });
    expect(result.error).toBeUndefined();
    expect(JSON.stringify(fetch.bodies[0].tool_choice)).toContain('"not_offered"');
  });
});

const servers: [string, () => Promise<{ server: FakeServer; provider: Provider }>][] = [
  [
    "OpenAI",
    async () => {
      const server = await createFakeOpenAIServer(() => ({ text: "ok" }), { tools: TOOLS });
      return { server, provider: openai({ baseURL: server.baseURL, apiKey: "k", maxRetries: 0 }) };
    },
  ],
  [
    "Responses",
    async () => {
      const server = await createFakeResponsesServer(() => ({ text: "ok" }), { tools: TOOLS });
      return { server, provider: openai({ api: "responses", baseURL: server.baseURL, apiKey: "k", maxRetries: 0 }) };
    },
  ],
  [
    "Anthropic",
    async () => {
      const server = await createFakeAnthropicServer(() => ({ text: "ok" }), { tools: TOOLS });
      return { server, provider: anthropic({ baseURL: server.baseURL, apiKey: "k", maxRetries: 0 }) };
    },
  ],
];

describe.each(servers)("fake %s server: toolChoice", (_format, setup) => {
  it("records the tool choice the wire carried, with the tool's defined name", async () => {
    const { server, provider } = await setup();
    try {
      for (const [, toolChoice] of CHOICES) await collect(provider, { tools: TOOLS, toolChoice });
      await collect(provider, { tools: TOOLS });
      expect(server.calls.map((call) => call.toolChoice)).toEqual([
        "auto",
        "required",
        "none",
        { name: "orders.lookup" },
        undefined,
      ]);
      // It is read as the tool choice, not left among the vendor options.
      expect(server.calls.some((call) => call.providerOptions?.tool_choice !== undefined)).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("createFakeProvider: toolChoice", () => {
  it("keeps the tool choice in its copy of each request", async () => {
    const provider = createFakeProvider([{ text: "a" }, { text: "b" }]);
    const choice = { name: "orders.lookup" };
    await collect(provider, { tools: TOOLS, toolChoice: choice });
    await collect(provider, { tools: TOOLS, toolChoice: "none" });
    choice.name = "changed";
    expect(provider.calls.map((call) => call.toolChoice)).toEqual([{ name: "orders.lookup" }, "none"]);
  });
});
