import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defaultPolicy, defineTool, type Message, type ModelRequest } from "@agentry/core";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { echo, ofType, run, unmatchedStarts } from "./helpers.js";

const isChild = (r: ModelRequest) => r.system.startsWith("You are a sub-agent");
const instructionsOf = (r: ModelRequest) => String((r.messages[0] as { content: unknown }).content);

describe("sub-tasks", () => {
  it("spawns one child loop per parallel run_subtask call and persists the tree (seed 001 AC 3)", async () => {
    const provider = createFakeProvider((request) => {
      if (isChild(request)) {
        return request.messages.length === 1
          ? { toolCalls: [{ name: "echo", args: { text: instructionsOf(request) } }] }
          : { text: `result of ${instructionsOf(request)}` };
      }
      return request.messages.length === 1
        ? {
            toolCalls: ["a", "b", "c"].map((t) => ({
              id: `sub_${t}`,
              name: "run_subtask",
              args: { title: `Task ${t}`, instructions: t },
            })),
          }
        : { text: "combined" };
    });
    const { events, result } = await run({ provider, tools: [echo] });
    expect(result.status).toBe("complete");
    const childCalls = provider.calls.filter(isChild);
    expect(new Set(childCalls.map(instructionsOf))).toEqual(new Set(["a", "b", "c"]));
    expect(childCalls).toHaveLength(6);
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      content: [
        { toolCallId: "sub_a", result: "result of a" },
        { toolCallId: "sub_b", result: "result of b" },
        { toolCallId: "sub_c", result: "result of c" },
      ],
    });
    // Children's events carry the run_subtask id as parentId and depth 1.
    const childEvents = events.filter((e) => e.depth === 1);
    expect(new Set(childEvents.map((e) => e.parentId))).toEqual(new Set(["sub_a", "sub_b", "sub_c"]));
    // A sub-task's first user message is a message event at the child's depth.
    const firstChildMessage = events.find((e) => e.type === "message" && e.parentId === "sub_a");
    expect(firstChildMessage).toMatchObject({ depth: 1, message: { role: "user", content: "a" } });
    // Tree: 3 containers + 3 nested echo calls, persisted on the final message.
    const final = result.messages.at(-1) as Extract<Message, { role: "assistant" }>;
    const nodes = final.executionTree!.nodes;
    expect(nodes.filter((n) => n.name === "run_subtask").map((n) => [n.id, n.parent_id, n.title])).toEqual([
      ["sub_a", null, "Task a"],
      ["sub_b", null, "Task b"],
      ["sub_c", null, "Task c"],
    ]);
    expect(
      nodes
        .filter((n) => n.name === "echo")
        .map((n) => n.parent_id)
        .sort(),
    ).toEqual(["sub_a", "sub_b", "sub_c"]);
    expect(nodes.find((n) => n.id === "sub_b")?.result_preview).toBe("result of b");
    expect(unmatchedStarts(events)).toEqual([]);
    // Child histories never leak into the root history.
    expect(result.messages.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
  });

  it("returns a depth-limit error past maxDepth instead of recursing (seed 001 AC 4)", async () => {
    const provider = createFakeProvider((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: `saw: ${JSON.stringify(last.content[0]!.result)}` };
      return { toolCalls: [{ name: "run_subtask", args: { title: "deeper", instructions: "recurse" } }] };
    });
    const { events, result } = await run({ provider, budget: { maxDepth: 2 } });
    expect(result.status).toBe("complete");
    expect(Math.max(...events.map((e) => e.depth))).toBe(2);
    const deepest = ofType(events, "tool_call_update").find((e) => e.depth === 2 && e.status === "end");
    expect(deepest?.isError).toBe(true);
    expect(String(deepest?.result)).toMatch(/depth limit \(maxDepth 2\)/);
    expect(ofType(events, "budget_exceeded")).toHaveLength(0);
    // run_subtask is offered below the limit and not at it.
    const depth2 = provider.calls.filter(
      (r) => r.system.includes("sub-agent") && !r.tools.some((t) => t.name === "run_subtask"),
    );
    expect(depth2.length).toBeGreaterThan(0);
    expect(depth2.every((r) => !r.system.includes("run_subtask"))).toBe(true);
    const depth1 = provider.calls.filter(
      (r) => r.system.includes("sub-agent") && r.tools.some((t) => t.name === "run_subtask"),
    );
    expect(depth1.length).toBeGreaterThan(0);
    expect(depth1.every((r) => r.system.includes("run_subtask"))).toBe(true);
  });

  it("narrows the child's tools to the requested subset and never widens them", async () => {
    const other = defineTool({ name: "other", description: "o", input: z.object({}), execute: () => "other" });
    const provider = createFakeProvider((request) => {
      if (isChild(request)) {
        return request.messages.length === 1 ? { toolCalls: [{ name: "other", args: {} }] } : { text: "child done" };
      }
      return request.messages.length === 1
        ? {
            toolCalls: [
              {
                id: "s",
                name: "run_subtask",
                args: { title: "t", instructions: "i", tools: ["echo", "secret_admin"] },
              },
            ],
          }
        : { text: "done" };
    });
    const { events } = await run({ provider, tools: [echo, other] });
    const child = provider.calls.find(isChild)!;
    expect(child.tools.map((t) => t.name)).toEqual(["echo", "run_subtask"]);
    const refused = ofType(events, "tool_call_update").find((e) => e.name === "other" && e.status === "end");
    expect(refused).toMatchObject({ depth: 1, isError: true });
    expect(ofType(events, "warning").find((w) => w.code === "subtask_tools_ignored")?.message).toMatch(/secret_admin/);
  });

  it("validates output_schema through finish_subtask, retrying on an invalid result", async () => {
    const schema = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
    let childTurn = 0;
    const provider = createFakeProvider((request) => {
      if (isChild(request)) {
        childTurn++;
        if (childTurn === 1) return { text: "I think it is three." }; // not allowed to end with text
        if (childTurn === 2) return { toolCalls: [{ name: "finish_subtask", args: { result: { count: "three" } } }] };
        return { toolCalls: [{ name: "finish_subtask", args: { result: { count: 3 } } }] };
      }
      return request.messages.length === 1
        ? {
            toolCalls: [
              { id: "s", name: "run_subtask", args: { title: "Count", instructions: "count", output_schema: schema } },
            ],
          }
        : { text: "done" };
    });
    const { result, events } = await run({ provider });
    expect(result.status).toBe("complete");
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({ content: [{ toolCallId: "s", result: { count: 3 } }] });
    const child = provider.calls.find(isChild)!;
    expect(child.tools.map((t) => t.name)).toContain("finish_subtask");
    expect(child.system).toMatch(/must call finish_subtask/);
    const finishes = ofType(events, "tool_call_update").filter(
      (e) => e.name === "finish_subtask" && e.status === "end",
    );
    expect(finishes.map((f) => f.isError ?? false)).toEqual([true, false]);
    expect(String(finishes[0]!.result)).toMatch(/does not match the required output_schema/);
    // The root never sees finish_subtask.
    expect(
      provider.calls.filter((r) => !isChild(r)).every((r) => !r.tools.some((t) => t.name === "finish_subtask")),
    ).toBe(true);
  });

  it("refuses an invalid output_schema and malformed run_subtask args", async () => {
    const provider = createFakeProvider([
      {
        toolCalls: [
          { name: "run_subtask", args: { title: "x", instructions: "y", output_schema: { type: 12 } } },
          { name: "run_subtask", args: { title: "x" } },
        ],
      },
      { text: "ok" },
    ]);
    const { result } = await run({ provider });
    const results = (result.messages.find((m) => m.role === "tool") as Extract<Message, { role: "tool" }>).content;
    expect(results.every((r) => r.isError)).toBe(true);
    expect(String(results[1]!.result)).toMatch(/instructions/);
  });

  it("gives the parent an error result when a child hits its iteration limit", async () => {
    const provider = createFakeProvider((request) => {
      if (isChild(request)) return { toolCalls: [{ name: "echo", args: { text: "again" } }] };
      return request.messages.length === 1
        ? { toolCalls: [{ id: "s", name: "run_subtask", args: { title: "loop", instructions: "spin" } }] }
        : { text: "gave up" };
    });
    const { result, events } = await run({ provider, tools: [echo], budget: { maxIterationsPerLevel: 3 } });
    expect(result.status).toBe("complete");
    const sub = ofType(events, "tool_call_update").find((e) => e.toolCallId === "s" && e.status === "end");
    expect(sub?.isError).toBe(true);
    expect(String(sub?.result)).toMatch(/iteration limit/);
    expect(ofType(events, "warning").filter((w) => w.code === "tool_loop_exhausted")).toHaveLength(1);
  });

  it("does not offer run_subtask when the policy lacks the subagent class", async () => {
    const provider = createFakeProvider([
      { toolCalls: [{ name: "run_subtask", args: { title: "t", instructions: "i" } }] },
      { text: "ok" },
    ]);
    const policy = { ...defaultPolicy("thread"), classes: ["safe"] };
    const { result } = await run({ provider, policy, tools: [echo] });
    expect(provider.calls[0]!.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(JSON.stringify(result.messages)).toMatch(/not permitted/);
  });

  it("keeps child histories valid and separate", async () => {
    const frames = new Map<string, Message[]>();
    const provider = createFakeProvider((request) => {
      if (isChild(request))
        return request.messages.length === 1
          ? { toolCalls: [{ name: "echo", args: { text: "c" } }] }
          : { text: "child" };
      return request.messages.length === 1
        ? { toolCalls: [{ id: "s", name: "run_subtask", args: { title: "t", instructions: "i" } }] }
        : { text: "root" };
    });
    const { events } = await run({ provider, tools: [echo] });
    for (const e of ofType(events, "message")) {
      if (e.parentId === null) continue;
      frames.set(e.parentId, [...(frames.get(e.parentId) ?? []), e.message]);
    }
    expect(frames.get("s")!.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(historyProblems(frames.get("s")!)).toEqual([]);
  });
});
