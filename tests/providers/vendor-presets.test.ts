import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidArgumentError, type Message } from "@agentry/core";
import { deepseek, minimax, moonshot, zhipu, type OpenAIPresetOptions } from "@agentry/core/openai";
import { createFakeOpenAIServer } from "@agentry/core/testing";
import { collect, sseBody, textFetch } from "./helpers.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

const PRESETS = [
  {
    make: deepseek,
    id: "deepseek",
    url: "https://api.deepseek.com/chat/completions",
    key: "DEEPSEEK_API_KEY",
    field: "max_tokens",
    usage: true,
    reasoning: true,
  },
  {
    make: moonshot,
    id: "moonshot",
    url: "https://api.moonshot.ai/v1/chat/completions",
    key: "MOONSHOT_API_KEY",
    field: "max_tokens",
    usage: true,
    reasoning: true,
  },
  {
    make: zhipu,
    id: "zhipu",
    url: "https://open.bigmodel.cn/api/paas/v4/chat/completions",
    key: "ZHIPUAI_API_KEY",
    field: "max_tokens",
    usage: false,
    reasoning: false,
  },
  {
    make: minimax,
    id: "minimax",
    url: "https://api.minimax.io/v1/chat/completions",
    key: "MINIMAX_API_KEY",
    field: "max_completion_tokens",
    usage: true,
    reasoning: false,
  },
] as const;

const answer = sseBody([{ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }], { done: true });

/** A fetch that records the URL too. */
function recordingFetch() {
  const inner = textFetch(answer);
  const urls: string[] = [];
  const recording: typeof globalThis.fetch = async (url, init) => {
    urls.push(url instanceof Request ? url.url : url.toString());
    return inner(url, init);
  };
  return { fetch: recording, urls, bodies: inner.bodies, headers: inner.headers };
}

describe.each(PRESETS)("$id()", ({ make, id, url, key, field, usage }) => {
  it("calls the vendor's endpoint with the key from its own variable and its request quirks", async () => {
    vi.stubEnv(key, "vendor-key");
    vi.stubEnv("OPENAI_BASE_URL", "https://elsewhere.example/v1");
    const wire = recordingFetch();
    const provider = make({ fetch: wire.fetch, maxRetries: 0 });
    expect(provider.id).toBe(id);
    const result = await collect(provider, { maxOutputTokens: 50 });
    expect(result.text).toBe("ok");
    expect(wire.urls).toEqual([url]);
    expect(wire.headers[0]!.get("authorization")).toBe("Bearer vendor-key");
    expect(wire.bodies[0][field]).toBe(50);
    expect("stream_options" in wire.bodies[0]).toBe(usage);
  });

  it("never sends OPENAI_API_KEY to the vendor: no key is an InvalidArgumentError naming the variable", () => {
    vi.stubEnv(key, "");
    vi.stubEnv("OPENAI_API_KEY", "sk-openai-secret");
    expect(() => make()).toThrow(InvalidArgumentError);
    expect(() => make()).toThrow(key);
  });

  it("takes apiKey, baseURL and id from the options", async () => {
    const wire = recordingFetch();
    const options: OpenAIPresetOptions = {
      apiKey: "given",
      baseURL: "https://proxy.example/v1/",
      id: "mine",
      fetch: wire.fetch,
    };
    const provider = make(options);
    await collect(provider);
    expect(provider.id).toBe("mine");
    expect(wire.urls).toEqual(["https://proxy.example/v1/chat/completions"]);
    expect(wire.headers[0]!.get("authorization")).toBe("Bearer given");
  });
});

describe("presets against the fake OpenAI server", () => {
  it.each(PRESETS)("$id(): thinking goes back as reasoning_content: $reasoning", async ({ make, reasoning }) => {
    const server = await createFakeOpenAIServer([
      { thinking: "Look it up.", toolCalls: [{ id: "call_1", name: "lookup", args: {} }] },
      { text: "Found." },
    ]);
    try {
      const provider = make({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
      const first = await collect(provider);
      const messages: Message[] = [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: first.thinking[0]!.text },
            { type: "tool_call", ...first.calls[0]! },
          ],
        },
        { role: "tool", content: [{ type: "tool_result", toolCallId: "call_1", name: "lookup", result: "x" }] },
      ];
      expect((await collect(provider, { messages })).text).toBe("Found.");
      const assistant = (server.requests[1] as { messages: Record<string, unknown>[] }).messages[1]!;
      expect(assistant.reasoning_content).toBe(reasoning ? "Look it up." : undefined);
    } finally {
      await server.close();
    }
  });

  it.each(PRESETS)(
    "$id(): reasoning_content arrives as thinking, tool calls and usage as from OpenAI",
    async ({ make }) => {
      const server = await createFakeOpenAIServer([
        {
          thinking: "Check the weather.",
          toolCalls: [{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }],
          usage: { inputTokens: 9, outputTokens: 4 },
        },
      ]);
      try {
        const result = await collect(make({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 }));
        expect(result.thinking.map((block) => block.text).join("")).toBe("Check the weather.");
        expect(result.calls).toEqual([{ id: "call_1", name: "get_weather", args: { city: "Oslo" } }]);
        expect(result.usage).toMatchObject([{ inputTokens: 9, outputTokens: 4 }]);
        expect(result.finishes).toEqual([{ type: "finish", reason: "tool_calls" }]);
      } finally {
        await server.close();
      }
    },
  );
});
