import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, MemorySessionStore } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { multiRuntime, toolResultOf } from "./multi-agent-helpers.js";

describe("ModelRequest.caller (runtime)", () => {
  it("names the agent, session, run and role of every request, sub-tasks included", async () => {
    const provider = createFakeProvider((request) => {
      if (request.caller?.depth === 1) return { text: "child" };
      return request.messages.at(-1)!.role === "tool"
        ? { text: "done" }
        : { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "Look", instructions: "look around" } }] };
    });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        { agentId: "builder", displayName: "Builder", role: "actor", systemPrompt: "Build." },
      ]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "fake",
    });
    const result = await runtime.send({ agentId: "builder", content: "build it" });
    expect(result.status).toBe("complete");
    const base = { agentId: "builder", sessionId: result.sessionId, runId: result.runId, role: "actor" };
    expect(provider.calls.map((call) => call.caller)).toEqual([
      { ...base, depth: 0, parentId: null },
      { ...base, depth: 1, parentId: "sub", subtaskTitle: "Look" },
      { ...base, depth: 0, parentId: null },
    ]);
  });

  it("routes a delegated agent's requests by caller.agentId, with no prompt to read", async () => {
    const { runtime, provider } = multiRuntime({
      general: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: String((toolResultOf(request, "agents_message") as { response?: unknown }).response) }
          : { toolCalls: [{ name: "agents_message", args: { agentId: "todo", content: "hi" } }] },
      todo: () => ({ text: "todo here" }),
    });
    const result = await runtime.send({ agentId: "general", content: "ask todo" });
    expect(result.text).toBe("todo here");
    expect(provider.calls.map((call) => call.caller?.agentId)).toEqual(["general", "todo", "general"]);
    expect(provider.calls[1]!.caller?.sessionId).not.toBe(result.sessionId);
  });
});
