import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type ToolContext } from "@agentry/core";
import { TOOL_LOG_LIMITS } from "../../src/loop/tool-log.js";
import type { ToolLogLevel } from "../../src/contracts/loop-event.js";
import { ofType, run } from "./helpers.js";

const calls = (...names: string[]) => [
  { toolCalls: names.map((name, i) => ({ id: `c${i}`, name, args: {} })) },
  { text: "done" },
];

describe("tool log lines (ctx.log → tool_log events)", () => {
  it("emits a tool's progress lines between its start and end, with the call's id, name and level", async () => {
    const progress = defineTool({
      name: "progress",
      description: "Logs its progress",
      input: z.object({}),
      execute: async (_args, ctx) => {
        ctx.log?.("info", "step 1 of 2");
        await Promise.resolve();
        ctx.log?.("warn", "step 2 slow");
        return "ok";
      },
    });
    const { events } = await run({ script: calls("progress"), tools: [progress] });
    const trail = events.flatMap((e) =>
      e.type === "tool_log"
        ? [`log ${e.toolCallId} ${e.name} ${e.level} ${e.message}`]
        : e.type === "tool_call_update"
          ? [e.status]
          : [],
    );
    expect(trail).toEqual(["start", "log c0 progress info step 1 of 2", "log c0 progress warn step 2 slow", "end"]);
    expect(ofType(events, "tool_log")[0]).toMatchObject({ depth: 0, parentId: null });
  });

  it("cuts long lines, keeps at most linesPerCall lines per call, reads an unknown level as info, never throws", async () => {
    const chatty = defineTool({
      name: "chatty",
      description: "Logs a lot",
      input: z.object({}),
      execute: (_args, ctx) => {
        ctx.log?.("info", "x".repeat(TOOL_LOG_LIMITS.lineChars + 500));
        ctx.log?.("shout" as ToolLogLevel, { toString: () => "odd" } as unknown as string);
        const hostile = new Proxy(
          {},
          {
            get: () => {
              throw new Error("no");
            },
          },
        ) as unknown as string;
        ctx.log?.("error", hostile);
        for (let i = 0; i < TOOL_LOG_LIMITS.linesPerCall * 2; i++) ctx.log?.("debug", `line ${i}`);
        return "ok";
      },
    });
    const { events, result } = await run({ script: calls("chatty", "chatty"), tools: [chatty] });
    expect(result.status).toBe("complete");
    const lines = ofType(events, "tool_log");
    const first = lines.filter((e) => e.toolCallId === "c0");
    expect(first).toHaveLength(TOOL_LOG_LIMITS.linesPerCall - 1); // the unreadable one is dropped, and still counts
    expect(first[0]!.message).toHaveLength(TOOL_LOG_LIMITS.lineChars);
    expect(first[0]!.message.endsWith("…")).toBe(true);
    expect(first[1]).toMatchObject({ level: "info", message: "odd" });
    // The second call has its own allowance.
    expect(lines.filter((e) => e.toolCallId === "c1")).toHaveLength(TOOL_LOG_LIMITS.linesPerCall - 1);
  });

  it("drops lines written after the call ended", async () => {
    let kept: ToolContext | undefined;
    const early = defineTool({
      name: "early",
      description: "Logs, and keeps its context",
      input: z.object({}),
      execute: (_args, ctx) => {
        ctx.log?.("info", "in time");
        kept = ctx;
        return "ok";
      },
    });
    const late = defineTool({
      name: "late",
      description: "Logs through the first call's context",
      input: z.object({}),
      execute: () => {
        kept!.log?.("info", "too late");
        return "ok";
      },
    });
    const script = [
      { toolCalls: [{ id: "c0", name: "early", args: {} }] },
      { toolCalls: [{ id: "c1", name: "late", args: {} }] },
      { text: "done" },
    ];
    const { events } = await run({ script, tools: [early, late] });
    expect(ofType(events, "tool_log").map((e) => `${e.toolCallId} ${e.message}`)).toEqual(["c0 in time"]);
  });
});
