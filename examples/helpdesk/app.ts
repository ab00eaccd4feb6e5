/**
 * The helpdesk both processes of this example run: a triage agent that hands billing questions to
 * a billing agent (and technical ones to a tech agent), a refund tool that needs a person's
 * approval, and a rule that approves small refunds of one tenant on its own. Sessions live in one
 * SQLite file, so another process (the operator's) sees and decides the same approvals.
 */
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  type AgentRuntime,
  type ModelRequest,
  type ToolContext,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";

/** What the host knows about each message: who is asking, on which plan. Tools and rules read it. */
export interface Ticket {
  tenant: string;
  customer: string;
  plan: "free" | "pro";
}

/** Refunds paid, by the call's idempotency key: a call resumed or retried never pays twice. */
export type Ledger = Map<string, { tenant: string; customer: string; amount: number }>;

export function createHelpdesk(path: string, ledger: Ledger): AgentRuntime<Ticket> {
  const lookupOrder = defineTool({
    name: "lookup_order",
    description: "Look up an order of the customer who is asking",
    permissionClass: "safe",
    input: z.object({ orderId: z.string() }),
    // The tenant comes from the host, never from the model: a model cannot ask for another tenant's order.
    execute: ({ orderId }, ctx: ToolContext<Ticket>) => ({
      orderId,
      tenant: ctx.scope,
      customer: ctx.context?.customer,
      total: 15,
    }),
  });
  const refund = defineTool({
    name: "refund",
    description: "Refund an amount to the customer who is asking",
    permissionClass: "safe",
    input: z.object({ orderId: z.string(), amount: z.number().positive() }),
    requiresApproval: true,
    execute: ({ orderId, amount }, ctx: ToolContext<Ticket>) => {
      if (!ledger.has(ctx.callKey))
        ledger.set(ctx.callKey, { tenant: ctx.scope ?? "", customer: ctx.context?.customer ?? "", amount });
      return `refunded ${amount} for ${orderId}`;
    },
  });
  return createAgentRuntime<Ticket>({
    registry: createAgentRegistry([
      {
        agentId: "triage",
        displayName: "Triage",
        systemPrompt: "You are agent triage.",
        agentAllowlist: ["billing", "tech"],
      },
      { agentId: "billing", displayName: "Billing", systemPrompt: "You are agent billing.", agentAllowlist: [] },
      { agentId: "tech", displayName: "Tech", systemPrompt: "You are agent tech.", agentAllowlist: [] },
    ]),
    store: new SqliteSessionStore({ path }),
    providers: { scripted: createFakeProvider(script) },
    defaultModel: "scripted",
    tools: [lookupOrder, refund],
    // Refunds under 20 for tenant acme need nobody; everything else waits for the operator.
    approve: async (request, info) =>
      request.name === "refund" && info.context?.tenant === "acme" && (request.args as { amount: number }).amount < 20
        ? { approved: true }
        : { suspend: true },
  });
}

const agentOf = (request: ModelRequest) => /You are agent (\w+)\./.exec(request.system)?.[1] ?? "?";

/** The scripted model: triage routes, billing looks the order up and refunds it, each answers with what it got. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const agent = agentOf(request);
  const results = request.messages.flatMap((m) => (m.role === "tool" ? m.content : []));
  if (agent === "triage") {
    if (last.role !== "tool") {
      const text = typeof last.content === "string" ? last.content : "";
      const to = /refund|charge|invoice/i.test(text) ? "billing" : "tech";
      return { toolCalls: [{ name: "agents_message", args: { agentId: to, content: text } }] };
    }
    const answer = results.at(-1)!;
    const reply = answer.isError ? String(answer.result) : (answer.result as { response: string }).response;
    return { text: `Helpdesk: ${reply}` };
  }
  if (agent === "billing") {
    if (results.length === 0) return { toolCalls: [{ name: "lookup_order", args: { orderId: "A-7" } }] };
    if (results.length === 1) return { toolCalls: [{ name: "refund", args: { orderId: "A-7", amount: 15 } }] };
    const outcome = results.at(-1)!;
    return {
      text: outcome.isError
        ? `I could not refund order A-7 (${String(outcome.result)}).`
        : `Order A-7: ${String(outcome.result)}.`,
    };
  }
  return { text: "Have you tried turning it off and on again?" };
}
