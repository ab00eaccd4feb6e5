import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  InvalidArgumentError,
  runUnifiedAgentLoop,
  type Message,
  type ModelRequest,
  type Tool,
} from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { byLevel, echo, ofType, run, unmatchedStarts, user } from "./helpers.js";

type ToolMessage = Extract<Message, { role: "tool" }>;
const toolResultsOf = (messages: Message[]) =>
  messages.filter((m): m is ToolMessage => m.role === "tool").flatMap((m) => m.content);
const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === "string" ? value : (JSON.stringify(value) ?? "")).length;

/** A Proxy whose every trap throws. */
const hostile = () =>
  new Proxy(
    {},
    Object.fromEntries(
      ["get", "has", "ownKeys", "getPrototypeOf", "getOwnPropertyDescriptor", "apply"].map((trap) => [
        trap,
        () => {
          throw new Error(`trap ${trap}`);
        },
      ]),
    ),
  );
const tool = (name: string, execute: () => unknown, extra: Partial<Tool> = {}): Tool =>
  defineTool({ name, description: name, input: z.object({}), execute, ...(extra as object) });

describe("values from tools: Proxies and thenables", () => {
  it("a tool that returns or throws a hostile Proxy gets an error result; the turn goes on", async () => {
    const returns = tool("returns", () => hostile());
    const throws = tool("throws", () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error
      throw hostile();
    });
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const rejects = tool("rejects", () => Promise.reject(hostile()));
    const resolves = tool("resolves", () => Promise.resolve(hostile()));
    const { result, events } = await run({
      script: [
        { toolCalls: ["returns", "throws", "rejects", "resolves"].map((name) => ({ name, args: {} })) },
        { text: "done" },
      ],
      tools: [returns, throws, rejects, resolves],
    });
    expect(result.status).toBe("complete");
    expect(unmatchedStarts(events)).toEqual([]);
    const results = toolResultsOf(result.messages);
    expect(results.every((r) => r.isError)).toBe(true);
    expect(String(results[0]!.result)).toMatch(/^The tool returned a value that could not be read/);
    expect(String(results[1]!.result)).toMatch(/^Error: /);
    expect(String(results[3]!.result)).toMatch(/could not be read|^Error: /);
    expect(() => JSON.stringify(result)).not.toThrow();
  });

  it("awaits any thenable, not only native promises", async () => {
    const thenable = (value: unknown) => ({
      then: (resolve: (v: unknown) => void) => setTimeout(() => resolve(value), 1),
    });
    const builder = tool("query", () => thenable({ rows: [1, 2] }));
    const nested = tool("nested", () => thenable(thenable("deep")));
    const failing = tool("failing", () => ({
      then: (_: unknown, reject: (e: unknown) => void) => reject(new Error("query failed")),
    }));
    const throwing = tool("throwing", () => ({
      then() {
        throw new Error("then threw");
      },
    }));
    const { result } = await run({
      script: [
        { toolCalls: ["query", "nested", "failing", "throwing"].map((name) => ({ name, args: {} })) },
        { text: "done" },
      ],
      tools: [builder, nested, failing, throwing],
    });
    const results = toolResultsOf(result.messages);
    expect(results.map((r) => r.result)).toEqual([
      { rows: [1, 2] },
      "deep",
      "Error: query failed",
      "Error: then threw",
    ]);
  });

  it("a thenable that never settles is bounded by the tool timeout", async () => {
    const stuck = tool("stuck", () => ({ then: () => undefined }), { timeoutMs: 10 });
    const { result } = await run({
      script: [{ toolCalls: [{ name: "stuck", args: {} }] }, { text: "done" }],
      tools: [stuck],
    });
    expect(toolResultsOf(result.messages)[0]).toMatchObject({
      isError: true,
      result: 'Tool "stuck" timed out after 10 ms.',
    });
  });
});

describe("caps cover every result the model sees", () => {
  it("huge names, thrown messages, sub-task results and notices stay within maxToolResultBytes and maxTotalResultBytes", async () => {
    const huge = "é".repeat(100_000);
    const thrower = tool("thrower", () => {
      throw new Error(huge);
    });
    const big = tool("big", () => huge);
    const limit = 1_500;
    const total = 6_000;
    const provider = createFakeProvider(
      byLevel(
        [
          {
            toolCalls: [
              { name: "x".repeat(100_000), args: {} },
              { name: "thrower", args: {} },
              { name: "big", args: {} },
              { name: "run_subtask", args: { title: "t", instructions: "plain" } },
              {
                name: "run_subtask",
                args: { title: "s", instructions: "structured", output_schema: { type: "string" } },
              },
              { name: "echo", args: { text: 5, junk: huge } },
            ],
          },
          { text: "done" },
        ],
        (request: ModelRequest): FakeTurn => {
          const instructions = request.messages[0]!.content;
          if (request.messages.length > 1) return { text: "child done" };
          return instructions === "plain"
            ? { text: huge }
            : { toolCalls: [{ name: "finish_subtask", args: { result: "y".repeat(1_400) } }] };
        },
      ),
    );
    const { result, events } = await run({
      provider,
      tools: [thrower, big, echo],
      budget: { maxToolResultBytes: limit, maxTotalResultBytes: total },
    });
    expect(unmatchedStarts(events)).toEqual([]);
    // Every result of the turn, at every depth, as its `end` event carries it.
    const ends = ofType(events, "tool_call_update").filter((e) => e.status === "end");
    expect(ends.length).toBeGreaterThanOrEqual(6);
    for (const end of ends) expect(bytes(end.result)).toBeLessThanOrEqual(limit);
    expect(ends.reduce((sum, end) => sum + bytes(end.result), 0)).toBeLessThanOrEqual(total);
    expect(result.status).toBe("budget_exceeded");
    const unknown = toolResultsOf(result.messages)[0]!;
    expect(String(unknown.result)).toMatch(/^Unknown tool "x{64}…"/);
  });

  it("without a total limit, each result still fits maxToolResultBytes (the 601,104-byte turn)", async () => {
    const huge = "z".repeat(100_000);
    const thrower = tool("thrower", () => {
      throw new Error(huge);
    });
    const provider = createFakeProvider(
      byLevel(
        [
          {
            toolCalls: [
              ...Array.from({ length: 3 }, () => ({ name: huge, args: {} })),
              { name: "thrower", args: {} },
              { name: "run_subtask", args: { title: "t", instructions: "i" } },
            ],
          },
          { text: "done" },
        ],
        () => ({ text: huge }),
      ),
    );
    await run({ provider, tools: [thrower], budget: { maxToolResultBytes: 1_500 } });
    // What the model was sent: the results in the root's second request.
    const results = toolResultsOf(provider.calls.at(-1)!.messages);
    expect(results).toHaveLength(5);
    for (const r of results) expect(bytes(r.result)).toBeLessThanOrEqual(1_500);
    expect(results.reduce((sum, r) => sum + bytes(r.result), 0)).toBeLessThanOrEqual(5 * 1_500);
    expect(String(results[4]!.result)).toMatch(/truncated: kept \d+ of 100000 bytes\]$/);
  });
});

describe("tool-call ids", () => {
  it("duplicate and empty ids are rewritten before the message is stored, unique across depths", async () => {
    const provider = createFakeProvider(
      byLevel(
        [
          {
            toolCalls: [
              { id: "call_0", name: "run_subtask", args: { title: "a", instructions: "A" } },
              { id: "call_0", name: "run_subtask", args: { title: "b", instructions: "B" } },
              { id: "", name: "echo", args: { text: "e" } },
            ],
          },
          { text: "done" },
        ],
        (request) =>
          request.messages.length > 1
            ? { text: "child done" }
            : { toolCalls: [{ id: "call_0", name: "echo", args: { text: "c" } }] },
      ),
    );
    const { result, events } = await run({ provider, tools: [echo] });
    expect(unmatchedStarts(events)).toEqual([]);
    const stored = ofType(events, "message")
      .map((e) => e.message)
      .filter((m): m is Extract<Message, { role: "assistant" }> => m.role === "assistant");
    const ids = stored.flatMap((m) => m.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : [])));
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    expect(ids.every((id) => id !== "")).toBe(true);
    expect(ids.slice(0, 2)).toEqual(["call_0", "call_0_2"]);
    // Each sub-task has its own frame: its events carry its own id as parentId.
    const childParents = new Set(events.filter((e) => e.depth === 1).map((e) => e.parentId));
    expect(childParents).toEqual(new Set(["call_0", "call_0_2"]));
    expect(result.status).toBe("complete");
  });
});

describe("usage figures", () => {
  it("clamps negative, NaN and absurd counts with an invalid_usage warning; the token budget stays on", async () => {
    const { events, result } = await run({
      script: [
        {
          toolCalls: [{ name: "echo", args: { text: "a" } }],
          usage: { inputTokens: -1_000_000, outputTokens: Number.NaN },
        },
        { toolCalls: [{ name: "echo", args: { text: "b" } }], usage: { inputTokens: 1e15, outputTokens: 10 } },
        { text: "never" },
      ],
      tools: [echo],
      budget: { maxTotalTokens: 100_000 },
    });
    const warnings = ofType(events, "warning").filter((w) => w.code === "invalid_usage");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]!.message).toMatch(/inputTokens -1000000/);
    expect(ofType(events, "usage").map((u) => [u.inputTokens, u.outputTokens])).toEqual([
      [0, 0],
      [1_000_000_000, 10],
    ]);
    expect(result.status).toBe("budget_exceeded");
    expect(ofType(events, "budget_exceeded")[0]).toMatchObject({ reason: "tokens" });
  });
});

describe("usage figures, any value", () => {
  it("counts whole tokens in 0..MAX_TOKENS_PER_RESPONSE, keeps valid figures as sent and warns exactly when one was not", async () => {
    const figure = fc.oneof(
      fc.integer({ min: 0, max: 2_000_000_000 }),
      fc.integer({ min: -5, max: 5 }),
      fc.double(),
      fc.constantFrom(-0, Number.NaN, Infinity, -Infinity, 1e9, 1e9 + 1),
    );
    await fc.assert(
      fc.asyncProperty(figure, figure, async (inputTokens, outputTokens) => {
        const { events } = await run({ script: [{ text: "ok", usage: { inputTokens, outputTokens } }] });
        const [usage] = ofType(events, "usage");
        const counted = [usage!.inputTokens, usage!.outputTokens];
        for (const n of counted) {
          expect(Number.isInteger(n) && n >= 0 && n <= 1_000_000_000 && !Object.is(n, -0)).toBe(true);
        }
        const valid = (n: number) => Number.isInteger(n) && n >= 0 && n <= 1_000_000_000;
        const warned = ofType(events, "warning").some((w) => w.code === "invalid_usage");
        expect(warned).toBe(!valid(inputTokens) || !valid(outputTokens));
        if (valid(inputTokens)) expect(counted[0]).toBe(inputTokens || 0);
        if (valid(outputTokens)) expect(counted[1]).toBe(outputTokens || 0);
      }),
      { numRuns: 200 },
    );
  });
});

describe("timers", () => {
  it("a wall clock, tool timeout or per-tool timeout above 2^31-1 ms (or Infinity) is no limit, not 'at once'", async () => {
    const slow = tool("slow", () => new Promise((resolve) => setTimeout(() => resolve("slow ok"), 5)), {
      timeoutMs: 2 ** 40,
    });
    for (const options of [
      { budget: { maxWallClockMs: Infinity } },
      { budget: { maxWallClockMs: 2 ** 31 } },
      { toolTimeoutMs: Infinity },
      { toolTimeoutMs: 2 ** 31 },
    ]) {
      const { result } = await run({
        script: [
          {
            toolCalls: [
              { name: "slow", args: {} },
              { name: "echo", args: { text: "e" } },
            ],
          },
          { text: "done" },
        ],
        tools: [slow, echo],
        ...options,
      });
      expect(result.status).toBe("complete");
      expect(toolResultsOf(result.messages).map((r) => r.result)).toEqual(["slow ok", "e"]);
    }
  });

  it("rejects negative or NaN timeouts at configuration", async () => {
    expect(() => tool("t", () => null, { timeoutMs: -1 })).toThrow(InvalidArgumentError);
    expect(() => tool("t", () => null, { timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
    const loop = runUnifiedAgentLoop({
      provider: createFakeProvider([]),
      model: "m",
      systemPrompt: "",
      history: [user("hi")],
      tools: [],
      toolTimeoutMs: -5,
    });
    await expect(loop.next()).rejects.toThrow(/toolTimeoutMs must be a number of 0 or more/);
    const handMade: Tool = { ...echo, name: "hand", timeoutMs: Number.NaN };
    await expect(
      runUnifiedAgentLoop({
        provider: createFakeProvider([]),
        model: "m",
        systemPrompt: "",
        history: [user("hi")],
        tools: [handMade],
      }).next(),
    ).rejects.toThrow(/tool "hand": timeoutMs/);
  });

  it("the fake provider rejects a NaN delay and waits for the abort on Infinity", async () => {
    const bad = await run({ script: [{ text: "x", delayMs: Number.NaN }] });
    expect(bad.result.status).toBe("error");
    expect(bad.result.error?.message).toMatch(/delayMs of call 0/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const waited = await run({ script: [{ text: "x", delayMs: Infinity }], signal: controller.signal });
    expect(waited.result.status).toBe("aborted");
  });
});

describe("run_subtask arguments are capped", () => {
  it("a title, instructions or tool list over the limits is an invalid-arguments result; no child runs; the turn goes on", async () => {
    const calls = [
      { id: "title", name: "run_subtask", args: { title: "t".repeat(201), instructions: "x" } },
      { id: "instructions", name: "run_subtask", args: { title: "t", instructions: "x".repeat(100_001) } },
      {
        id: "tools",
        name: "run_subtask",
        args: { title: "t", instructions: "x", tools: Array.from({ length: 257 }, (_, i) => `tool_${i}`) },
      },
      { id: "toolName", name: "run_subtask", args: { title: "t", instructions: "x", tools: ["n".repeat(257)] } },
    ];
    const { result, events } = await run({ script: [{ toolCalls: calls }, { text: "done" }], tools: [echo] });
    expect(result.status).toBe("complete");
    const results = toolResultsOf(result.messages);
    expect(results.map((r) => r.toolCallId)).toEqual(calls.map((c) => c.id));
    expect(results.every((r) => r.isError)).toBe(true);
    expect(
      ofType(events, "tool_call_update")
        .filter((e) => e.status === "end")
        .map((e) => e.refused),
    ).toEqual(calls.map(() => "invalid_arguments"));
    expect(events.some((e) => e.depth > 0)).toBe(false);
    // The title at the limit is fine.
    const ok = await run({
      script: [
        { toolCalls: [{ id: "ok", name: "run_subtask", args: { title: "t".repeat(200), instructions: "say hi" } }] },
        { text: "hi" },
        { text: "done" },
      ],
      tools: [echo],
    });
    expect(toolResultsOf(ok.result.messages)[0]!.isError).toBeFalsy();
  });
});

describe("values from tools: nesting", () => {
  it("a result nested deeper than 64 levels is kept as its JSON text (what the model reads), not as the nested value", async () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 100; i++) deep = [deep];
    let shallow: unknown = "bottom";
    for (let i = 0; i < 64; i++) shallow = [shallow];
    const { result } = await run({
      script: [{ toolCalls: ["deep", "shallow"].map((name) => ({ name, args: {} })) }, { text: "done" }],
      tools: [tool("deep", () => deep), tool("shallow", () => shallow)],
    });
    const [deepResult, shallowResult] = toolResultsOf(result.messages);
    expect(deepResult).toMatchObject({ result: JSON.stringify(deep) });
    expect(deepResult!.isError).toBeUndefined();
    expect(shallowResult!.result).toEqual(shallow);
  });
});
