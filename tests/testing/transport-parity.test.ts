import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type ModelRequest, type Provider } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import {
  collectEvents,
  createFakeAnthropicServer,
  createFakeOpenAIServer,
  createFakeProvider,
  createFakeResponsesServer,
  eventsOfType,
  type FakeCallInfo,
  type FakeScript,
  type FakeServer,
  type FakeTurn,
} from "@agentry/core/testing";

const ticketsGet = defineTool({
  name: "tickets.get",
  description: "Read a ticket",
  input: z.object({ id: z.number() }),
  execute: ({ id }) => ({ id, title: "Login fails", status: "done" }),
});
const ticketsClose = defineTool({
  name: "tickets.close",
  description: "Close a ticket",
  input: z.object({ id: z.number() }),
  requiresApproval: true,
  execute: ({ id }) => ({ closed: id }),
});

const SUBTASK = "Summarise ticket 7 in one line.";

/**
 * One script for every transport. It routes on content only (the HTTP servers never see
 * `caller`), and branches on what the issue says used to differ: the dotted tool name and the
 * tool result as a value.
 */
function script(seen: { request: ModelRequest; info: FakeCallInfo }[]): FakeScript {
  return (request, _callIndex, info): FakeTurn => {
    seen.push({ request, info });
    const last = request.messages.at(-1)!;
    const result = last.role === "tool" ? last.content[0]! : undefined;
    if (request.messages[0]!.content === SUBTASK) {
      if (!result) return { toolCalls: [{ name: "tickets.get", args: { id: 7 } }] };
      const ticket = result.result as { title?: string; status?: string };
      return { text: `#7 ${ticket.title ?? "?"} (${ticket.status ?? "?"})` };
    }
    if (!result) return { toolCalls: [{ name: "tickets.get", args: { id: 7 } }] };
    if (result.name === "tickets.get" && (result.result as { status?: string }).status === "done") {
      return { toolCalls: [{ name: "run_subtask", args: { title: "Summary", instructions: SUBTASK } }] };
    }
    if (result.name === "run_subtask") return { toolCalls: [{ name: "tickets.close", args: { id: 7 } }] };
    if (result.name === "tickets.close" && (result.result as { closed?: number }).closed === 7)
      return { text: "Closed ticket 7." };
    return { text: `unexpected: ${JSON.stringify(result)}` };
  };
}

type Transport = (script: FakeScript) => Promise<{ provider: Provider; server?: FakeServer }>;
const transports: [string, Transport][] = [
  ["fake provider", async (s) => ({ provider: createFakeProvider(s) })],
  [
    "fake OpenAI server",
    async (s) => {
      const server = await createFakeOpenAIServer(s, { tools: [ticketsGet, ticketsClose] });
      return { server, provider: openai({ baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
  [
    "fake Responses server",
    async (s) => {
      const server = await createFakeResponsesServer(s, { tools: [ticketsGet, ticketsClose] });
      return { server, provider: openai({ api: "responses", baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
  [
    "fake Anthropic server",
    async (s) => {
      const server = await createFakeAnthropicServer(s, { tools: [ticketsGet, ticketsClose] });
      return { server, provider: anthropic({ baseURL: server.baseURL, apiKey: "test" }) };
    },
  ],
];

async function runOn(transport: Transport) {
  const seen: { request: ModelRequest; info: FakeCallInfo }[] = [];
  const { provider, server } = await transport(script(seen));
  try {
    const approvals: string[] = [];
    const { events, result } = await collectEvents(
      runUnifiedAgentLoop({
        provider,
        model: "m",
        systemPrompt: "You manage tickets.",
        history: [{ role: "user", content: "Close ticket 7 if it is done." }],
        tools: [ticketsGet, ticketsClose],
        approve: async (request) => (approvals.push(request.name), { approved: true }),
      }),
    );
    const calls = eventsOfType(events, "tool_call_update")
      .filter((e) => e.status === "end")
      .map((e) => ({ depth: e.depth, name: e.name, result: e.result, isError: e.isError ?? false }));
    // What the script was shown, minus what only the in-process request has (caller, message metadata).
    const views = seen.map(({ request }) => ({
      system: request.system,
      tools: request.tools.map((tool) => tool.name),
      messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    }));
    return { status: result?.status, text: result?.text, calls, approvals, views, seen };
  } finally {
    await server?.close();
  }
}

describe("one script, four transports", () => {
  it("plays the same run on the fake provider and the fake OpenAI, Responses and Anthropic servers", async () => {
    const [fake, ...servers] = await Promise.all(transports.map(([, transport]) => runOn(transport)));
    expect(fake!.status).toBe("complete");
    expect(fake!.text).toBe("Closed ticket 7.");
    expect(fake!.approvals).toEqual(["tickets.close"]);
    expect(fake!.calls).toEqual([
      { depth: 0, name: "tickets.get", result: { id: 7, title: "Login fails", status: "done" }, isError: false },
      { depth: 1, name: "tickets.get", result: { id: 7, title: "Login fails", status: "done" }, isError: false },
      { depth: 0, name: "run_subtask", result: "#7 Login fails (done)", isError: false },
      { depth: 0, name: "tickets.close", result: { closed: 7 }, isError: false },
    ]);
    const outcome = (run: Awaited<ReturnType<typeof runOn>>) => ({
      status: run.status,
      text: run.text,
      calls: run.calls,
      approvals: run.approvals,
    });
    for (const [i, run] of servers.entries()) {
      const name = transports[i + 1]![0];
      expect({ name, ...outcome(run) }).toEqual({ name, ...outcome(fake!) });
      expect(run.views).toEqual(fake!.views);
    }
  });

  it("hands a function script the raw wire body beside the request", async () => {
    const [fake, chat, responses, messages] = await Promise.all(transports.map(([, transport]) => runOn(transport)));
    expect(fake!.seen[0]!.info).toEqual({ transport: "provider" });
    expect(chat!.seen[0]!.info).toMatchObject({
      transport: "openai",
      raw: { model: "m", tools: [{ function: { name: "tickets_get" } }, expect.anything(), expect.anything()] },
    });
    expect(responses!.seen[0]!.info).toMatchObject({
      transport: "responses",
      raw: {
        model: "m",
        instructions: "You manage tickets.",
        tools: [{ type: "function", name: "tickets_get" }, expect.anything(), expect.anything()],
      },
    });
    expect(messages!.seen[0]!.info).toMatchObject({
      transport: "anthropic",
      raw: { model: "m", system: "You manage tickets." },
    });
    // The wire carries the vendor-safe name; the script sees the name as defined.
    expect(chat!.seen[0]!.request.tools.map((tool) => tool.name)).toContain("tickets.get");
    expect(chat!.seen[0]!.request.caller).toBeUndefined();
    expect(fake!.seen[0]!.request.caller).toEqual({ depth: 0, parentId: null });
  });
});
