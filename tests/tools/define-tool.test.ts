import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { AgentryError, InvalidArgumentError, defaultPolicy, defineTool, type ToolContext } from "@agentry/core";
import { validateToolArgs } from "../../src/tools/validate-tool-args.js";

const context = (): ToolContext => ({
  toolCallId: "call_1",
  depth: 0,
  parentId: null,
  callKey: "test",
  signal: new AbortController().signal,
  policy: defaultPolicy(),
});

describe("defineTool with a zod 4 schema", () => {
  const tool = defineTool({
    name: "search",
    description: "Search",
    input: z.object({
      query: z.string(),
      limit: z.number().int().default(10),
      mode: z.enum(["fast", "deep"]).optional(),
    }),
    execute: ({ query, limit }) => `${query}:${limit}`,
  });

  it("generates an object JSON Schema in which defaulted fields are optional", () => {
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.inputSchema.required).toEqual(["query"]);
    expect(tool.inputSchema.properties).toMatchObject({
      query: { type: "string" },
      limit: { type: "integer", default: 10 },
      mode: { enum: ["fast", "deep"] },
    });
  });

  it("accepts valid arguments and applies defaults", () => {
    expect(validateToolArgs(tool, { query: "cats" })).toEqual({ ok: true, value: { query: "cats", limit: 10 } });
  });

  it("rejects invalid arguments naming each offending field", () => {
    const result = validateToolArgs(tool, { query: 3, mode: "slow" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain("/query");
    expect(result.message).toMatch(/expected string/i);
    expect(result.message).toContain("/mode");
  });

  it("passes the validated arguments and the context to execute", async () => {
    const seen: unknown[] = [];
    const echo = defineTool({
      name: "echo",
      description: "Echo",
      input: z.object({ text: z.string() }),
      execute: (args, ctx) => {
        seen.push(args, ctx.toolCallId);
        return args.text.toUpperCase();
      },
    });
    expect(await echo.execute({ text: "hi" }, context())).toBe("HI");
    expect(seen).toEqual([{ text: "hi" }, "call_1"]);
  });
});

describe("defineTool with a zod 3 schema", () => {
  const tool = defineTool({
    name: "add_item",
    description: "Add an item",
    input: z3.object({ title: z3.string(), priority: z3.number().default(1) }),
    execute: ({ title, priority }) => ({ title, priority }),
  });

  it("generates a JSON Schema through zod-to-json-schema", () => {
    expect(tool.inputSchema).toMatchObject({
      type: "object",
      properties: { title: { type: "string" }, priority: { type: "number", default: 1 } },
      required: ["title"],
    });
  });

  it("validates with zod 3: defaults applied, errors located", () => {
    expect(validateToolArgs(tool, { title: "x" })).toEqual({ ok: true, value: { title: "x", priority: 1 } });
    const bad = validateToolArgs(tool, { title: 5 });
    expect(bad).toEqual({ ok: false, message: expect.stringContaining("/title: Expected string, received number") });
  });
});

describe("defineTool with a plain JSON Schema", () => {
  const schema = {
    type: "object",
    properties: { id: { type: "integer", minimum: 1 } },
    required: ["id"],
    additionalProperties: false,
  };
  const tool = defineTool({ name: "get_item", description: "Get", input: schema, execute: (args) => args });

  it("keeps the schema as given", () => {
    expect(tool.inputSchema).toBe(schema);
  });

  it("accepts valid arguments unchanged", () => {
    expect(validateToolArgs(tool, { id: 3 })).toEqual({ ok: true, value: { id: 3 } });
  });

  it("rejects with messages a model can act on", () => {
    const missing = validateToolArgs(tool, {});
    expect(missing).toEqual({ ok: false, message: expect.stringContaining('required property "id"') });
    const wrongType = validateToolArgs(tool, { id: "3" });
    expect(wrongType).toEqual({ ok: false, message: expect.stringMatching(/^\/id: .*"integer"/) });
    const tooSmall = validateToolArgs(tool, { id: 0 });
    expect(tooSmall.ok).toBe(false);
    const extra = validateToolArgs(tool, { id: 1, other: true });
    expect(extra).toEqual({ ok: false, message: expect.stringContaining("/other: not allowed") });
  });
});

describe("defineTool declarations", () => {
  const input = z.object({});

  it("defaults to permission class safe and parallel-safe, with no optional fields set", () => {
    const tool = defineTool({ name: "now", description: "Time", input, execute: () => 1 });
    expect(tool.permissionClass).toBe("safe");
    expect(tool.parallelSafe).toBe(true);
    expect("contexts" in tool).toBe(false);
    expect("exclusiveLock" in tool).toBe(false);
  });

  it("keeps the declared class, concurrency, lock, capabilities and contexts", () => {
    const tool = defineTool({
      name: "build_workflow",
      description: "Build",
      input,
      permissionClass: "editor_mutate",
      parallelSafe: false,
      exclusiveLock: "graph",
      capabilities: ["workflows.write"],
      contexts: ["editor"],
      execute: () => null,
    });
    expect(tool).toMatchObject({
      permissionClass: "editor_mutate",
      parallelSafe: false,
      exclusiveLock: "graph",
      capabilities: ["workflows.write"],
      contexts: ["editor"],
    });
  });

  it.each(["", "has space", "slash/name", "x".repeat(65), "émoji"])("rejects the invalid name %j", (name) => {
    let thrown: unknown;
    try {
      defineTool({ name, description: "d", input, execute: () => null });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect(AgentryError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toContain("Invalid tool name");
  });

  it("accepts names with letters, digits, dots, dashes and underscores up to 64 characters", () => {
    expect(defineTool({ name: "a.b-c_1", description: "d", input, execute: () => null }).name).toBe("a.b-c_1");
    expect(defineTool({ name: "x".repeat(64), description: "d", input, execute: () => null }).name).toHaveLength(64);
  });
});
