import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { z } from "zod";
import { defineTool, type LoopEvent, type LoopResult } from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { echo, run, unmatchedStarts } from "./helpers.js";

const bytes = (value: unknown) =>
  new TextEncoder().encode(typeof value === "string" ? value : (JSON.stringify(value) ?? "")).length;
const HUGE = "é".repeat(30_000);

/** Hostile things a tool can hand back, by index. */
function hostileValue(kind: number): unknown {
  const trap = () => {
    throw new Error("trap");
  };
  const proxy = new Proxy(
    {},
    { get: trap, ownKeys: trap, getPrototypeOf: trap, has: trap, getOwnPropertyDescriptor: trap },
  );
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  switch (kind % 12) {
    case 0:
      return proxy;
    case 1:
      return { then: (resolve: (v: unknown) => void) => resolve(HUGE) };
    case 2:
      return { then: () => undefined }; // never settles: the tool timeout ends it
    case 3:
      return Promise.resolve(proxy);
    case 4:
      return HUGE;
    case 5:
      return cyclic;
    case 6:
      return 10n;
    case 7:
      return undefined;
    case 8:
      return Symbol("s");
    case 9:
      return () => 1;
    case 10:
      return { then: trap };
    default:
      return { rows: Array.from({ length: 2_000 }, (_, i) => ({ i, text: "row" })) };
  }
}
const chaos = defineTool({
  name: "chaos",
  description: "c",
  input: z.object({ kind: z.number().int(), raise: z.boolean() }),
  execute: ({ kind, raise }) => {
    if (raise) throw kind % 2 === 0 ? hostileValue(kind) : new Error(HUGE);
    return hostileValue(kind);
  },
});

const patternArb = fc.oneof(
  fc.constantFrom(
    "^(a|a)*$",
    "(a+)+$",
    "^(\\w+\\s?)*$",
    "(.*a){12}",
    "^[a-z]+$",
    "(?=a)",
    "(a)\\1",
    "((((a*)*)*)*)*b",
    "\\p{L}",
    "a{1000}{1000}",
    "[",
  ),
  fc.string({ maxLength: 16 }),
);
const refArb = fc.oneof(
  fc.constantFrom("#", "#/$defs/a", "#/$defs/b", "#/definitions/x", "http://example.com/s", "#/$defs/missing"),
  fc.string({ maxLength: 8 }),
);
const { schema: schemaArb } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.record(
      {
        type: fc.constantFrom("string", "object", "array", "number", "integer", "boolean", "null", "nonsense"),
        pattern: patternArb,
        $ref: refArb,
        properties: fc.dictionary(fc.string({ maxLength: 4 }), tie("schema"), { maxKeys: 3 }),
        items: tie("schema"),
        anyOf: fc.array(tie("schema"), { maxLength: 3 }),
        allOf: fc.array(tie("schema"), { maxLength: 3 }),
        not: tie("schema"),
        $defs: fc.record({ a: tie("schema"), b: tie("schema") }, { requiredKeys: [] }),
        enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        uniqueItems: fc.boolean(),
        minLength: fc.integer({ min: -1, max: 5 }),
        patternProperties: fc.dictionary(patternArb, tie("schema"), { maxKeys: 2 }),
        format: fc.constantFrom("email", "date-time", "uri", "regex"),
        $id: fc.constant("https://example.com/x"),
      },
      { requiredKeys: [] },
    ),
  ),
}));
const valueArb = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom("a".repeat(40) + "!", "a".repeat(5_000), HUGE),
  fc.array(fc.constant("aaaaaaaaaaaaaaaaaaaaaaaaaaaa!"), { maxLength: 50 }),
);
const nameArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("chaos", "echo", "run_subtask", "finish_subtask") },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constant("n".repeat(40_000)) },
);
const callArb = fc
  .record({
    id: fc.option(fc.constantFrom("", "dup", "call_0", "x"), { nil: undefined }),
    name: nameArb,
    kind: fc.nat(11),
    raise: fc.boolean(),
    schema: fc.option(schemaArb, { nil: undefined }),
    value: valueArb,
    junk: fc.jsonValue({ maxDepth: 2 }),
  })
  .map(({ id, name, kind, raise, schema, value, junk }) => {
    const args =
      name === "chaos"
        ? { kind, raise }
        : name === "run_subtask"
          ? { title: "t", instructions: String(kind), ...(schema !== undefined && { output_schema: schema }) }
          : name === "finish_subtask"
            ? { result: value }
            : name === "echo"
              ? { text: typeof value === "string" ? value : junk }
              : junk;
    return { ...(id !== undefined && { id }), name, args };
  });
const figureArb = fc.oneof(fc.nat(5_000), fc.constantFrom(-1_000_000, Number.NaN, Infinity, -Infinity, 1e15, 0.5));
const turnArb: fc.Arbitrary<FakeTurn> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ text: fc.oneof(fc.string({ maxLength: 10 }), fc.constant(HUGE)) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      toolCalls: fc.array(callArb, { minLength: 1, maxLength: 4 }),
      usage: fc.record({ inputTokens: figureArb, outputTokens: figureArb }),
    }),
  },
);
const limitsArb = fc.record({
  maxDepth: fc.integer({ min: 0, max: 2 }),
  maxIterationsPerLevel: fc.integer({ min: 1, max: 4 }),
  maxTotalLlmCalls: fc.integer({ min: 1, max: 20 }),
  maxToolResultBytes: fc.integer({ min: 0, max: 3_000 }),
  maxTotalResultBytes: fc.option(fc.integer({ min: 0, max: 8_000 }), { nil: undefined }),
  maxTotalTokens: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
});

/** Fails the run if it has not finished after `ms` (a detector for a blocked or hung loop, not a timing check). */
function watchdog(ms: number): { promise: Promise<never>; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the run did not finish within ${ms} ms`)), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

describe("random model output never breaks the loop", () => {
  it("never throws, always ends with done, never exceeds a cap, takes bounded steps", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArb, { minLength: 1, maxLength: 8 }), limitsArb, async (turns, limits) => {
        const provider = createFakeProvider((_request, index) => turns[index % turns.length]!);
        const dog = watchdog(20_000);
        let outcome: { events: LoopEvent[]; result: LoopResult };
        try {
          outcome = await Promise.race([
            run({ provider, tools: [chaos, echo], budget: limits, toolTimeoutMs: 20 }),
            dog.promise,
          ]);
        } finally {
          dog.cancel();
        }
        const { events, result } = outcome;
        expect(events.at(-1)?.type).toBe("done");
        expect(events.filter((e) => e.type === "done")).toHaveLength(1);
        expect(events.filter((e) => e.type === "error" && e.message.startsWith("Internal error"))).toEqual([]);
        expect(unmatchedStarts(events)).toEqual([]);
        expect(() => JSON.stringify(result)).not.toThrow();
        // Bounded steps: no more model calls than the budget allows.
        expect(provider.calls.length).toBeLessThanOrEqual(limits.maxTotalLlmCalls);
        // Caps: every result the model sees, at every depth, and their sum.
        const ends = events.filter(
          (e): e is Extract<LoopEvent, { type: "tool_call_update" }> =>
            e.type === "tool_call_update" && e.status === "end",
        );
        for (const end of ends) expect(bytes(end.result)).toBeLessThanOrEqual(limits.maxToolResultBytes);
        if (limits.maxTotalResultBytes !== undefined)
          expect(ends.reduce((sum, end) => sum + bytes(end.result), 0)).toBeLessThanOrEqual(limits.maxTotalResultBytes);
        // Usage stays sane whatever the provider reported.
        for (const figure of [result.usage.inputTokens, result.usage.outputTokens]) {
          expect(Number.isSafeInteger(figure)).toBe(true);
          expect(figure).toBeGreaterThanOrEqual(0);
        }
        // Tool-call ids are unique and non-empty within the turn.
        const ids = events.flatMap((e) =>
          e.type === "message" && e.message.role === "assistant"
            ? e.message.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : []))
            : [],
        );
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.includes("")).toBe(false);
      }),
      { numRuns: 100 },
    );
  }, 300_000);
});
