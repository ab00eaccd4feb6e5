import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultPolicy, defineTool } from "@agentry/core";
import { echo, ofType, run, sleeper } from "./helpers.js";

const toolResults = (messages: { role: string; content: unknown }[]) =>
  messages
    .filter((m) => m.role === "tool")
    .flatMap((m) => m.content as { toolCallId: string; result: unknown; isError?: boolean }[]);

describe("tool dispatch", () => {
  it("turns an unknown tool into an error result the model sees, and goes on", async () => {
    const { result, provider } = await run({
      script: [{ toolCalls: [{ id: "u", name: "launch_rockets", args: {} }] }, { text: "sorry" }],
      tools: [echo],
    });
    expect(result.status).toBe("complete");
    const [r] = toolResults(result.messages);
    expect(r).toMatchObject({ toolCallId: "u", isError: true });
    expect(String(r!.result)).toMatch(/Unknown tool "launch_rockets".*echo/);
    expect(provider.calls[1]!.messages.at(-1)).toMatchObject({ role: "tool", content: [{ isError: true }] });
  });

  it("refuses a tool outside the policy at dispatch even when the model names it", async () => {
    const secret = defineTool({
      name: "read_secret",
      description: "s",
      input: z.object({}),
      permissionClass: "secrets",
      execute: () => "TOP SECRET",
    });
    const { result, events } = await run({
      script: [{ toolCalls: [{ name: "read_secret", args: {} }] }, { text: "ok" }],
      tools: [secret],
      policy: defaultPolicy("thread"),
    });
    const [r] = toolResults(result.messages);
    expect(r!.isError).toBe(true);
    expect(String(r!.result)).toMatch(/not permitted.*secrets/);
    expect(JSON.stringify(events)).not.toContain("TOP SECRET");
  });

  it("validates arguments before execute and reports what is wrong", async () => {
    let ran = false;
    const add = defineTool({
      name: "add",
      description: "add",
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ((ran = true), a + b),
    });
    const { result } = await run({
      script: [{ toolCalls: [{ name: "add", args: { a: 1, b: "two" } }] }, { text: "ok" }],
      tools: [add],
    });
    const [r] = toolResults(result.messages);
    expect(ran).toBe(false);
    expect(r!.isError).toBe(true);
    expect(String(r!.result)).toMatch(/Invalid arguments for "add".*\/b/);
  });

  it("validates plain JSON Schema tools too", async () => {
    const tool = defineTool({
      name: "greet",
      description: "greet",
      input: { type: "object", properties: { name: { type: "string", minLength: 2 } }, required: ["name"] },
      execute: (args) => `hi ${(args as { name: string }).name}`,
    });
    const { result } = await run({
      script: [
        {
          toolCalls: [
            { name: "greet", args: { name: "x" } },
            { name: "greet", args: { name: "Ada" } },
          ],
        },
        { text: "ok" },
      ],
      tools: [tool],
    });
    const [bad, good] = toolResults(result.messages);
    expect(bad!.isError).toBe(true);
    expect(good).toMatchObject({ result: "hi Ada" });
  });

  it("reports arguments that are not valid JSON", async () => {
    const { result } = await run({
      script: [{ toolCalls: [{ name: "echo", args: '{"text": "unterminated' }] }, { text: "ok" }],
      tools: [echo],
    });
    expect(String(toolResults(result.messages)[0]!.result)).toMatch(/not valid JSON/);
  });

  it("turns a thrown error into an error result", async () => {
    const boom = defineTool({
      name: "boom",
      description: "b",
      input: z.object({}),
      execute: () => {
        throw new Error("kaput");
      },
    });
    const { result, events } = await run({
      script: [{ toolCalls: [{ name: "boom", args: {} }] }, { text: "ok" }],
      tools: [boom],
    });
    expect(toolResults(result.messages)[0]).toMatchObject({ result: "Error: kaput", isError: true });
    expect(ofType(events, "tool_call_update").at(-1)).toMatchObject({ status: "end", isError: true });
  });

  it("times out a slow tool (per tool and per loop) and aborts its signal", async () => {
    let sawAbort = false;
    const slow = defineTool({
      name: "slow",
      description: "s",
      input: z.object({}),
      timeoutMs: 20,
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => (sawAbort = true));
          setTimeout(() => resolve("late"), 500);
        }),
    });
    const { result } = await run({
      script: [{ toolCalls: [{ name: "slow", args: {} }] }, { text: "ok" }],
      tools: [slow],
    });
    expect(toolResults(result.messages)[0]).toMatchObject({ isError: true });
    expect(String(toolResults(result.messages)[0]!.result)).toMatch(/timed out after 20 ms/);
    expect(sawAbort).toBe(true);

    const { tool } = sleeper();
    const second = await run({
      script: [{ toolCalls: [{ name: "sleep", args: { ms: 1000 } }] }, { text: "ok" }],
      tools: [tool],
      toolTimeoutMs: 15,
    });
    expect(String(toolResults(second.result.messages)[0]!.result)).toMatch(/timed out after 15 ms/);
  });

  it("truncates results above maxToolResultBytes with a notice", async () => {
    const big = defineTool({ name: "big", description: "b", input: z.object({}), execute: () => "é".repeat(10_000) });
    const obj = defineTool({
      name: "obj",
      description: "o",
      input: z.object({}),
      execute: () => ({ rows: Array.from({ length: 500 }, (_, i) => ({ i })) }),
    });
    const { result } = await run({
      script: [
        {
          toolCalls: [
            { name: "big", args: {} },
            { name: "obj", args: {} },
          ],
        },
        { text: "ok" },
      ],
      tools: [big, obj],
      budget: { maxToolResultBytes: 1000 },
    });
    const [a, b] = toolResults(result.messages);
    const text = String(a!.result);
    // The notice is part of the result: result and notice together fit in maxToolResultBytes.
    expect(text.startsWith("é".repeat(450))).toBe(true);
    expect(text).toMatch(/\n…\[truncated: kept (\d+) of 20000 bytes\]$/);
    const kept = Number(/kept (\d+) of/.exec(text)![1]);
    expect(new TextEncoder().encode(text.slice(0, kept / 2)).length).toBe(kept);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(1000);
    expect(new TextEncoder().encode(text).length).toBeGreaterThan(990);
    expect(typeof b!.result).toBe("string");
    expect(String(b!.result)).toMatch(/^\{"rows":\[/);
    expect(String(b!.result)).toMatch(/truncated: kept \d+ of \d+ bytes\]$/);
    expect(new TextEncoder().encode(String(b!.result)).length).toBeLessThanOrEqual(1000);
  });

  it("keeps small structured results as JSON values", async () => {
    const obj = defineTool({
      name: "obj",
      description: "o",
      input: z.object({}),
      execute: () => ({ ok: true, when: new Date(0) }),
    });
    const { result } = await run({
      script: [{ toolCalls: [{ name: "obj", args: {} }] }, { text: "ok" }],
      tools: [obj],
    });
    expect(toolResults(result.messages)[0]!.result).toEqual({ ok: true, when: "1970-01-01T00:00:00.000Z" });
  });

  it("appends results in the model's call order whatever the completion order", async () => {
    const { tool } = sleeper();
    const { result, events } = await run({
      script: [
        {
          toolCalls: [
            { id: "a", name: "sleep", args: { ms: 40, tag: "a" } },
            { id: "b", name: "sleep", args: { ms: 1, tag: "b" } },
            { id: "c", name: "sleep", args: { ms: 20, tag: "c" } },
          ],
        },
        { text: "ok" },
      ],
      tools: [tool],
    });
    expect(toolResults(result.messages).map((r) => r.toolCallId)).toEqual(["a", "b", "c"]);
    const ends = ofType(events, "tool_call_update")
      .filter((e) => e.status === "end")
      .map((e) => e.toolCallId);
    expect(ends).toEqual(["b", "c", "a"]);
  });

  it("applies zod defaults and transforms before execute, but reports the model's own args", async () => {
    let seen: unknown;
    const tool = defineTool({
      name: "cfg",
      description: "c",
      input: z.object({ n: z.number().default(3), s: z.string().transform((v) => v.toUpperCase()) }),
      execute: (args) => ((seen = args), "ok"),
    });
    const { events } = await run({
      script: [{ toolCalls: [{ name: "cfg", args: { s: "abc" } }] }, { text: "ok" }],
      tools: [tool],
    });
    expect(seen).toEqual({ n: 3, s: "ABC" });
    expect(ofType(events, "tool_call_update")[0]!.args).toEqual({ s: "abc" });
  });

  it("hands tools their context", async () => {
    let ctxSeen: Record<string, unknown> = {};
    const tool = defineTool({
      name: "ctx",
      description: "c",
      input: z.object({}),
      execute: (_a, ctx) => ((ctxSeen = { ...ctx, signal: typeof ctx.signal.aborted }), "ok"),
    });
    await run({
      script: [{ toolCalls: [{ id: "t1", name: "ctx", args: {} }] }, { text: "ok" }],
      tools: [tool],
      context: { userId: "u1" },
      sessionId: "s1",
      agentId: "a1",
      policy: defaultPolicy("thread"),
    });
    expect(ctxSeen).toMatchObject({
      toolCallId: "t1",
      depth: 0,
      parentId: null,
      host: { userId: "u1" },
      sessionId: "s1",
      agentId: "a1",
      signal: "boolean",
    });
    expect((ctxSeen.policy as { classes: string[] }).classes).toContain("safe");
  });
});
