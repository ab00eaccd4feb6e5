import { describe, expect, it } from "vitest";
import { InvalidArgumentError, ProviderError, runUnifiedAgentLoop, type Message } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { echo, ofType, run, unmatchedStarts, user } from "./helpers.js";

describe("runUnifiedAgentLoop basics", () => {
  it("answers with one assistant text message and no nested events when the model calls no tools (seed 001 AC 2)", async () => {
    const { events, result } = await run({ script: [{ text: "Hello there, friend." }], tools: [echo] });
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Hello there, friend.");
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]).toMatchObject({
      role: "assistant",
      content: [{ type: "text", text: "Hello there, friend." }],
    });
    expect(events.every((e) => e.depth === 0 && e.parentId === null)).toBe(true);
    expect(ofType(events, "tool_call_update")).toHaveLength(0);
    const chunks = ofType(events, "chunk");
    expect(chunks.map((c) => c.content).join("")).toBe("Hello there, friend.");
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.at(-1)).toMatchObject({ content: "", done: true });
    expect(events.at(-1)?.type).toBe("done");
    expect(ofType(events, "done")).toHaveLength(1);
  });

  it("runs a tool and feeds its result back, with events in order", async () => {
    const { events, result, provider } = await run({
      script: [{ toolCalls: [{ id: "c1", name: "echo", args: { text: "ping" } }] }, { text: "pong" }],
      tools: [echo],
    });
    expect(result.status).toBe("complete");
    expect(result.messages.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
    expect(result.messages[1]).toEqual({
      role: "tool",
      content: [{ type: "tool_result", toolCallId: "c1", name: "echo", result: "ping" }],
      messageType: "tool_result",
    });
    const types = events.map((e) => e.type);
    expect(types.indexOf("message")).toBeLessThan(types.indexOf("tool_calls_preparing"));
    expect(types.indexOf("tool_calls_preparing")).toBeLessThan(types.indexOf("tool_call_update"));
    const updates = ofType(events, "tool_call_update");
    expect(updates.map((u) => u.status)).toEqual(["start", "end"]);
    expect(updates[0]).toMatchObject({ toolCallId: "c1", name: "echo", args: { text: "ping" } });
    expect(updates[1]).toMatchObject({ result: "ping" });
    expect(updates[1]!.isError).toBeUndefined();
    expect(typeof updates[1]!.durationMs).toBe("number");
    expect(ofType(events, "llm_call_start").map((e) => e.iteration)).toEqual([1, 2]);
    // The second request carries the tool result.
    expect(provider.calls[1]!.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(provider.calls[0]!.tools.map((t) => t.name)).toEqual(["echo", "run_subtask"]);
  });

  it("does not mutate the history passed in", async () => {
    const history: Message[] = [user("hi")];
    const before = structuredClone(history);
    await run({
      history,
      script: [{ toolCalls: [{ name: "echo", args: { text: "x" } }] }, { text: "ok" }],
      tools: [echo],
    });
    expect(history).toEqual(before);
  });

  it("sums usage over calls and attaches the tree and usage to the final root message", async () => {
    const { events, result } = await run({
      script: [
        { toolCalls: [{ name: "echo", args: { text: "a" } }], usage: { inputTokens: 10, outputTokens: 5 } },
        { text: "done", usage: { inputTokens: 20, outputTokens: 7 } },
      ],
      tools: [echo],
    });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 12, llmCalls: 2, toolCalls: 1 });
    expect(ofType(events, "usage").map((u) => [u.inputTokens, u.outputTokens, u.model])).toEqual([
      [10, 5, "test-model"],
      [20, 7, "test-model"],
    ]);
    const final = result.messages.at(-1)!;
    expect(final.role).toBe("assistant");
    if (final.role !== "assistant") return;
    expect(final.executionTree?.nodes.map((n) => n.name)).toEqual(["echo"]);
    expect(final.usage).toMatchObject({ inputTokens: 30, outputTokens: 12 });
  });

  it("computes cost from a pricing table", async () => {
    const { events, result } = await run({
      script: [{ text: "x", usage: { inputTokens: 1_000_000, outputTokens: 500_000, cachedInputTokens: 200_000 } }],
      pricing: { "test-model": { inputPerMillion: 2, outputPerMillion: 10, cachedInputPerMillion: 0.5 } },
    });
    // 800k fresh * 2 + 200k cached * 0.5 + 500k out * 10 = 1.6 + 0.1 + 5
    expect(ofType(events, "usage")[0]!.costUsd).toBeCloseTo(6.7, 10);
    expect(result.usage.costUsd).toBeCloseTo(6.7, 10);
  });

  it("streams thinking and keeps it (with its signature) on the assistant message", async () => {
    const provider = createFakeProvider([{ thinking: "let me think", text: "answer" }]);
    const { events, result } = await run({ provider });
    expect(
      ofType(events, "thinking")
        .map((e) => e.content)
        .join(""),
    ).toBe("let me think");
    expect(result.messages[0]).toMatchObject({
      content: [
        { type: "thinking", text: "let me think" },
        { type: "text", text: "answer" },
      ],
    });
  });

  it("turns a provider error into an error event and status, never a throw", async () => {
    const error = new ProviderError("rate limited", { provider: "fake", status: 429, retryable: true });
    const { events, result } = await run({ script: [{ error }] });
    expect(result.status).toBe("error");
    expect(result.error?.message).toBe("rate limited");
    expect(ofType(events, "error")[0]?.message).toBe("rate limited");
    expect(events.at(-1)?.type).toBe("done");
  });

  it("fails with a clear error naming the call index when a script runs out", async () => {
    const { result } = await run({ script: [{ toolCalls: [{ name: "echo", args: { text: "a" } }] }], tools: [echo] });
    expect(result.status).toBe("error");
    expect(result.error?.message).toMatch(/call index 1/);
    expect(result.error?.message).toMatch(/only 1 turn/);
    // The history it leaves is still valid: the call got its result.
    expect(historyProblems([user("hello"), ...result.messages])).toEqual([]);
  });

  it("rejects invalid options with InvalidArgumentError naming the problems", async () => {
    const provider = createFakeProvider([]);
    const gen = runUnifiedAgentLoop({ provider, model: "m", systemPrompt: "s", history: [], tools: [echo, echo] });
    await expect(gen.next()).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e) && /duplicate tool name "echo"/.test((e as Error).message),
    );
    const bad = runUnifiedAgentLoop({
      provider,
      model: "m",
      systemPrompt: "s",
      history: [],
      tools: [],
      budget: { maxDepth: -1 },
    });
    await expect(bad.next()).rejects.toThrow(/maxDepth/);
  });

  it("warns when a response is cut off by the output token limit and drops cut-off calls", async () => {
    const { events, result } = await run({
      script: [{ text: "partial", toolCalls: [{ name: "echo", args: { text: "x" } }], finishReason: "length" }],
      tools: [echo],
    });
    expect(result.status).toBe("complete");
    expect(ofType(events, "tool_call_update")).toHaveLength(0);
    expect(ofType(events, "warning").map((w) => w.code)).toContain("max_output_tokens");
    expect(historyProblems(result.messages)).toEqual([]);
  });

  it("every start has an end in a normal run", async () => {
    const { events } = await run({
      script: [
        {
          toolCalls: [
            { name: "echo", args: { text: "a" } },
            { name: "nope", args: {} },
          ],
        },
        { text: "ok" },
      ],
      tools: [echo],
    });
    expect(unmatchedStarts(events)).toEqual([]);
  });
});

describe("history pruning (maxHistoryTokens)", () => {
  it("drops the oldest turns before a call, keeps tool-call pairs valid, and warns", async () => {
    const { echo: echoTool, ofType: only, run: runLoop, user: u } = await import("./helpers.js");
    const big = "x".repeat(4_000); // ~1,000 tokens
    const history = [
      u(`old question ${big}`),
      {
        role: "assistant" as const,
        content: [{ type: "tool_call" as const, id: "old1", name: "echo", args: { text: big } }],
      },
      {
        role: "tool" as const,
        content: [{ type: "tool_result" as const, toolCallId: "old1", name: "echo", result: big }],
      },
      { role: "assistant" as const, content: [{ type: "text" as const, text: `old answer ${big}` }] },
      u("middle question"),
      { role: "assistant" as const, content: [{ type: "text" as const, text: "middle answer" }] },
      u("latest question"),
    ];
    const { events, provider } = await runLoop({
      history,
      script: [{ text: "fine" }],
      tools: [echoTool],
      budget: { maxHistoryTokens: 1_500 },
    });
    const sent = provider.calls[0]!.messages;
    expect(sent.map((m) => (typeof m.content === "string" ? m.content : m.role))).toEqual([
      "middle question",
      "assistant",
      "latest question",
    ]);
    expect(historyProblems(sent)).toEqual([]);
    const warning = only(events, "warning").find((w) => w.code === "history_pruned");
    expect(warning?.message).toMatch(/dropped the 4 oldest messages/);
  });

  it("sends everything, with no warning, when the history fits", async () => {
    const { ofType: only, run: runLoop } = await import("./helpers.js");
    const { events, provider } = await runLoop({ script: [{ text: "ok" }] });
    expect(provider.calls[0]!.messages).toHaveLength(1);
    expect(only(events, "warning")).toHaveLength(0);
  });
});
