import { describe, expect, it } from "vitest";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeResponsesServer,
  type FakeServer,
} from "@agentry/core/testing";
import type { Message, Provider } from "@agentry/core";
import { collect } from "./helpers.js";

const setups: [
  string,
  (script: Parameters<typeof createFakeOpenAIServer>[0]) => Promise<{ server: FakeServer; provider: Provider }>,
][] = [
  [
    "OpenAI",
    async (script) => {
      const server = await createFakeOpenAIServer(script);
      return { server, provider: openai({ baseURL: server.baseURL, apiKey: "test", retryBaseDelayMs: 1 }) };
    },
  ],
  [
    "Responses",
    async (script) => {
      const server = await createFakeResponsesServer(script);
      return {
        server,
        provider: openai({ api: "responses", baseURL: server.baseURL, apiKey: "test", retryBaseDelayMs: 1 }),
      };
    },
  ],
  [
    "Anthropic",
    async (script) => {
      const server = await createFakeAnthropicServer(script);
      return { server, provider: anthropic({ baseURL: server.baseURL, apiKey: "test", retryBaseDelayMs: 1 }) };
    },
  ],
];

describe.each(setups)("fake %s server", (format, setup) => {
  it("records the wire bodies and maps them back to the requests the provider was given", async () => {
    const { server, provider } = await setup([
      { thinking: "Need the weather.", toolCalls: [{ id: "call_1", name: "weather", args: { city: "Oslo" } }] },
      { text: "Sunny in Oslo." },
    ]);
    try {
      const first = await collect(provider, {
        system: "Be brief.",
        messages: [{ role: "user", content: "Weather in Oslo?" }],
      });
      const assistant: Message = {
        role: "assistant",
        content: [
          ...first.thinking.map((block) => ({ type: "thinking" as const, ...block })),
          ...first.calls.map((call) => ({ type: "tool_call" as const, ...call })),
        ],
      };
      const messages: Message[] = [
        { role: "user", content: "Weather in Oslo?" },
        assistant,
        { role: "tool", content: [{ type: "tool_result", toolCallId: "call_1", name: "weather", result: "sunny" }] },
      ];
      const second = await collect(provider, { system: "Be brief.", messages });
      expect(second.text).toBe("Sunny in Oslo.");
      expect(server.requests).toHaveLength(2);
      expect(server.calls[1]!.system).toBe("Be brief.");
      // Chat Completions has no field for thinking, so it does not travel back; Anthropic's signed thinking does;
      // the Responses API sends back reasoning items only (a thinking part with their providerMetadata).
      const expected =
        format !== "Anthropic"
          ? { ...assistant, content: assistant.content.filter((part) => part.type !== "thinking") }
          : assistant;
      expect(server.calls[1]!.messages).toEqual([messages[0], expected, messages[2]]);
    } finally {
      await server.close();
    }
  });

  it("lets a function script branch on the request", async () => {
    const { server, provider } = await setup((request) => ({
      text: request.system === "child" ? "from child" : "from parent",
    }));
    try {
      expect((await collect(provider, { system: "child" })).text).toBe("from child");
      expect((await collect(provider, { system: "root" })).text).toBe("from parent");
    } finally {
      await server.close();
    }
  });

  it("answers past the end of the script with a non-retryable error naming the call index", async () => {
    const { server, provider } = await setup([{ text: "only one" }]);
    try {
      await collect(provider);
      const r = await collect(provider);
      expect(r.error).toMatchObject({
        name: "ProviderError",
        retryable: false,
        message: expect.stringContaining("call index 1"),
      });
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("serves a scripted HTTP error with its status, and honours retryable", async () => {
    const { server, provider } = await setup([
      { error: { message: "busy", status: 503, retryable: true } },
      { text: "recovered" },
    ]);
    try {
      const r = await collect(provider);
      expect(r.text).toBe("recovered");
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});

describe("fake servers for a page in a browser (cors)", () => {
  const preflight = (server: FakeServer) =>
    fetch(`${server.baseURL}/chat/completions`, {
      method: "OPTIONS",
      headers: {
        origin: "http://app.test",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });

  it("answers the preflight and lets any origin read the stream when asked to", async () => {
    const server = await createFakeOpenAIServer([{ text: "hi" }], { cors: true });
    try {
      const answer = await preflight(server);
      expect(answer.status).toBe(204);
      expect(answer.headers.get("access-control-allow-origin")).toBe("*");
      expect(answer.headers.get("access-control-allow-methods")).toContain("POST");
      expect(answer.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
      const body = JSON.stringify({ messages: [] });
      const stream = await fetch(`${server.baseURL}/chat/completions`, { method: "POST", body });
      expect(stream.headers.get("access-control-allow-origin")).toBe("*");
      await stream.text();
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("allows no other origin by default", async () => {
    const server = await createFakeAnthropicServer([{ text: "hi" }]);
    try {
      const answer = await preflight(server);
      expect(answer.status).toBe(404);
      expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await server.close();
    }
  });
});

describe("fake Responses server", () => {
  it("hands a function script file parts and reasoning items as the fake provider would", async () => {
    const seen: Message[][] = [];
    const server = await createFakeResponsesServer((request) => (seen.push(request.messages), { text: "ok" }));
    try {
      const item = {
        id: "rs_1",
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Read it." }],
        encrypted_content: "gAAA",
      };
      const messages: Message[] = [
        {
          role: "user",
          content: [
            { type: "text", text: "Summarise" },
            {
              type: "file",
              mediaType: "application/pdf",
              source: { type: "data", data: "JVBERi0xLjQK" },
              filename: "a.pdf",
            },
            { type: "file", mediaType: "application/pdf", source: { type: "file_id", fileId: "file-1" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "Read it.", providerMetadata: { openaiResponses: { item } } },
            { type: "tool_call", id: "call_1", name: "read", args: { page: 1 } },
          ],
        },
        // After the last user message: the current tool-calling sequence, whose reasoning items are sent back.
        { role: "tool", content: [{ type: "tool_result", toolCallId: "call_1", name: "read", result: "Page 1." }] },
      ];
      await collect(openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" }), { messages });
      expect(seen[0]).toEqual(messages);
    } finally {
      await server.close();
    }
  });
});
