import { describe, expect, it } from "vitest";
import { InvalidArgumentError, type ExternalAgentRequest } from "@agentry/core";
import { multiRuntime, toolResultOf } from "./multi-agent-helpers.js";
import { createAgentRegistry, createAgentRuntime, MemorySessionStore } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

const agents = [
  { agentId: "general", displayName: "General", systemPrompt: "general" },
  { agentId: "helpdesk", displayName: "Helpdesk", description: "A ticket system", type: "external" as const },
];

describe("type: external agents answered by the host's handler", () => {
  it("a delegated agents_message reaches the handler; its answer is the tool result and is stored in the external agent's session", async () => {
    const seen: ExternalAgentRequest[] = [];
    const { runtime, provider, store } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "relayed" }
            : {
                toolCalls: [
                  { name: "agents_message", args: { agentId: "helpdesk", content: "Open a ticket: printer on fire" } },
                ],
              },
      },
      {
        registry: createAgentRegistry([{ ...agents[0]!, agentAllowlist: ["helpdesk"] }, agents[1]!]),
        external: {
          helpdesk: (request) => {
            seen.push(request);
            return { text: "Ticket T-42 opened." };
          },
        },
      },
    );
    const result = await runtime.send({ agentId: "general", content: "please" });
    expect(result.text).toBe("relayed");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      agentId: "helpdesk",
      input: { role: "user", content: "Open a ticket: printer on fire" },
    });
    const answer = toolResultOf(provider.calls.at(-1)!, "agents_message") as { response: string; sessionId: string };
    expect(answer).toMatchObject({ status: "complete", response: "Ticket T-42 opened." });
    expect(seen[0]!.sessionId).toBe(answer.sessionId);
    // The model was called only for the general agent.
    expect(provider.calls.every((call) => call.caller?.agentId === "general")).toBe(true);
    const stored = await store.load(answer.sessionId);
    expect(
      stored.some(
        (r) =>
          r.kind === "message" && r.message.role === "assistant" && JSON.stringify(r.message.content).includes("T-42"),
      ),
    ).toBe(true);
    await runtime.close();
  });

  it("a failing handler ends that turn with status error naming it; the caller's turn goes on", async () => {
    const registry = createAgentRegistry(agents);
    const runtime = createAgentRuntime({
      registry,
      store: new MemorySessionStore(),
      providers: { fake: createFakeProvider([]) },
      defaultModel: "fake",
      external: {
        helpdesk: () => {
          throw new Error("ticket system down");
        },
      },
    });
    const result = await runtime.send({ agentId: "helpdesk", content: "hello" });
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/External agent "helpdesk" failed: ticket system down/);
    await runtime.close();
  });

  it("a handler for an unknown or non-external agent is an InvalidArgumentError at creation", () => {
    const make = (external: Record<string, () => string>) =>
      createAgentRuntime({
        registry: createAgentRegistry(agents),
        store: new MemorySessionStore(),
        providers: {},
        external,
      });
    expect(() => make({ general: () => "x" })).toThrow(InvalidArgumentError);
    expect(() => make({ general: () => "x" })).toThrow(/agent "general" is not type "external"/);
    expect(() => make({ nobody: () => "x" })).toThrow(/external\["nobody"\]: no such agent/);
  });
});
