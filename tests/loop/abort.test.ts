import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type LoopEvent } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { heldTool, ofType, run, sleeper, unmatchedStarts, user } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("abort", () => {
  it("reaches the provider call promptly", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const provider = createFakeProvider([{ text: "never", delayMs: 10_000 }]);
    let settled = false;
    const running = run({ provider, signal: controller.signal }).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(20);
    expect(provider.calls).toHaveLength(1); // the model call is under way
    controller.abort();
    // A second of (fake) time, far from the provider's 10 s: the abort must have ended the call.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(settled).toBe(true);
    const { result, events } = await running;
    expect(result.status).toBe("aborted");
    expect(ofType(events, "error")).toHaveLength(0);
  });

  it("reaches every running tool, ends every start, and leaves a valid history", async () => {
    const controller = new AbortController();
    const { tool, stats, whenStarted } = sleeper();
    const provider = createFakeProvider((request) => {
      if (request.system.startsWith("You are a sub-agent"))
        return { toolCalls: [{ name: "sleep", args: { ms: 10_000 } }] };
      return {
        toolCalls: [
          { name: "sleep", args: { ms: 10_000 } },
          { name: "sleep", args: { ms: 10_000 } },
          { name: "run_subtask", args: { title: "t", instructions: "i" } },
        ],
      };
    });
    // Abort once all three sleeps run (two here, one in the sub-task), whatever the machine's speed.
    void whenStarted(3).then(() => controller.abort());
    const { result, events } = await run({ provider, tools: [tool], signal: controller.signal });
    expect(result.status).toBe("aborted");
    expect(stats.running).toBe(0);
    expect(stats.order.filter((s) => s.startsWith("start"))).toHaveLength(3);
    expect(unmatchedStarts(events)).toEqual([]);
    expect(historyProblems([user("hello"), ...result.messages])).toEqual([]);
    const child = events
      .filter((e): e is Extract<LoopEvent, { type: "message" }> => e.type === "message" && e.depth === 1)
      .map((e) => e.message);
    expect(historyProblems(child)).toEqual([]);
  });

  it("ends a call whose tool ignores its signal and never settles, and the turn with it", async () => {
    const controller = new AbortController();
    let started = 0;
    const deaf = defineTool({
      name: "deaf",
      description: "Never answers, never listens",
      input: z.object({}),
      execute: () => {
        started++;
        queueMicrotask(() => controller.abort());
        return new Promise<never>(() => undefined);
      },
    });
    const provider = createFakeProvider([{ toolCalls: [{ name: "deaf", args: {} }] }, { text: "unreached" }]);
    const { result, events } = await run({ provider, tools: [deaf], signal: controller.signal });
    expect(started).toBe(1);
    expect(result.status).toBe("aborted");
    const end = ofType(events, "tool_call_update").find((e) => e.status === "end");
    expect(end).toMatchObject({ name: "deaf", isError: true, result: "Aborted: the turn was stopped." });
    expect(unmatchedStarts(events)).toEqual([]);
    expect(provider.calls).toHaveLength(1);
  });

  it("settles each call once: a tool that answers after the abort does not change its result", async () => {
    const controller = new AbortController();
    let answer: (value: string) => void = () => undefined;
    const late = defineTool({
      name: "late",
      description: "Answers when told",
      input: z.object({}),
      execute: () =>
        new Promise<string>((resolve) => {
          answer = resolve;
          queueMicrotask(() => {
            controller.abort();
            resolve("too late");
          });
        }),
    });
    const provider = createFakeProvider([{ toolCalls: [{ name: "late", args: {} }] }, { text: "unreached" }]);
    const { events } = await run({ provider, tools: [late], signal: controller.signal });
    answer("later still");
    const ends = ofType(events, "tool_call_update").filter((e) => e.status === "end");
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ isError: true, result: "Aborted: the turn was stopped." });
  });

  it("an already-aborted signal stops before the first model call", async () => {
    const provider = createFakeProvider([{ text: "x" }]);
    const { result } = await run({ provider, signal: AbortSignal.abort() });
    expect(result.status).toBe("aborted");
    expect(provider.calls).toHaveLength(0);
  });

  it("stops running tools when the consumer stops reading", async () => {
    // Held calls end only when released or aborted.
    const held = heldTool();
    const provider = createFakeProvider([
      {
        toolCalls: [
          { name: "held", args: { tag: "a" } },
          { name: "held", args: { tag: "b" } },
        ],
      },
    ]);
    const loop = runUnifiedAgentLoop({
      provider,
      model: "m",
      systemPrompt: "s",
      history: [user("x")],
      tools: [held.tool],
    });
    const bothRunning = held.whenStarted(2);
    for await (const event of loop) {
      if (event.type === "tool_call_update" && event.status === "start") {
        await bothRunning;
        break;
      }
    }
    // Leaving (break awaits the loop's return()) has aborted both calls' signals.
    expect(held.stats.aborted).toBe(2);
    await held.whenIdle();
    expect(held.stats.running).toBe(0);
  });

  it("stops running tools when the consumer disposes of the loop (Symbol.asyncDispose, as `await using` calls it)", async () => {
    const held = heldTool();
    const provider = createFakeProvider([{ toolCalls: [{ name: "held", args: { tag: "a" } }] }]);
    const loop = runUnifiedAgentLoop({
      provider,
      model: "m",
      systemPrompt: "s",
      history: [user("x")],
      tools: [held.tool],
    });
    const running = held.whenStarted(1);
    for (;;) {
      const next = await loop.next();
      if (next.done || (next.value.type === "tool_call_update" && next.value.status === "start")) break;
    }
    await running;
    // AsyncGenerator's type has the method only with the `esnext.disposable` lib; Node 20 has the symbol.
    const dispose: unknown = Reflect.get(loop, Symbol.asyncDispose);
    expect(typeof dispose).toBe("function");
    await (dispose as () => Promise<void>).call(loop);
    expect(held.stats.aborted).toBe(1);
    await held.whenIdle();
    expect(held.stats.running).toBe(0);
    expect(await loop.next()).toEqual({ done: true, value: undefined });
  });

  it("keeps partial streamed text when aborted mid-stream", async () => {
    const controller = new AbortController();
    const provider = {
      id: "slow",
      async *stream(_request: unknown, { signal }: { signal: AbortSignal }) {
        yield { type: "text_delta" as const, text: "partial " };
        // The loop has taken the text (it asked for more): the host aborts now, mid-stream.
        await new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })));
          controller.abort();
        });
      },
    };
    const { result } = await run({ provider, signal: controller.signal });
    expect(result.status).toBe("aborted");
    expect(result.messages).toEqual([
      { role: "assistant", content: [{ type: "text", text: "partial " }], messageType: "text" },
    ]);
  });
});
