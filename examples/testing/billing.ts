/**
 * The app under test: a billing agent with two tools (one needs approval), run on the bare loop.
 * The tests next to this file drive it three ways: a scripted model routed on `caller`, a
 * cassette of a recorded run, and one script over the fake OpenAI and Anthropic servers.
 */
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type LoopResult, type Provider } from "@agentry/core";
import { collectEvents } from "@agentry/core/testing";

export function billingTools() {
  const refunded: string[] = [];
  const find = defineTool({
    name: "invoices.find",
    description: "Find an invoice by number",
    input: z.object({ number: z.string() }),
    permissionClass: "knowledge",
    execute: ({ number }) => ({ number, amountEur: 120, status: "paid" }),
  });
  const refund = defineTool({
    name: "invoices.refund",
    description: "Refund a paid invoice",
    input: z.object({ number: z.string() }),
    permissionClass: "network",
    requiresApproval: true,
    execute: ({ number }) => (refunded.push(number), { refunded: number }),
  });
  return { tools: [find, refund], refunded };
}

/** One request to the billing agent; `approve` decides the refund. */
export async function askBilling(
  provider: Provider,
  content: string,
  approve = true,
): Promise<{ result: LoopResult; refunded: string[] }> {
  const { tools, refunded } = billingTools();
  const { result } = await collectEvents(
    runUnifiedAgentLoop({
      provider,
      model: "gpt-4.1-mini",
      systemPrompt: "You handle billing questions. Refund only paid invoices.",
      history: [{ role: "user", content }],
      tools,
      // No "subagent" class: this agent does not start sub-tasks.
      policy: { classes: ["knowledge", "network"], workspaceRoot: null, allowedMcpServers: [] },
      approve: async () => (approve ? { approved: true } : { approved: false, reason: "not now" }),
    }),
  );
  return { result: result!, refunded };
}
