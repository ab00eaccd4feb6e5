import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  MemorySessionStore,
  type ModelEvent,
  type Provider,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { toolResultOf } from "./multi-agent-helpers.js";

/** A backend that runs its own tools, as a CLI agent does: it says how many with its answer. */
const cliLike: Provider = {
  id: "cli",
  async *stream(): AsyncGenerator<ModelEvent> {
    yield { type: "text_delta", text: "Refactored the module." };
    yield { type: "finish", reason: "stop", toolCallCount: 3 };
  },
};

describe("delegating to an agent whose backend runs its own tools (CLI agents)", () => {
  it("reports the backend's own tool count, and counts it in the turn's usage", async () => {
    const general = createFakeProvider((request) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: JSON.stringify(toolResultOf(request, "agents_message")) }
        : { toolCalls: [{ name: "agents_message", args: { agentId: "coder", content: "refactor it" } }] },
    );
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        { agentId: "general", displayName: "General", chat: { provider: "fake" }, agentAllowlist: ["coder"] },
        { agentId: "coder", displayName: "Coder", chat: { provider: "cli" } },
      ]),
      store: new MemorySessionStore(),
      providers: { fake: general, cli: cliLike },
      defaultModel: "m",
    });
    const result = await runtime.send({ agentId: "general", content: "get coder to refactor" });
    expect(JSON.parse(result.text)).toMatchObject({
      status: "complete",
      agentId: "coder",
      response: "Refactored the module.",
      toolCallCount: 3,
    });
    const direct = await runtime.send({ agentId: "coder", content: "again" });
    expect(direct.usage.toolCalls).toBe(3);
    await runtime.close();
  });
});
