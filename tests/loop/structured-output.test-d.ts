import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { runUnifiedAgentLoop, type LoopResult } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

const base = { provider: createFakeProvider([]), model: "m", systemPrompt: "s", history: [], tools: [] };

describe("runUnifiedAgentLoop structured output types", () => {
  it("types result.structured from a zod 4 schema (output side: transforms and defaults)", () => {
    const loop = runUnifiedAgentLoop({ ...base, outputSchema: z.object({ n: z.string().transform(Number), tag: z.string().default("x") }) });
    expectTypeOf(loop).toEqualTypeOf<AsyncGenerator<import("@agentry/core").LoopEvent, LoopResult<{ n: number; tag: string }>>>();
  });
  it("types it from a zod 3 schema", () => {
    const loop = runUnifiedAgentLoop({ ...base, outputSchema: z3.object({ ok: z3.boolean() }) });
    expectTypeOf<Awaited<ReturnType<typeof loop.next>>>().toEqualTypeOf<IteratorResult<import("@agentry/core").LoopEvent, LoopResult<{ ok: boolean }>>>();
  });
  it("leaves it unknown for a JSON Schema or no schema", () => {
    expectTypeOf(runUnifiedAgentLoop({ ...base, outputSchema: { type: "object" } })).toEqualTypeOf<AsyncGenerator<import("@agentry/core").LoopEvent, LoopResult<unknown>>>();
    expectTypeOf(runUnifiedAgentLoop(base)).toEqualTypeOf<AsyncGenerator<import("@agentry/core").LoopEvent, LoopResult>>();
  });
});
