import { expectTypeOf, test } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ToolContext,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

interface Helpdesk {
  tenant: string;
  limit: number;
}

test("createAgentRuntime<C> types the context of send, approve, policy and tools", () => {
  const refund = defineTool({
    name: "refund",
    description: "refund",
    input: z.object({ amount: z.number() }),
    execute: ({ amount }, ctx: ToolContext<Helpdesk>) => {
      expectTypeOf(ctx.context).toEqualTypeOf<Helpdesk | undefined>();
      return amount <= (ctx.context?.limit ?? 0);
    },
  });
  const runtime = createAgentRuntime<Helpdesk>({
    registry: createAgentRegistry([]),
    store: new MemorySessionStore(),
    providers: { fake: createFakeProvider([]) },
    tools: [refund],
    approve: async (_request, info) => {
      expectTypeOf(info.context).toEqualTypeOf<Helpdesk | undefined>();
      return { approved: info.context?.tenant === "acme" };
    },
    policy: (_session, _agent, turn) => {
      expectTypeOf(turn.context).toEqualTypeOf<Helpdesk | undefined>();
      return { classes: ["safe"], workspaceRoot: null, allowedMcpServers: [] };
    },
  });
  void runtime.send({ agentId: "a", content: "hi", context: { tenant: "acme", limit: 20 } });
  // @ts-expect-error: the context must be a Helpdesk
  void runtime.send({ agentId: "a", content: "hi", context: { tenant: 1 } });
  // Untyped runtimes take any JSON.
  const plain = createAgentRuntime({
    registry: createAgentRegistry([]),
    store: new MemorySessionStore(),
    providers: {},
  });
  void plain.send({ agentId: "a", content: "hi", context: { anything: [1, "two", null] } });
  // @ts-expect-error: not JSON
  void plain.send({ agentId: "a", content: "hi", context: { at: new Date() } });
});
