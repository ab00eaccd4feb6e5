import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type ModelRequest, type Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  collectEvents,
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeProvider,
  createFakeResponsesServer,
  type FakeScript,
  type FakeServer,
} from "@agentry/core/testing";

const lookup = defineTool({
  name: "orders.lookup",
  description: "Find an order",
  input: z.object({ id: z.string() }),
  execute: ({ id }) => ({ id, status: "shipped" }),
});

/** One script routed on what the wire cannot carry: the caller (depth, agent) and the dotted name as defined. */
function routedScript(seen: ModelRequest[]): FakeScript {
  return (request) => {
    seen.push(request);
    const depth = request.caller?.depth;
    if (depth === undefined) return { text: "no caller: the script fell through" };
    if (depth === 1) return { text: "child done" };
    const last = request.messages.at(-1)!;
    if (last.role !== "tool")
      return request.tools.some((t) => t.name === "orders.lookup")
        ? { toolCalls: [{ name: "orders.lookup", args: { id: "42" } }] }
        : { text: "the first request showed the wire's tool names" };
    if (last.content[0]!.name === "orders.lookup")
      return { toolCalls: [{ name: "run_subtask", args: { title: "T", instructions: "do it" } }] };
    return { text: `done as ${request.caller?.agentId ?? "?"}` };
  };
}

async function run(provider: Provider) {
  return collectEvents(
    runUnifiedAgentLoop({
      provider,
      model: "m",
      systemPrompt: "Be brief.",
      history: [{ role: "user", content: "Where is order 42?" }],
      tools: [lookup],
      agentId: "support",
      sessionId: "s-1",
    }),
  );
}

describe("the fake HTTP servers' side channel (FakeServer.provider)", () => {
  it("one function script sees the same requests through createFakeProvider and every fake server", async () => {
    const direct: ModelRequest[] = [];
    const reference = await run(createFakeProvider(routedScript(direct)));
    expect(reference.result?.text).toBe("done as support");
    const servers: [string, (seen: ModelRequest[]) => Promise<FakeServer>, (server: FakeServer) => Provider][] = [
      [
        "chat",
        (seen) => createFakeOpenAIServer(routedScript(seen)),
        (s) => openai({ baseURL: s.baseURL, apiKey: "k" }),
      ],
      [
        "responses",
        (seen) => createFakeResponsesServer(routedScript(seen)),
        (s) => openai({ baseURL: s.baseURL, apiKey: "k", api: "responses" }),
      ],
      [
        "anthropic",
        (seen) => createFakeAnthropicServer(routedScript(seen)),
        (s) => anthropic({ baseURL: s.baseURL, apiKey: "k" }),
      ],
    ];
    for (const [name, start, make] of servers) {
      const seen: ModelRequest[] = [];
      const server = await start(seen);
      try {
        const { result } = await run(server.provider(make(server)));
        expect({ name, text: result?.text }).toEqual({ name, text: "done as support" });
        expect(seen.map((r) => r.caller)).toEqual(direct.map((r) => r.caller));
        expect(seen.map((r) => r.tools.map((t) => t.name))).toEqual(direct.map((r) => r.tools.map((t) => t.name)));
        expect(server.calls).toEqual(seen);
        // The side channel stays out of what the wire recorded.
        expect(JSON.stringify(server.requests)).not.toContain("agentry_fake_request");
      } finally {
        await server.close();
      }
    }
  });

  it("without it, the wire alone carries no caller (the documented limit)", async () => {
    const seen: ModelRequest[] = [];
    const server = await createFakeOpenAIServer(routedScript(seen));
    try {
      const { result } = await run(openai({ baseURL: server.baseURL, apiKey: "k" }));
      expect(result?.text).toBe("no caller: the script fell through");
    } finally {
      await server.close();
    }
  });
});
