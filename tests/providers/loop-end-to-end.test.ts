import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type Message, type ModelRequest, type Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  collectEvents,
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  historyProblems,
  type FakeScript,
  type FakeServer,
  type FakeTurn,
} from "@agentry/core/testing";
import { QUICKSTART_TEST_TIMEOUT_MS, runQuickstart } from "../examples/run-quickstart.js";

const lookup = defineTool({
  name: "lookup",
  description: "Look a city up",
  input: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    await new Promise((r) => setTimeout(r, 5));
    return { city, population: city.length * 1000 };
  },
});

const textOf = (m: Message | undefined) => (m && typeof m.content === "string" ? m.content : "");

/**
 * The root thinks, then fans out two parallel sub-tasks and a direct parallel lookup; each child
 * makes its own lookup; the root answers from the results. Scripted by inspecting the request.
 */
const script: FakeScript = (request: ModelRequest): FakeTurn => {
  const last = request.messages[request.messages.length - 1];
  if (request.system.startsWith("You are a sub-agent")) {
    const city = textOf(request.messages[0]).replace("Look up ", "");
    if (last?.role === "user")
      return {
        toolCalls: [{ id: `child_${city}`, name: "lookup", args: { city } }],
        usage: { inputTokens: 40, outputTokens: 8 },
      };
    return { text: `${city} checked`, usage: { inputTokens: 60, outputTokens: 4 } };
  }
  if (last?.role === "user") {
    return {
      thinking: "Split the work.",
      text: "Checking.",
      toolCalls: [
        { id: "sub_a", name: "run_subtask", args: { title: "A", instructions: "Look up Paris" } },
        { id: "sub_b", name: "run_subtask", args: { title: "B", instructions: "Look up Rome" } },
        { id: "direct", name: "lookup", args: { city: "Oslo" } },
      ],
      usage: { inputTokens: 100, outputTokens: 30 },
    };
  }
  return { text: "Paris, Rome and Oslo are done.", usage: { inputTokens: 200, outputTokens: 10 } };
};

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const adapters: { name: string; make: () => Promise<Provider> }[] = [
  {
    name: "openai() against the fake OpenAI server",
    make: async () => {
      const server = await createFakeOpenAIServer(script);
      servers.push(server);
      return openai({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    },
  },
  {
    name: "anthropic() against the fake Anthropic server",
    make: async () => {
      const server = await createFakeAnthropicServer(script);
      servers.push(server);
      return anthropic({ baseURL: server.baseURL, apiKey: "test", maxRetries: 0 });
    },
  },
];

describe.each(adapters)("the whole loop over HTTP: $name", ({ make }) => {
  it("runs parallel calls and sub-tasks end to end with valid wire histories", async () => {
    const provider = await make();
    const { events, result } = await collectEvents(
      runUnifiedAgentLoop({
        provider,
        model: "fake-model",
        systemPrompt: "You are a city assistant.",
        history: [{ role: "user", content: "Check Paris, Rome and Oslo." }],
        tools: [lookup],
      }),
    );
    expect(result?.status).toBe("complete");
    expect(result?.text).toBe("Paris, Rome and Oslo are done.");
    const rootTool = result!.messages.find((m) => m.role === "tool");
    expect(rootTool).toMatchObject({
      content: [
        { toolCallId: "sub_a", result: "Paris checked" },
        { toolCallId: "sub_b", result: "Rome checked" },
        { toolCallId: "direct", result: { city: "Oslo", population: 4000 } },
      ],
    });
    // Thinking (and, for Anthropic, its signature) and text survive the wire and are kept.
    const first = result!.messages[0]!;
    expect(first.role === "assistant" && first.content.map((p) => p.type)).toEqual([
      "thinking",
      "text",
      "tool_call",
      "tool_call",
      "tool_call",
    ]);
    expect(events.filter((e) => e.type === "tool_call_update" && e.depth === 1 && e.status === "end")).toHaveLength(2);
    expect(result!.usage).toMatchObject({
      llmCalls: 6,
      inputTokens: 100 + 2 * 40 + 2 * 60 + 200,
      outputTokens: 30 + 2 * 8 + 2 * 4 + 10,
    });
    expect(historyProblems([{ role: "user", content: "x" }, ...result!.messages])).toEqual([]);
    // The requests the server saw map back to valid histories, tool results included.
    const server = servers[0]!;
    expect(server.calls).toHaveLength(6);
    for (const call of server.calls) expect(historyProblems(call.messages)).toEqual([]);
    const lastCall = server.calls.find((c) => !c.system.startsWith("You are a sub-agent") && c.messages.length > 1)!;
    expect(lastCall.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(lastCall.tools.map((t) => t.name)).toEqual(["lookup", "run_subtask"]);
  });
});

describe("examples/quickstart.ts with a real provider adapter", () => {
  it("uses openai() when OPENAI_BASE_URL is set", { timeout: QUICKSTART_TEST_TIMEOUT_MS }, async () => {
    const server = await createFakeOpenAIServer((request) => {
      const last = request.messages.at(-1)!;
      return last.role === "tool"
        ? { text: "Lisbon it is." }
        : { toolCalls: [{ name: "get_weather", args: { city: "Lisbon" } }] };
    });
    servers.push(server);
    const out = await runQuickstart({
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: "test",
      OPENAI_MODEL: "fake-model",
    });
    expect(out).toMatch(/Using openai\(\) at http:\/\/127\.0\.0\.1:\d+\/v1, model fake-model\./);
    expect(out).toMatch(/→ get_weather\(\{"city":"Lisbon"\}\)/);
    expect(out).toMatch(/assistant: Lisbon it is\./);
    expect(server.calls[0]!.model).toBe("fake-model");
  });

  it("uses anthropic() when ANTHROPIC_API_KEY is set", { timeout: QUICKSTART_TEST_TIMEOUT_MS }, async () => {
    const server = await createFakeAnthropicServer([{ text: "Oslo, bring a coat." }]);
    servers.push(server);
    const out = await runQuickstart({
      ANTHROPIC_API_KEY: "test",
      ANTHROPIC_BASE_URL: server.baseURL,
      ANTHROPIC_MODEL: "fake-claude",
    });
    expect(out).toMatch(/Using anthropic\(\), model fake-claude\./);
    expect(out).toMatch(/assistant: Oslo, bring a coat\./);
  });
});
