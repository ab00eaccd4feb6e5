import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openai } from "@agentry/core/openai";
import { defineTool, runUnifiedAgentLoop, type Message } from "@agentry/core";
import { collectEvents } from "@agentry/core/testing";
import { collect, sseBody, startServer, textFetch } from "./helpers.js";

const KIB = 1024;
const MIB = 1024 * KIB;

const body = (events: Record<string, unknown>[]) => sseBody(events, { eventNames: true });
const reasoning = (id: string, encrypted: string, index: number) => ({
  type: "response.output_item.done",
  output_index: index,
  item: {
    id,
    type: "reasoning",
    summary: [{ type: "summary_text", text: `Plan ${id}.` }],
    encrypted_content: encrypted,
  },
});
const functionCall = (callId: string, index: number) => ({
  type: "response.output_item.done",
  output_index: index,
  item: { id: `fc_${callId}`, type: "function_call", call_id: callId, name: "step", arguments: "{}" },
});
const completed = { type: "response.completed", response: { status: "completed" } };

/**
 * A hostile endpoint: every response brings `items` reasoning items of `itemBytes` of encrypted content each, then
 * a call of the `step` tool, until call `calls`, which answers in text. Records each request body's size in bytes.
 */
async function startHostile(init: { itemBytes: number; items: number; calls: number }) {
  const sizes: number[] = [];
  const server = await startServer((request, response: ServerResponse, index) => {
    sizes.push(Buffer.byteLength(JSON.stringify(request.body)));
    response.writeHead(200, { "content-type": "text/event-stream" });
    if (index >= init.calls) {
      response.end(
        body([{ type: "response.output_text.delta", item_id: "m", output_index: 0, delta: "done" }, completed]),
      );
      return;
    }
    const events = Array.from({ length: init.items }, (_, item) =>
      reasoning(`rs_${index}_${item}`, String(index % 10).repeat(init.itemBytes), item),
    );
    response.end(body([...events, functionCall(`call_${index}`, init.items), completed]));
  });
  return { server, sizes };
}

const step = defineTool({
  name: "step",
  description: "One more step",
  input: z.object({}),
  execute: () => "ok",
});

async function runTurn(baseURL: string) {
  return collectEvents(
    runUnifiedAgentLoop({
      provider: openai({ api: "responses", baseURL, apiKey: "k", maxRetries: 0 }),
      model: "m",
      systemPrompt: "",
      history: [{ role: "user", content: "Go" }],
      tools: [step],
      budget: { maxIterationsPerLevel: 40, maxTotalLlmCalls: 40 },
    }),
  );
}

/** The reasoning items of a Responses request body. */
const reasoningItems = (request: { body: { input: { type?: string }[] } }) =>
  request.body.input.filter((entry) => entry.type === "reasoning") as { id: string; encrypted_content: string }[];

describe('openai({ api: "responses" }): reasoning items a hostile endpoint sends stay bounded', () => {
  it("an item over the per-item cap is kept without its payload and never sent back", async () => {
    // 1 MiB of encrypted content on each of 12 tool-calling responses: 12 MiB re-sent on the last request, before.
    const { server, sizes } = await startHostile({ itemBytes: MIB, items: 1, calls: 12 });
    try {
      const { result } = await runTurn(`${server.url}/v1`);
      expect(result?.status).toBe("complete");
      expect(server.requests).toHaveLength(13);
      expect(Math.max(...sizes)).toBeLessThan(64 * KIB);
      const thinking = result!.messages.flatMap((message) =>
        message.role === "assistant" ? message.content.filter((part) => part.type === "thinking") : [],
      );
      expect(thinking).toHaveLength(12);
      // The summary text stays; the opaque payload does not.
      expect(thinking[0]).toMatchObject({ text: "Plan rs_0_0." });
      expect(thinking[0]!.providerMetadata).toEqual({ openaiResponses: { omittedChars: expect.any(Number) } });
      expect(JSON.stringify(result!.messages).length).toBeLessThan(64 * KIB);
    } finally {
      await server.close();
    }
  });

  it("items under the per-item cap: what one request sends back, and one response keeps, stay within 2 MiB", async () => {
    // Twelve items of 200 KiB a response over 6 tool-calling responses: 14 MiB re-sent on the last request, before.
    const { server, sizes } = await startHostile({ itemBytes: 200 * KIB, items: 12, calls: 6 });
    try {
      const { result } = await runTurn(`${server.url}/v1`);
      expect(result?.status).toBe("complete");
      expect(server.requests).toHaveLength(7);
      expect(Math.max(...sizes)).toBeLessThan(2 * MIB + 64 * KIB);
      // The newest items are the ones sent: the last request ends with the last response's last kept item.
      const last = reasoningItems(server.requests[6]!);
      expect(last.length).toBeGreaterThan(0);
      expect(last.at(-1)!.id).toBe("rs_5_9");
      // One response keeps at most 2 MiB of items: the two past it keep their summary only.
      for (const message of result!.messages.filter((entry) => entry.role === "assistant")) {
        expect(JSON.stringify(message).length).toBeLessThan(2 * MIB + 64 * KIB);
      }
    } finally {
      await server.close();
    }
  });
});

describe('openai({ api: "responses" }): which reasoning items a request sends back', () => {
  const item = (id: string) => ({ id, type: "reasoning", summary: [], encrypted_content: `enc-${id}` });
  const thinking = (id: string) => ({
    type: "thinking" as const,
    text: "",
    providerMetadata: { openaiResponses: { item: item(id) } },
  });
  const call = (id: string) => ({ type: "tool_call" as const, id, name: "step", args: {} });
  const result = (id: string): Message => ({
    role: "tool",
    content: [{ type: "tool_result", toolCallId: id, name: "step", result: "ok" }],
  });
  const answer = (events: Record<string, unknown>[] = []) =>
    textFetch(
      body([...events, { type: "response.output_text.delta", item_id: "m", output_index: 0, delta: "ok" }, completed]),
    );

  it("every item of the current tool-calling sequence, in place; none of an earlier turn", async () => {
    const messages: Message[] = [
      { role: "user", content: "First" },
      { role: "assistant", content: [thinking("rs_old"), call("c0")] },
      result("c0"),
      { role: "assistant", content: [{ type: "text", text: "Done." }] },
      { role: "user", content: "Second" },
      { role: "assistant", content: [thinking("rs_a"), call("c1")] },
      result("c1"),
      { role: "assistant", content: [thinking("rs_b"), call("c2")] },
      result("c2"),
    ];
    const fetch = answer();
    await collect(openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }), { messages });
    const input = fetch.bodies[0].input as Record<string, unknown>[];
    expect(input.filter((entry) => entry.type === "reasoning")).toEqual([item("rs_a"), item("rs_b")]);
    // Each item right before the call it led to; the earlier turn's call stays, without its reasoning.
    expect(input.findIndex((entry) => entry.id === "rs_a") + 1).toBe(
      input.findIndex((entry) => entry.call_id === "c1"),
    );
    expect(input.findIndex((entry) => entry.id === "rs_b") + 1).toBe(
      input.findIndex((entry) => entry.call_id === "c2"),
    );
    expect(input).toContainEqual({ type: "function_call", call_id: "c0", name: "step", arguments: "{}" });
  });

  it("an item stored before the cap existed, over it, is not sent", async () => {
    const big = { ...item("rs_big"), encrypted_content: "x".repeat(300 * KIB) };
    const messages: Message[] = [
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: [{ type: "thinking", text: "", providerMetadata: { openaiResponses: { item: big } } }, call("c1")],
      },
      result("c1"),
    ];
    const fetch = answer();
    await collect(openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }), { messages });
    expect((fetch.bodies[0].input as { type?: string }[]).some((entry) => entry.type === "reasoning")).toBe(false);
  });

  it("an ordinary item comes back on the thinking part as received", async () => {
    const received = { ...item("rs_1"), summary: [{ type: "summary_text", text: "Plan." }] };
    const fetch = answer([{ type: "response.output_item.done", output_index: 0, item: received }]);
    const r = await collect(openai({ api: "responses", apiKey: "k", fetch, maxRetries: 0 }));
    expect(r.events[0]).toEqual({
      type: "thinking_delta",
      text: "",
      providerMetadata: { openaiResponses: { item: received } },
    });
  });
});
