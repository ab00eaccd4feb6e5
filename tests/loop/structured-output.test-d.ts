import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import {
  runUnifiedAgentLoop,
  type AgentRuntime,
  type LoopEvent,
  type LoopResult,
  type TurnResult,
} from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";

const base = { provider: createFakeProvider([]), model: "m", systemPrompt: "s", history: [], tools: [] };

describe("runUnifiedAgentLoop structured output types", () => {
  it("types result.structured from a zod 4 schema (output side: transforms and defaults)", () => {
    const loop = runUnifiedAgentLoop({
      ...base,
      outputSchema: z.object({ n: z.string().transform(Number), tag: z.string().default("x") }),
    });
    expectTypeOf(loop).toEqualTypeOf<AsyncGenerator<LoopEvent, LoopResult<{ n: number; tag: string }>>>();
  });
  it("types it from a zod 3 schema", () => {
    expectTypeOf(
      runUnifiedAgentLoop({ ...base, outputSchema: z3.object({ ok: z3.boolean() }) }).next(),
    ).resolves.toEqualTypeOf<IteratorResult<LoopEvent, LoopResult<{ ok: boolean }>>>();
  });
  it("leaves it unknown for a JSON Schema or no schema", () => {
    expectTypeOf(runUnifiedAgentLoop({ ...base, outputSchema: { type: "object" } })).toEqualTypeOf<
      AsyncGenerator<LoopEvent, LoopResult<unknown>>
    >();
    expectTypeOf(runUnifiedAgentLoop(base)).toEqualTypeOf<AsyncGenerator<LoopEvent, LoopResult>>();
  });
  it("types runtime.send's structured from a zod schema", () => {
    const send = (runtime: AgentRuntime) =>
      runtime.send({ agentId: "a", content: "c", outputSchema: z.object({ id: z.number() }) });
    expectTypeOf(send).returns.resolves.toEqualTypeOf<TurnResult<{ id: number }>>();
    const plain = (runtime: AgentRuntime) => runtime.send({ agentId: "a", content: "c" });
    expectTypeOf(plain).returns.resolves.toEqualTypeOf<TurnResult>();
  });
});
