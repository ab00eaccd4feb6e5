import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  ProviderError,
  type HistoryRecord,
} from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";
import { eventually, multiRuntime } from "./multi-agent-helpers.js";

describe("turn outcomes", () => {
  it("TurnResult.error and error events keep a provider error's code, status, retryable and provider", async () => {
    const { runtime, events } = makeRuntime([
      {
        error: new ProviderError("bad request", {
          provider: "openai",
          status: 400,
          errorType: "invalid_request_error",
        }),
      },
      { error: new ProviderError("bad key", { provider: "openai", status: 401, errorType: "authentication_error" }) },
    ]);
    const first = await runtime.send({ agentId: "general", content: "one" });
    const second = await runtime.send({ agentId: "general", content: "two" });
    expect(first.error).toEqual({
      message: "bad request",
      code: "invalid_request_error",
      status: 400,
      retryable: false,
      provider: "openai",
    });
    expect(second.error).toMatchObject({ status: 401, code: "authentication_error" });
    expect(events.filter((e) => e.type === "error").map((e) => (e as { status?: number }).status)).toEqual([400, 401]);
  });

  it("a turn stopped by a budget persists its execution tree on its end record", async () => {
    const { runtime, store } = makeRuntime(() => ({ toolCalls: [{ name: "todo_add", args: { item: "x" } }] }), {
      budget: { maxTotalLlmCalls: 2 },
    });
    const result = await runtime.send({ agentId: "general", content: "loop" });
    expect(result.status).toBe("budget_exceeded");
    const end = (await store.load(result.sessionId)).at(-1) as HistoryRecord & {
      executionTree?: { nodes: { name: string }[] };
      error?: { reason?: string };
    };
    expect(end.kind).toBe("turn");
    expect(end.executionTree?.nodes.map((n) => n.name)).toEqual(["todo_add", "todo_add"]);
    expect(end.error?.reason).toBe("llm_calls");
  });

  it("a background agent that ends budget_exceeded notifies its parent once", async () => {
    const { runtime, store } = multiRuntime(
      {
        general: (request) => {
          const last = request.messages.at(-1)!;
          if (last.role === "user" && last.content === "go")
            return { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "loop" } }] };
          return { text: "ok" };
        },
        worker: () => ({ toolCalls: [{ name: "todo_add", args: { item: "again" } }] }),
      },
      { budget: { maxTotalLlmCalls: 6 } },
    );
    const parent = await runtime.send({ agentId: "general", content: "go" });
    const notices = async () =>
      (await store.load(parent.sessionId)).filter(
        (r) => r.kind === "message" && JSON.stringify(r.message).includes('ended with status \\"budget_exceeded\\"'),
      );
    await eventually(async () => (await notices()).length > 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await runtime.close();
    expect(await notices()).toHaveLength(1);
  });

  it("chat.provider defaults to openai when several providers are registered", async () => {
    const openai = createFakeProvider([{ text: "from openai" }], { id: "openai" });
    const other = createFakeProvider([], { id: "other" });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "a", displayName: "A" }]),
      store: new MemorySessionStore(),
      providers: { other, openai },
      defaultModel: "m",
    });
    expect((await runtime.send({ agentId: "a", content: "hi" })).text).toBe("from openai");
  });

  it('the prompt lists "Available agents" only when the agent can call agents_message', async () => {
    const provider = createFakeProvider(() => ({ text: "ok" }));
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        { agentId: "talker", displayName: "Talker" },
        { agentId: "mute", displayName: "Mute", toolDenylist: ["agents_message"] },
      ]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "m",
    });
    await runtime.send({ agentId: "talker", content: "hi" });
    await runtime.send({ agentId: "mute", content: "hi" });
    expect(provider.calls[0]!.system).toContain("Available agents");
    expect(provider.calls[1]!.system).not.toContain("Available agents");
  });

  it("after a crash a finished call's stored result is reused; only the call that was running gets the notice", async () => {
    const store = new MemorySessionStore();
    let quickRuns = 0;
    const quick = defineTool({
      name: "quick",
      description: "q",
      input: z.object({}),
      execute: () => (quickRuns++, "quick done"),
    });
    const hang = defineTool({
      name: "hang",
      description: "h",
      input: z.object({}),
      execute: () => new Promise<string>(() => undefined),
    });
    const registry = createAgentRegistry([{ agentId: "a", displayName: "A" }]);
    const first = createAgentRuntime({
      registry,
      store,
      providers: {
        fake: createFakeProvider([
          {
            toolCalls: [
              { id: "q1", name: "quick", args: {} },
              { id: "h1", name: "hang", args: {} },
            ],
          },
        ]),
      },
      defaultModel: "m",
      tools: [quick, hang],
    });
    // The first runtime "dies" with `hang` running: it is simply never heard of again.
    void first.send({ agentId: "a", content: "work" });
    await eventually(async () => {
      const [session] = await store.listSessions();
      return session !== undefined && (await store.load(session.sessionId)).some((r) => r.kind === "tool_result");
    });
    const provider = createFakeProvider([{ text: "recovered" }]);
    const second = createAgentRuntime({
      registry,
      store,
      providers: { fake: provider },
      defaultModel: "m",
      tools: [quick, hang],
    });
    const result = await second.send({ agentId: "a", content: "still there?" });
    expect(result.text).toBe("recovered");
    const sent = provider.calls[0]!.messages;
    expect(historyProblems(sent)).toEqual([]);
    const tool = sent.find((m) => m.role === "tool")!;
    expect(tool.content).toEqual([
      { type: "tool_result", toolCallId: "q1", name: "quick", result: "quick done" },
      expect.objectContaining({
        toolCallId: "h1",
        isError: true,
        result: expect.stringMatching(/may or may not have taken effect/),
      }),
    ]);
    expect(quickRuns).toBe(1);
  });

  it("breaking out of stream() does not stop the turn; aborting its signal does", async () => {
    const { runtime, store } = makeRuntime([
      { text: "first answer", delayMs: 20 },
      { text: "never", delayMs: 5_000 },
    ]);
    let sessionId = "";
    for await (const event of runtime.stream({ agentId: "general", content: "hi" })) {
      sessionId = event.sessionId;
      break;
    }
    await eventually(async () => (await store.load(sessionId)).some((r) => r.kind === "turn" && r.phase === "end"));
    const records = await store.load(sessionId);
    expect(records.at(-1)).toMatchObject({ kind: "turn", phase: "end", status: "complete" });
    const controller = new AbortController();
    const stopped = runtime.send({ agentId: "general", content: "again", signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await stopped).status).toBe("aborted");
  });
});
