import { describe, expect, it } from "vitest";
import { runUnifiedAgentLoop, type LoopEvent } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { ofType, run, sleeper, unmatchedStarts, user } from "./helpers.js";

describe("abort", () => {
  it("reaches the provider call promptly", async () => {
    const controller = new AbortController();
    const provider = createFakeProvider([{ text: "never", delayMs: 10_000 }]);
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const { result, events } = await run({ provider, signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.status).toBe("aborted");
    expect(ofType(events, "error")).toHaveLength(0);
  });

  it("reaches every running tool, ends every start, and leaves a valid history", async () => {
    const controller = new AbortController();
    const { tool, stats } = sleeper();
    const provider = createFakeProvider((request) => {
      if (request.system.startsWith("You are a sub-agent")) return { toolCalls: [{ name: "sleep", args: { ms: 10_000 } }] };
      return { toolCalls: [{ name: "sleep", args: { ms: 10_000 } }, { name: "sleep", args: { ms: 10_000 } }, { name: "run_subtask", args: { title: "t", instructions: "i" } }] };
    });
    setTimeout(() => controller.abort(), 30);
    const { result, events } = await run({ provider, tools: [tool], signal: controller.signal });
    expect(result.status).toBe("aborted");
    expect(stats.running).toBe(0);
    expect(stats.order.filter((s) => s.startsWith("start"))).toHaveLength(3);
    expect(unmatchedStarts(events)).toEqual([]);
    expect(historyProblems([user("hello"), ...result.messages])).toEqual([]);
    const child = events.filter((e): e is Extract<LoopEvent, { type: "message" }> => e.type === "message" && e.depth === 1).map((e) => e.message);
    expect(historyProblems(child)).toEqual([]);
  });

  it("an already-aborted signal stops before the first model call", async () => {
    const provider = createFakeProvider([{ text: "x" }]);
    const { result } = await run({ provider, signal: AbortSignal.abort() });
    expect(result.status).toBe("aborted");
    expect(provider.calls).toHaveLength(0);
  });

  it("stops running tools when the consumer stops reading", async () => {
    const { tool, stats } = sleeper();
    const provider = createFakeProvider([{ toolCalls: [{ name: "sleep", args: { ms: 10_000 } }, { name: "sleep", args: { ms: 10_000 } }] }]);
    const loop = runUnifiedAgentLoop({ provider, model: "m", systemPrompt: "s", history: [user("x")], tools: [tool] });
    for await (const event of loop) {
      if (event.type === "tool_call_update" && event.status === "start") break;
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(stats.running).toBe(0);
  });

  it("keeps partial streamed text when aborted mid-stream", async () => {
    const controller = new AbortController();
    const provider = {
      id: "slow",
      async *stream(_request: unknown, { signal }: { signal: AbortSignal }) {
        yield { type: "text_delta" as const, text: "partial " };
        await new Promise((_, reject) => signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }))));
      },
    };
    setTimeout(() => controller.abort(), 20);
    const { result } = await run({ provider, signal: controller.signal });
    expect(result.status).toBe("aborted");
    expect(result.messages).toEqual([{ role: "assistant", content: [{ type: "text", text: "partial " }], messageType: "text" }]);
  });
});
