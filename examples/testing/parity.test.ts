import { describe, expect, it } from "vitest";
import type { Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeProvider,
  createFakeResponsesServer,
  type FakeServer,
} from "@agentry/core/testing";
import { askBilling, billingTools } from "./billing.js";
import { billingScript } from "./script.js";

/**
 * One script, four transports: in process, and over real HTTP through the OpenAI (Chat
 * Completions and Responses) and Anthropic adapters (wire encoding, streaming, tool-name mapping:
 * `invoices.find` travels as `invoices_find`). The script sees the same requests on all four, so
 * the runs are the same.
 */
const transports: [string, () => Promise<{ provider: Provider; server?: FakeServer }>][] = [
  ["createFakeProvider", async () => ({ provider: createFakeProvider(billingScript) })],
  [
    "fake OpenAI server",
    async () => {
      const server = await createFakeOpenAIServer(billingScript, { tools: billingTools().tools });
      return { server, provider: openai({ baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
  [
    "fake Responses server",
    async () => {
      const server = await createFakeResponsesServer(billingScript, { tools: billingTools().tools });
      return { server, provider: openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
  [
    "fake Anthropic server",
    async () => {
      const server = await createFakeAnthropicServer(billingScript, { tools: billingTools().tools });
      return { server, provider: anthropic({ baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
];

describe.each(transports)("the billing agent on %s", (_name, start) => {
  it.each([
    [true, "Refunded invoice 42.", ["42"]],
    [false, "The refund was not done", []],
  ])("approve %s", async (approve, text, refunds) => {
    const { provider, server } = await start();
    try {
      const { result, refunded } = await askBilling(provider, "Please refund invoice 42.", approve);
      expect(result.status).toBe("complete");
      expect(result.text).toContain(text);
      expect(refunded).toEqual(refunds);
    } finally {
      await server?.close();
    }
  });
});
