import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, MemorySessionStore, type ModelRequest } from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { billingScript } from "./script.js";
import { billingTools } from "./billing.js";

/**
 * Route a scripted model on `request.caller`: which agent asks (`agentId`), at which depth, for
 * which sub-task. No prompt text to sniff, so rewording a prompt does not break the test.
 */
function model(request: ModelRequest): FakeTurn {
  if (request.caller?.agentId === "billing") return billingScript(request);
  const last = request.messages.at(-1)!;
  if (last.role === "user")
    return {
      toolCalls: [
        {
          name: "agents_message",
          args: { agentId: "billing", content: typeof last.content === "string" ? last.content : "" },
        },
      ],
    };
  const reply = last.role === "tool" ? (last.content[0]!.result as { response?: string }) : {};
  return { text: `Billing says: ${reply.response ?? "nothing"}` };
}

describe("routing a scripted model on caller", () => {
  it("scripts two agents of a runtime separately", async () => {
    const provider = createFakeProvider(model);
    const { tools, refunded } = billingTools();
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        {
          agentId: "frontdesk",
          displayName: "Front desk",
          systemPrompt: "You greet customers.",
          agentAllowlist: ["billing"],
        },
        {
          agentId: "billing",
          displayName: "Billing",
          systemPrompt: "You handle billing.",
          toolAllowlist: ["invoices.*"],
        },
      ]),
      store: new MemorySessionStore(),
      providers: { main: provider },
      defaultModel: "gpt-4.1-mini",
      tools,
      // The host approves refunds here; without `approve` the turn would wait for runtime.resolveApproval.
      approve: async () => ({ approved: true }),
    });

    const result = await runtime.send({ agentId: "frontdesk", content: "Please refund invoice 42." });

    expect(result.text).toBe("Billing says: Refunded invoice 42.");
    expect(refunded).toEqual(["42"]);
    expect(provider.calls.map((call) => call.caller?.agentId)).toEqual([
      "frontdesk",
      "billing",
      "billing",
      "billing",
      "frontdesk",
    ]);
    expect(provider.calls.every((call) => call.caller?.depth === 0)).toBe(true);
  });
});
