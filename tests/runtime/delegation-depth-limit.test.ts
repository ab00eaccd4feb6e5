import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  type ModelRequest,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

const LIMIT = 64;
const name = (n: number) => `a${n}`;
const agentOf = (request: ModelRequest) => request.caller?.agentId ?? "?";

/** a0 asks a1, ..., a63 asks a64 (64 hops); a64 calls a tool that needs approval; each answers with what it got. */
function chainRuntime(maxDelegationDepth: number) {
  const agents = Array.from({ length: LIMIT + 1 }, (_, n) => ({
    agentId: name(n),
    displayName: name(n),
    systemPrompt: `You are agent ${name(n)}.`,
    ...(n < LIMIT && { agentAllowlist: [name(n + 1)] }),
  }));
  const refund = defineTool({
    name: "refund",
    description: "refund",
    permissionClass: "safe",
    input: z.object({}),
    requiresApproval: true,
    execute: () => "refunded",
  });
  const provider = createFakeProvider((request) => {
    const agent = agentOf(request);
    if (request.messages.at(-1)?.role === "tool") return { text: `${agent} done` };
    const n = Number(agent.slice(1));
    if (n === LIMIT) return { toolCalls: [{ name: "refund", args: {} }] };
    return { toolCalls: [{ name: "agents_message", args: { agentId: name(n + 1), content: "go" } }] };
  });
  return createAgentRuntime({
    registry: createAgentRegistry(agents),
    store: new MemorySessionStore(),
    providers: { fake: provider },
    defaultModel: "fake",
    tools: [refund],
    maxDelegationDepth,
    // The root's limits cover the whole chain (two model calls and a tool call per agent).
    budget: { maxTotalLlmCalls: 200, maxTotalToolCalls: 200 },
  });
}

describe("maxDelegationDepth", () => {
  it(`a chain of ${LIMIT} hops lists its pending approval with the whole chain and delivers to the root`, async () => {
    const runtime = chainRuntime(LIMIT);
    const suspended = await runtime.send({ agentId: "a0", content: "go" });
    expect(suspended.status).toBe("suspended");
    const pending = await runtime.pendingApprovals({ sessionId: suspended.sessionId });
    expect(pending).toHaveLength(1);
    expect(pending[0]!.agentId).toBe(name(LIMIT));
    expect(pending[0]!.chain).toHaveLength(LIMIT);
    const resumed = await runtime.resolveApproval(pending[0]!.requestId, { approved: true });
    expect(resumed).toMatchObject({ status: "complete", sessionId: suspended.sessionId, text: "a0 done" });
    expect(await runtime.pendingApprovals()).toEqual([]);
  });

  it(`above ${LIMIT} (or not a whole number) is refused by createAgentRuntime, naming the maximum`, () => {
    for (const bad of [LIMIT + 1, 1000, -1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(() => chainRuntime(bad)).toThrow(InvalidArgumentError);
      expect(() => chainRuntime(bad)).toThrow(/maxDelegationDepth must be a whole number from 0 to 64/);
    }
  });
});
