import { describe, expect, it } from "vitest";
import { defineTool, InvalidArgumentError, type Message, type Tool } from "@agentry/core";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { byLevel, run, unmatchedStarts } from "./helpers.js";

type ToolMessage = Extract<Message, { role: "tool" }>;
const toolResultsOf = (messages: Message[]) =>
  messages.filter((m): m is ToolMessage => m.role === "tool").flatMap((m) => m.content);

/** The root asks for one structured sub-task with `schema`; the child answers with `results` in turn. */
function structured(schema: unknown, results: unknown[]) {
  let childCalls = 0;
  return createFakeProvider(
    byLevel(
      [
        {
          toolCalls: [{ id: "s", name: "run_subtask", args: { title: "t", instructions: "i", output_schema: schema } }],
        },
        { text: "done" },
      ],
      (): FakeTurn => {
        const result = results[Math.min(childCalls++, results.length - 1)];
        return { toolCalls: [{ name: "finish_subtask", args: { result } }] };
      },
    ),
  );
}

/** The run_subtask result the root got. */
async function subtaskOutcome(schema: unknown, results: unknown[] = ["x"]) {
  const provider = structured(schema, results);
  const { result, events } = await run({ provider });
  expect(unmatchedStarts(events)).toEqual([]);
  expect(result.status).toBe("complete");
  return { root: toolResultsOf(result.messages).find((r) => r.toolCallId === "s")!, events, provider };
}

describe("model-supplied output_schema: bounded cost, error results", () => {
  it("checks a catastrophic pattern in linear time: ^(a|a)*$ against 10,000 characters", async () => {
    const { root, events } = await subtaskOutcome({ type: "string", pattern: "^(a|a)*$" }, [
      "a".repeat(10_000) + "!",
      "a".repeat(10_000),
    ]);
    const finishes = events.filter(
      (e) => e.type === "tool_call_update" && e.status === "end" && e.name === "finish_subtask",
    );
    expect(finishes[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(/does not match the pattern required here/),
    });
    expect(root).toMatchObject({ result: "a".repeat(10_000) });
    expect(root.isError).toBeUndefined();
  });

  it("checks patterns in nested strings and property names", async () => {
    const schema = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" } } },
      propertyNames: { pattern: "^[a-z]+$" },
    };
    const { root, events } = await subtaskOutcome(schema, [
      { tags: ["ok", "NOT"] },
      { BAD: 1 },
      { tags: ["ok", "fine"] },
    ]);
    const ends = events.filter(
      (e) => e.type === "tool_call_update" && e.status === "end" && e.name === "finish_subtask",
    );
    expect(ends.map((e) => (e as { isError?: boolean }).isError ?? false)).toEqual([true, true, false]);
    expect(String((ends[0] as { result: unknown }).result)).toMatch(/\/tags\/1: does not match the pattern/);
    expect(root.result).toEqual({ tags: ["ok", "fine"] });
  });

  it.each([
    ["a recursive $ref to the root", { $ref: "#" }, /only local references of the form "#\/\$defs\/<name>"/],
    [
      "an indirect cycle",
      { $ref: "#/$defs/a", $defs: { a: { anyOf: [{ $ref: "#/$defs/b" }] }, b: { not: { $ref: "#/$defs/a" } } } },
      /refers back to itself/,
    ],
    [
      "a self-referencing definition",
      { type: "object", properties: { x: { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/a" } } },
      /refers back to itself/,
    ],
    ["a dangling $ref", { $ref: "#/$defs/missing" }, /resolves to nothing/],
    ["a remote $ref", { $ref: "https://example.com/schema.json" }, /only local references/],
    ["an $id", { $id: "https://example.com/x", type: "string" }, /\$id is not supported/],
    [
      "patternProperties",
      { type: "object", patternProperties: { "^a": { type: "string" } } },
      /patternProperties is not supported/,
    ],
    ["a backreference", { type: "string", pattern: "^(a+)\\1$" }, /backreferences are not supported/],
    ["a lookahead", { type: "string", pattern: "^(?=a)a$" }, /lookahead/],
    ["a pattern that is not a regex", { type: "string", pattern: "(" }, /unsupported pattern/],
    ["a bad type", { type: 12 }, /must be one of null, boolean/],
    ["a huge schema", { type: "object", description: "x".repeat(20_000) }, /at most 16384 are allowed/],
    ["deep nesting", JSON.parse('{"not":'.repeat(40) + "{}" + "}".repeat(40)) as unknown, /deeper than 32 levels/],
  ])("refuses %s with an error result, and the turn goes on", async (_label, schema, message) => {
    const { root, provider } = await subtaskOutcome(schema);
    expect(root.isError).toBe(true);
    expect(String(root.result)).toMatch(message);
    expect(String(root.result)).toMatch(/Fix the schema and call run_subtask again/);
    // No child ran: the root's two requests are all.
    expect(provider.calls).toHaveLength(2);
  });

  it("refuses a $defs chain that doubles at every step (exponential once inlined)", async () => {
    const $defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i <= 30; i++)
      $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    const { root } = await subtaskOutcome({ $ref: "#/$defs/d30", $defs });
    expect(root.isError).toBe(true);
    expect(String(root.result)).toMatch(/more than 5000 subschemas once its \$refs are inlined/);
  });

  it("keeps ordinary schemas working: $defs references, formats as annotations, uniqueItems", async () => {
    const schema = {
      type: "object",
      required: ["items"],
      properties: {
        items: { type: "array", uniqueItems: true, items: { $ref: "#/$defs/item" } },
        when: { type: "string", format: "date-time" },
      },
      $defs: {
        item: {
          type: "object",
          required: ["id"],
          properties: { id: { type: "string", pattern: "^[A-Z]{2}-\\d{3}$" } },
        },
      },
    };
    const { root } = await subtaskOutcome(schema, [
      { items: [{ id: "AB-123" }, { id: "AB-123" }] },
      { items: [{ id: "AB-123" }, { id: "CD-456" }], when: "whenever" },
    ]);
    expect(root.result).toEqual({ items: [{ id: "AB-123" }, { id: "CD-456" }], when: "whenever" });
  });

  it("refuses a finish_subtask result larger than maxToolResultBytes, to the child", async () => {
    const provider = structured({ type: "string" }, ["x".repeat(5_000), "short"]);
    const { result, events } = await run({ provider, budget: { maxToolResultBytes: 1_000 } });
    const finishes = events.filter(
      (e) => e.type === "tool_call_update" && e.status === "end" && e.name === "finish_subtask",
    );
    expect(String((finishes[0] as { result: unknown }).result)).toMatch(/5002 bytes of JSON; at most 1000 are allowed/);
    expect(toolResultsOf(result.messages).find((r) => r.toolCallId === "s")?.result).toBe("short");
  });
});

describe("host schemas", () => {
  it("defineTool rejects a $ref that resolves to nothing, naming it", () => {
    const define = () =>
      defineTool({
        name: "bad",
        description: "b",
        input: {
          type: "object",
          properties: { a: { $ref: "#/$defs/nowhere" }, b: { $ref: "#/definitions/ok" } },
          definitions: { ok: { type: "string" } },
        },
        execute: () => null,
      });
    expect(define).toThrow(InvalidArgumentError);
    expect(define).toThrow(/"#\/\$defs\/nowhere"/);
    expect(define).not.toThrow(/definitions\/ok/);
  });

  it("defineTool keeps resolvable references working as before", async () => {
    const tool = defineTool({
      name: "ok",
      description: "o",
      input: {
        type: "object",
        properties: { a: { $ref: "#/$defs/word" } },
        required: ["a"],
        $defs: { word: { type: "string", pattern: "^(a|b)+$" } },
      },
      execute: (args) => args,
    });
    const { result } = await run({
      script: [
        {
          toolCalls: [
            { name: "ok", args: { a: "abab" } },
            { name: "ok", args: { a: "abc" } },
          ],
        },
        { text: "done" },
      ],
      tools: [tool],
    });
    const [good, bad] = toolResultsOf(result.messages);
    expect(good).toMatchObject({ result: { a: "abab" } });
    expect(bad).toMatchObject({ isError: true, result: expect.stringMatching(/Invalid arguments for "ok"/) });
  });

  it("a hand-made tool whose schema has a dangling $ref gets an error result; the turn goes on", async () => {
    const tool: Tool = {
      name: "raw",
      description: "r",
      inputSchema: { $ref: "#/$defs/none" },
      permissionClass: "safe",
      parallelSafe: true,
      execute: () => "ran",
    };
    const { result } = await run({
      script: [{ toolCalls: [{ name: "raw", args: {} }] }, { text: "done" }],
      tools: [tool],
    });
    expect(result.status).toBe("complete");
    expect(toolResultsOf(result.messages)[0]).toMatchObject({
      isError: true,
      result: expect.stringMatching(/input schema could not be used/),
    });
  });
});
