import { describe, expect, it } from "vitest";
import { heldTool, ofType, run, sleeper } from "./helpers.js";

const calls = (n: number, name = "sleep", ms = 20) =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name, args: { ms, tag: `${i}` } }));

describe("parallel execution", () => {
  it("runs parallel-safe calls concurrently, capped by maxParallelPerTurn, refilling a slot as soon as one frees", async () => {
    const held = heldTool();
    const toolCalls = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: "held", args: { tag: `${i}` } }));
    const running = run({
      script: [{ toolCalls }, { text: "ok" }],
      tools: [held.tool],
      budget: { maxParallelPerTurn: 4 },
    });
    // Four run at once (a serial loop would never get past the first).
    await held.whenStarted(4);
    expect(held.stats.running).toBe(4);
    // Ending one starts the next while the other three still run: a pool, not waves of four.
    held.release("0");
    await held.whenStarted(5);
    expect(held.stats.running).toBe(4);
    expect(held.stats.order.slice(0, 6)).toEqual(["start:0", "start:1", "start:2", "start:3", "end:0", "start:4"]);
    held.releaseAll();
    const { result } = await running;
    expect(result.status).toBe("complete");
    expect(held.stats.started).toBe(12);
    expect(held.stats.maxRunning).toBe(4);
  });

  it("runs parallel-unsafe calls one at a time", async () => {
    const { tool, stats } = sleeper("write", { parallelSafe: false });
    await run({ script: [{ toolCalls: calls(4, "write", 5) }, { text: "ok" }], tools: [tool] });
    expect(stats.maxRunning).toBe(1);
    expect(stats.order).toEqual(["start:0", "end:0", "start:1", "end:1", "start:2", "end:2", "start:3", "end:3"]);
  });

  it("keeps an unsafe call between the safe calls around it", async () => {
    const safe = sleeper("read");
    const unsafe = sleeper("write", { parallelSafe: false });
    const log: string[] = [];
    const wrap = (s: typeof safe) => ({
      ...s.tool,
      execute: async (a: { ms: number; tag?: string }, c: Parameters<typeof s.tool.execute>[1]) => {
        log.push(`+${a.tag}`);
        const r = await s.tool.execute(a, c);
        log.push(`-${a.tag}`);
        return r;
      },
    });
    await run({
      script: [
        {
          toolCalls: [
            { name: "read", args: { ms: 10, tag: "r1" } },
            { name: "read", args: { ms: 5, tag: "r2" } },
            { name: "write", args: { ms: 5, tag: "w" } },
            { name: "read", args: { ms: 5, tag: "r3" } },
          ],
        },
        { text: "ok" },
      ],
      tools: [wrap(safe), wrap(unsafe)],
    });
    expect(log.indexOf("+w")).toBeGreaterThan(log.indexOf("-r1"));
    expect(log.indexOf("+w")).toBeGreaterThan(log.indexOf("-r2"));
    expect(log.indexOf("+r3")).toBeGreaterThan(log.indexOf("-w"));
  });

  it("never overlaps calls that share an exclusive lock, even across parallel sub-tasks", async () => {
    const { tool, stats } = sleeper("fs_write", { exclusiveLock: "workspace_fs" });
    const other = sleeper("fetch");
    const script = (request: { system: string; messages: { role: string }[] }) => {
      if (request.system.startsWith("You are a sub-agent")) {
        return request.messages.length === 1
          ? {
              toolCalls: [
                { name: "fs_write", args: { ms: 10 } },
                { name: "fs_write", args: { ms: 10 } },
                { name: "fetch", args: { ms: 10 } },
              ],
            }
          : { text: "child ok" };
      }
      return request.messages.length === 1
        ? {
            toolCalls: [
              ...["a", "b", "c"].map((t) => ({ name: "run_subtask", args: { title: t, instructions: "write" } })),
              { name: "fs_write", args: { ms: 10 } },
            ],
          }
        : { text: "done" };
    };
    const { result } = await run({ script, tools: [tool, other.tool] });
    expect(result.status).toBe("complete");
    expect(stats.order.length).toBe(14);
    expect(stats.maxRunning).toBe(1);
    expect(other.stats.maxRunning).toBeGreaterThan(1);
  });

  it("fans 32 calls out at once with maxParallelPerTurn 32, without piling listeners on one signal", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const { tool, stats } = sleeper();
    const { events } = await run({
      script: [{ toolCalls: calls(32, "sleep", 30) }, { text: "ok" }],
      tools: [tool],
      budget: { maxParallelPerTurn: 32 },
    });
    expect(stats.maxRunning).toBe(32);
    expect(ofType(events, "tool_call_update").filter((e) => e.status === "end")).toHaveLength(32);
    await new Promise((r) => setTimeout(r, 10));
    process.off("warning", onWarning);
    // Every sleeper listens to ctx.signal: each call has its own signal.
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});
