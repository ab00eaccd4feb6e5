import type { ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";

/**
 * A scripted billing model. It reads only what every transport shows alike (messages, tool
 * names as defined, tool results as values), so it plays the same on `createFakeProvider` and
 * on the fake OpenAI and Anthropic servers.
 */
export function billingScript(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "user") {
    const number = /\d+/.exec(typeof last.content === "string" ? last.content : "")?.[0] ?? "0";
    return { toolCalls: [{ name: "invoices.find", args: { number } }], usage: { inputTokens: 120, outputTokens: 18 } };
  }
  if (last.role !== "tool") return { text: "I lost track." };
  const [result] = last.content;
  if (result?.name === "invoices.find") {
    const invoice = result.result as { number: string; status: string };
    return invoice.status === "paid"
      ? {
          text: "It is paid; refunding it.",
          toolCalls: [{ name: "invoices.refund", args: { number: invoice.number } }],
          usage: { inputTokens: 180, outputTokens: 22 },
        }
      : { text: `Invoice ${invoice.number} is ${invoice.status}; nothing to refund.` };
  }
  // A denied call's result is an error text (Chat Completions has no `isError` to read).
  return typeof result?.result === "string"
    ? { text: `The refund was not done: ${result.result}` }
    : {
        text: `Refunded invoice ${(result?.result as { refunded: string }).refunded}.`,
        usage: { inputTokens: 230, outputTokens: 9 },
      };
}
