import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type BudgetLimits,
  type ModelRequest,
  type RuntimeEvent,
} from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

const agentOf = (request: ModelRequest) => request.caller?.agentId ?? "?";

/** Tool results since the last user message of the request. */
function resultsSinceUser(request: ModelRequest): number {
  let count = 0;
  for (let i = request.messages.length - 1; i >= 0 && request.messages[i]!.role !== "user"; i--)
    if (request.messages[i]!.role === "tool") count++;
  return count;
}

/** lead asks helper (sync) `asks` times; helper works `work` model calls per message (one tool call each, then answers). */
function setup(options: { asks: number; work: number; mode?: "sync" | "async"; budget?: Partial<BudgetLimits> }) {
  let worked = 0;
  const work = defineTool({
    name: "work",
    description: "works",
    permissionClass: "safe",
    input: z.object({}),
    execute: () => (worked++, "worked"),
  });
  const provider = createFakeProvider((request): FakeTurn => {
    if (agentOf(request) === "helper")
      return resultsSinceUser(request) < options.work - 1
        ? { toolCalls: [{ name: "work", args: {} }] }
        : { text: "ok" };
    return resultsSinceUser(request) < options.asks
      ? {
          toolCalls: [
            { name: "agents_message", args: { agentId: "helper", content: "work", mode: options.mode ?? "sync" } },
          ],
        }
      : { text: "all done" };
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([
      { agentId: "lead", displayName: "Lead", systemPrompt: "You lead.", agentAllowlist: ["helper"] },
      { agentId: "helper", displayName: "Helper", systemPrompt: "You help." },
    ]),
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [work],
    ...(options.budget && { budget: options.budget }),
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (event) => events.push(event));
  return { runtime, provider, events, worked: () => worked };
}

describe("a delegated turn's budget", () => {
  it("five sync agents_message calls to a helper working 15 calls each stay within the root's 60 model calls", async () => {
    const { runtime, provider, events } = setup({ asks: 5, work: 15 });
    const result = await runtime.send({ agentId: "lead", content: "go" });
    expect(provider.calls.length).toBeLessThanOrEqual(60);
    expect(result.status).toBe("budget_exceeded");
    expect(events.some((e) => e.type === "budget_exceeded" && e.agentId === "helper")).toBe(true);
  });

  it("a sync target's tool calls count against the root's maxTotalToolCalls", async () => {
    const { runtime, worked } = setup({ asks: 2, work: 10, budget: { maxTotalToolCalls: 8 } });
    const result = await runtime.send({ agentId: "lead", content: "go" });
    expect(result.status).toBe("budget_exceeded");
    // The lead's agents_message call is one of the 8.
    expect(worked()).toBe(7);
  });

  it("async agents_message targets get at most the model calls left of the root's 60", async () => {
    const { runtime, provider, events } = setup({ asks: 5, work: 15, mode: "async" });
    await runtime.send({ agentId: "lead", content: "go" });
    await runtime.close();
    expect(provider.calls.length).toBeLessThanOrEqual(60);
    expect(events.some((e) => e.type === "budget_exceeded" && e.agentId === "helper")).toBe(true);
  });

  it("within the budget nothing changes: two sync asks of 3 calls each complete", async () => {
    const { runtime, provider } = setup({ asks: 2, work: 3 });
    const result = await runtime.send({ agentId: "lead", content: "go" });
    expect(result).toMatchObject({ status: "complete", text: "all done" });
    expect(provider.calls).toHaveLength(3 + 2 * 3);
  });
});
