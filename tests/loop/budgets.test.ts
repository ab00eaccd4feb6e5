import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createTurnBudget, DEFAULT_BUDGET, defineTool, type ModelRequest } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { echo, ofType, run, sleeper, unmatchedStarts } from "./helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

const isChild = (r: ModelRequest) => r.system.startsWith("You are a sub-agent");
const alwaysEcho = () =>
  createFakeProvider(() => ({
    toolCalls: [{ name: "echo", args: { text: "again" } }],
    usage: { inputTokens: 60, outputTokens: 0 },
  }));

function counting() {
  let runs = 0;
  const tool = defineTool({ name: "work", description: "w", input: z.object({}), execute: () => `run ${++runs}` });
  return { tool, runs: () => runs };
}

describe("budgets (seed 001 AC 5)", () => {
  it("has the seed's defaults", () => {
    expect(DEFAULT_BUDGET).toEqual({
      maxDepth: 3,
      maxIterationsPerLevel: 20,
      maxParallelPerTurn: 8,
      maxTotalSubtasks: 32,
      maxTotalLlmCalls: 60,
      maxTotalToolCalls: 200,
      maxWallClockMs: 180_000,
      maxToolResultBytes: 50_000,
      maxHistoryTokens: 128_000,
    });
  });

  it("llm_calls: refuses the call past the limit", async () => {
    const provider = alwaysEcho();
    const { events, result } = await run({ provider, tools: [echo], budget: { maxTotalLlmCalls: 3 } });
    expect(provider.calls).toHaveLength(3);
    expect(ofType(events, "budget_exceeded")).toEqual([
      { type: "budget_exceeded", reason: "llm_calls", limit: 3, observed: 4, depth: 0, parentId: null },
    ]);
    expect(result.status).toBe("budget_exceeded");
    expect(result.error?.reason).toBe("llm_calls");
    expect(events.at(-1)?.type).toBe("done");
  });

  it("tool_calls: a parallel fan-out never overshoots", async () => {
    const { tool, runs } = counting();
    const calls = Array.from({ length: 8 }, () => ({ name: "work", args: {} }));
    const { events, result } = await run({
      script: [{ toolCalls: calls }],
      tools: [tool],
      budget: { maxTotalToolCalls: 5 },
    });
    expect(runs()).toBe(5);
    expect(result.usage.toolCalls).toBe(5);
    expect(ofType(events, "budget_exceeded")).toHaveLength(1);
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "tool_calls", limit: 5, observed: 6 });
    expect(result.status).toBe("budget_exceeded");
    const errors = (result.messages[1] as { content: { isError?: boolean }[] }).content.filter((r) => r.isError);
    expect(errors).toHaveLength(3);
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("subtasks: spawns at most maxTotalSubtasks, and every level ends budget_exceeded", async () => {
    const provider = createFakeProvider((request) => {
      if (isChild(request))
        return request.messages.length === 1
          ? { toolCalls: [{ name: "echo", args: { text: "x" } }] }
          : { text: "child" };
      return {
        toolCalls: Array.from({ length: 4 }, (_, i) => ({
          name: "run_subtask",
          args: { title: `t${i}`, instructions: "i" },
        })),
      };
    });
    const { events, result } = await run({ provider, tools: [echo], budget: { maxTotalSubtasks: 2 } });
    // Two children spawn; the third spawn spends the budget, which stops every level of the turn.
    const spawned = ofType(events, "message").filter((e) => e.depth === 1 && e.message.role === "user");
    expect(spawned).toHaveLength(2);
    const ends = ofType(events, "tool_call_update").filter((e) => e.name === "run_subtask" && e.status === "end");
    expect(ends).toHaveLength(4);
    expect(ends.filter((e) => /budget is spent \(subtasks/.test(String(e.result)))).toHaveLength(2);
    expect(ofType(events, "budget_exceeded")).toHaveLength(1);
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "subtasks", limit: 2, observed: 3 });
    expect(result.status).toBe("budget_exceeded");
  });

  it("tokens: stops before the call after the limit is reached", async () => {
    const provider = alwaysEcho();
    const { events, result } = await run({ provider, tools: [echo], budget: { maxTotalTokens: 100 } });
    expect(provider.calls).toHaveLength(2);
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "tokens", limit: 100, observed: 120 });
    expect(result.status).toBe("budget_exceeded");
  });

  it("cost: stops once the priced usage reaches maxCostUsd", async () => {
    const provider = alwaysEcho();
    const { events } = await run({
      provider,
      tools: [echo],
      pricing: { "test-model": { inputPerMillion: 10_000, outputPerMillion: 0 } }, // 60 tokens = $0.60
      budget: { maxCostUsd: 1 },
    });
    expect(provider.calls).toHaveLength(2);
    const event = ofType(events, "budget_exceeded")[0]!;
    expect(event).toMatchObject({ reason: "cost", limit: 1 });
    expect(event.observed).toBeCloseTo(1.2, 10);
  });

  it("bytes: the total of tool results never passes maxTotalResultBytes", async () => {
    const big = defineTool({ name: "big", description: "b", input: z.object({}), execute: () => "x".repeat(60) });
    const { events, result } = await run({
      script: [
        {
          toolCalls: [
            { name: "big", args: {} },
            { name: "big", args: {} },
            { name: "big", args: {} },
          ],
        },
      ],
      tools: [big],
      budget: { maxTotalResultBytes: 100 },
    });
    const results = (result.messages[1] as { content: { result: unknown; isError?: boolean }[] }).content;
    expect(results[0]!.result).toBe("x".repeat(60));
    // The second is cut to the 40 bytes left, its truncation notice included.
    expect(String(results[1]!.result)).toMatch(/^x+\n…\[truncated: kept \d+ of 60 bytes\]$/);
    expect(new TextEncoder().encode(String(results[1]!.result)).length).toBeLessThanOrEqual(40);
    // The third call comes after the budget is spent: it is not run at all, and its refusal is
    // cut to the byte left: the total never passes the limit.
    expect(results[2]).toMatchObject({ isError: true });
    expect("Not run: the turn's budget is spent".startsWith(String(results[2]!.result))).toBe(true);
    expect(results.reduce((sum, r) => sum + new TextEncoder().encode(String(r.result)).length, 0)).toBeLessThanOrEqual(
      100,
    );
    expect(ofType(events, "budget_exceeded")).toHaveLength(1);
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "bytes", limit: 100 });
    expect(result.status).toBe("budget_exceeded");
  });

  it("wall_clock: a hard deadline stops a hanging tool and the turn", async () => {
    vi.useFakeTimers();
    const { tool, stats } = sleeper();
    let settled = false;
    const running = run({
      script: [{ toolCalls: [{ name: "sleep", args: { ms: 5_000 } }] }, { text: "never" }],
      tools: [tool],
      budget: { maxWallClockMs: 60 },
    }).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(59);
    expect(stats.running).toBe(1); // the tool hangs, and the deadline has not come
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(true); // at 60 ms of (fake) time, not at the tool's 5 s
    const { events, result } = await running;
    expect(stats.running).toBe(0);
    expect(ofType(events, "budget_exceeded")).toHaveLength(1);
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "wall_clock", limit: 60 });
    expect(result.status).toBe("budget_exceeded");
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("wall_clock: also stops a slow provider", async () => {
    vi.useFakeTimers();
    const provider = createFakeProvider([{ text: "late", delayMs: 5_000 }]);
    let settled = false;
    const running = run({ provider, budget: { maxWallClockMs: 50 } }).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(50);
    expect(settled).toBe(true);
    const { result, events } = await running;
    expect(result.status).toBe("budget_exceeded");
    expect(ofType(events, "budget_exceeded")[0]?.reason).toBe("wall_clock");
  });

  it("emits exactly one budget_exceeded per turn when it is spent deep in a sub-task", async () => {
    const provider = createFakeProvider((request) => {
      if (isChild(request))
        return {
          toolCalls: [
            { name: "echo", args: { text: "x" } },
            { name: "echo", args: { text: "y" } },
          ],
        };
      return {
        toolCalls: [
          { id: "s1", name: "run_subtask", args: { title: "a", instructions: "a" } },
          { id: "s2", name: "run_subtask", args: { title: "b", instructions: "b" } },
        ],
      };
    });
    const { events, result } = await run({ provider, tools: [echo], budget: { maxTotalToolCalls: 5 } });
    expect(ofType(events, "budget_exceeded")).toHaveLength(1);
    expect(result.status).toBe("budget_exceeded");
    expect(result.usage.toolCalls).toBe(5);
    const subEnds = ofType(events, "tool_call_update").filter((e) => e.name === "run_subtask" && e.status === "end");
    expect(subEnds.map((e) => e.isError)).toEqual([true, true]);
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("shares one TurnBudget between loops", async () => {
    const budget = createTurnBudget({ maxTotalLlmCalls: 3 });
    const first = await run({ script: [{ text: "a" }, { text: "b" }], budget });
    const second = await run({ script: [{ text: "a" }, { text: "b" }], budget });
    const third = await run({ script: [{ text: "a" }, { text: "b" }], budget });
    const fourth = await run({ script: [{ text: "a" }], budget });
    expect([first, second, third, fourth].map((r) => r.result.status)).toEqual([
      "complete",
      "complete",
      "complete",
      "budget_exceeded",
    ]);
    expect(budget.counters.llmCalls).toBe(3);
  });
});

describe("iteration limit (seed 003 warning rule)", () => {
  it("ends the level iteration_limit and warns when the last response had tool calls", async () => {
    const provider = alwaysEcho();
    const { events, result } = await run({ provider, tools: [echo], budget: { maxIterationsPerLevel: 4 } });
    expect(provider.calls).toHaveLength(4);
    expect(result.status).toBe("iteration_limit");
    expect(ofType(events, "warning").filter((w) => w.code === "tool_loop_exhausted")).toHaveLength(1);
    expect(ofType(events, "budget_exceeded")).toHaveLength(0);
  });

  it("does not warn when the last response had no tool calls", async () => {
    const schema = { type: "object" };
    const provider = createFakeProvider((request) => {
      if (isChild(request)) return { text: "plain text, no finish" };
      return request.messages.length === 1
        ? {
            toolCalls: [
              { id: "s", name: "run_subtask", args: { title: "t", instructions: "i", output_schema: schema } },
            ],
          }
        : { text: "root" };
    });
    const { events } = await run({ provider, budget: { maxIterationsPerLevel: 3 } });
    const sub = ofType(events, "tool_call_update").find((e) => e.toolCallId === "s" && e.status === "end");
    expect(String(sub?.result)).toMatch(/iteration limit/);
    expect(ofType(events, "warning").filter((w) => w.code === "tool_loop_exhausted")).toHaveLength(0);
  });
});

describe("createTurnBudget limits", () => {
  it("refuses a limit named after an Object.prototype member as unknown", () => {
    for (const text of ['{"toString":5}', '{"constructor":5}', '{"__proto__":5}'])
      expect(() => createTurnBudget(JSON.parse(text))).toThrow(/unknown budget limit/);
  });
});
