import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTool } from "@agentry/core";
import { TOOL_PROGRESS_LIMITS } from "../../src/loop/tool-log.js";
import { ofType, run, unmatchedStarts } from "./helpers.js";

const call = (name: string) => [{ toolCalls: [{ id: "c1", name, args: {} }] }, { text: "ok" }];

describe("tools whose execute is an async generator", () => {
  it("each yield is a tool_progress event inside the call; the returned value is what the model reads", async () => {
    const tool = defineTool({
      name: "count",
      description: "Counts",
      input: z.object({}),
      async *execute() {
        yield { step: 1 };
        yield "two";
        return { total: 2 };
      },
    });
    expectTypeOf<ReturnType<typeof tool.execute>>().toEqualTypeOf<
      { total: number } | Promise<{ total: number }> | AsyncGenerator<unknown, { total: number }, undefined>
    >();
    const { events, result, provider } = await run({ script: call("count"), tools: [tool] });
    const types = events
      .filter((e) => e.type === "tool_call_update" || e.type === "tool_progress")
      .map((e) => (e.type === "tool_progress" ? `progress ${JSON.stringify(e.progress)}` : e.status));
    expect(types).toEqual(["start", 'progress {"step":1}', 'progress "two"', "end"]);
    expect(ofType(events, "tool_progress")[0]).toMatchObject({ toolCallId: "c1", name: "count", depth: 0 });
    expect(result.messages[1]).toMatchObject({ content: [{ result: { total: 2 } }] });
    expect(JSON.stringify(provider.calls[1]!.messages)).not.toContain("two");
  });

  it("a value too long is sent as the start of its JSON; one that cannot be read is dropped", async () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error("no");
        },
        ownKeys() {
          throw new Error("no");
        },
      },
    );
    const tool = defineTool({
      name: "big",
      description: "Big",
      input: z.object({}),
      async *execute() {
        yield "x".repeat(TOOL_PROGRESS_LIMITS.valueChars * 2);
        yield hostile;
        return "done";
      },
    });
    const { events, result } = await run({ script: call("big"), tools: [tool] });
    const progress = ofType(events, "tool_progress");
    expect(progress).toHaveLength(1);
    expect(String(progress[0]!.progress)).toHaveLength(TOOL_PROGRESS_LIMITS.valueChars);
    expect(result.status).toBe("complete");
  });

  it("a tool that never stops yielding ends with an error after the limit, and is closed", async () => {
    let closed = false;
    const tool = defineTool({
      name: "forever",
      description: "Forever",
      input: z.object({}),
      async *execute() {
        try {
          for (let i = 0; ; i++) yield i;
        } finally {
          closed = true;
        }
      },
    });
    const { events, result } = await run({ script: call("forever"), tools: [tool] });
    expect(ofType(events, "tool_progress")).toHaveLength(TOOL_PROGRESS_LIMITS.eventsPerCall);
    const end = ofType(events, "tool_call_update").find((e) => e.status === "end")!;
    expect(end).toMatchObject({ isError: true });
    expect(String(end.result)).toContain("preliminary results");
    expect(result.status).toBe("complete");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
  });

  it("a timeout or the turn's abort ends the call and closes the generator", async () => {
    const tool = defineTool({
      name: "slow",
      description: "Slow",
      input: z.object({}),
      timeoutMs: 20,
      async *execute() {
        yield "started";
        await new Promise(() => undefined);
        return "never";
      },
    });
    const { events } = await run({ script: call("slow"), tools: [tool] });
    expect(String(ofType(events, "tool_call_update").find((e) => e.status === "end")!.result)).toMatch(/timed out/);
    expect(unmatchedStarts(events)).toEqual([]);
    // A generator parked at an await is closed when it next resumes; the call did not wait for it.
    expect(ofType(events, "tool_progress")).toHaveLength(1);

    const controller = new AbortController();
    const held = defineTool({
      name: "held",
      description: "Held",
      input: z.object({}),
      async *execute() {
        yield "started";
        controller.abort();
        await new Promise(() => undefined);
        return "never";
      },
    });
    const aborted = await run({ script: call("held"), tools: [held], signal: controller.signal });
    expect(aborted.result.status).toBe("aborted");
    expect(unmatchedStarts(aborted.events)).toEqual([]);
  });
});
