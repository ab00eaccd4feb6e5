import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { InvalidArgumentError, defineTool, type Message } from "@agentry/core";
import { echo, ofType, run } from "./helpers.js";

const schema = {
  type: "object",
  properties: { count: { type: "integer" } },
  required: ["count"],
  additionalProperties: false,
};
const finish = (result: unknown, id?: string) => ({
  toolCalls: [{ ...(id && { id }), name: "final_answer", args: { result } }],
});

describe("root outputSchema", () => {
  it("offers final_answer and returns the validated value as structured on the first try", async () => {
    const { result, provider } = await run({ outputSchema: schema, script: [finish({ count: 3 })] });
    expect(result.status).toBe("complete");
    expect(result.structured).toEqual({ count: 3 });
    const offered = provider.calls[0]!.tools.find((t) => t.name === "final_answer");
    expect(offered?.inputSchema).toMatchObject({ properties: { result: schema }, required: ["result"] });
    expect(offered?.description).toMatch(/final answer/);
    expect(provider.calls).toHaveLength(1);
  });

  it("sends an invalid value back to the model as an error result, then accepts the fix", async () => {
    const { result, events, provider } = await run({
      outputSchema: schema,
      script: [finish({ count: "three" }), finish({ count: 3 })],
    });
    expect(result.status).toBe("complete");
    expect(result.structured).toEqual({ count: 3 });
    const ends = ofType(events, "tool_call_update").filter((e) => e.name === "final_answer" && e.status === "end");
    expect(ends.map((e) => e.isError ?? false)).toEqual([true, false]);
    expect(String(ends[0]!.result)).toMatch(
      /does not match the required output schema: \/count.*call final_answer again/,
    );
    // The model saw the error in its second request.
    const seen = provider.calls[1]!.messages.at(-1) as Extract<Message, { role: "tool" }>;
    expect(seen.content[0]).toMatchObject({ name: "final_answer", isError: true });
  });

  it("answers a plain-text ending with a reminder and another iteration", async () => {
    const { result, provider } = await run({
      outputSchema: schema,
      script: [{ text: "It is three." }, finish({ count: 3 })],
    });
    expect(result.structured).toEqual({ count: 3 });
    const reminder = provider.calls[1]!.messages.at(-1);
    expect(reminder).toMatchObject({
      role: "user",
      content: expect.stringMatching(/must end by calling final_answer/) as unknown,
    });
    expect(result.text).toBe("It is three.");
  });

  it("validates with zod so transforms and defaults apply (zod 4 and zod 3)", async () => {
    const z4 = z.object({ when: z.string().transform((s) => s.length), tag: z.string().default("none") });
    const four = await run({ outputSchema: z4, script: [finish({ when: "abcd" })] });
    expect(four.result.structured).toEqual({ when: 4, tag: "none" });
    const three = await run({
      outputSchema: z3.object({ n: z3.string().transform(Number) }),
      script: [finish({ n: "12" })],
    });
    expect(three.result.structured).toEqual({ n: 12 });
    expect(three.provider.calls[0]!.tools.find((t) => t.name === "final_answer")?.inputSchema).toMatchObject({
      properties: { result: { type: "object", properties: { n: { type: "string" } } } },
    });
  });

  it("runs other tools before the finish and keeps tools working", async () => {
    const { result, events } = await run({
      outputSchema: schema,
      tools: [echo],
      script: [{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }, finish({ count: 1 })],
    });
    expect(result.structured).toEqual({ count: 1 });
    expect(ofType(events, "tool_call_update").some((e) => e.name === "echo" && e.status === "end" && !e.isError)).toBe(
      true,
    );
  });

  it("ends cleanly at the iteration limit when the model never sends a valid value", async () => {
    const { result, events } = await run({
      outputSchema: schema,
      budget: { maxIterationsPerLevel: 3 },
      script: () => finish({ count: "never" }),
    });
    expect(result.status).toBe("iteration_limit");
    expect(result.structured).toBeUndefined();
    expect(ofType(events, "done")).toHaveLength(1);
  });

  it("ends cleanly when the llm-call budget is spent", async () => {
    const { result } = await run({
      outputSchema: schema,
      budget: { maxTotalLlmCalls: 2 },
      script: () => ({ text: "no" }),
    });
    expect(result.status).toBe("budget_exceeded");
    expect(result.structured).toBeUndefined();
  });

  it("is not offered without outputSchema, nor to sub-tasks", async () => {
    const plain = await run({ script: [finish({ count: 1 }), { text: "ok" }] });
    expect(plain.provider.calls[0]!.tools.some((t) => t.name === "final_answer")).toBe(false);
    expect(plain.result.structured).toBeUndefined();
    const nested = await run({
      outputSchema: schema,
      script: (request) =>
        request.system.startsWith("You are a sub-agent")
          ? { text: "child done" }
          : request.messages.length === 1
            ? { toolCalls: [{ name: "run_subtask", args: { title: "t", instructions: "i" } }] }
            : finish({ count: 2 }),
    });
    expect(nested.result.structured).toEqual({ count: 2 });
    const child = nested.provider.calls.find((r) => r.system.startsWith("You are a sub-agent"))!;
    expect(child.tools.some((t) => t.name === "final_answer")).toBe(false);
  });

  it("throws InvalidArgumentError for a reserved tool name or an unusable schema", async () => {
    const clash = defineTool({ name: "final_answer", description: "x", input: z.object({}), execute: () => "x" });
    await expect(run({ outputSchema: schema, tools: [clash] })).rejects.toThrow(/final_answer.*reserved/);
    await expect(run({ outputSchema: { $ref: "#/$defs/missing" } })).rejects.toThrow(InvalidArgumentError);
    await expect(run({ outputSchema: "nope" as never })).rejects.toThrow(/outputSchema must be/);
  });
});
