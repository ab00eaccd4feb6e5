import { describe, expect, it } from "vitest";
import { createFakeProvider } from "@agentry/core/testing";
import { echo, run } from "./helpers.js";

describe("ModelRequest.caller (bare loop)", () => {
  it("tells the root from a sub-task: depth, parentId and the sub-task's title", async () => {
    const provider = createFakeProvider((request) => {
      if (request.caller?.depth === 1)
        return request.messages.length === 1
          ? { toolCalls: [{ name: "echo", args: { text: "x" } }] }
          : { text: "child done" };
      return request.messages.length === 1
        ? { toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Count things", instructions: "count" } }] }
        : { text: "root done" };
    });
    const { result } = await run({ provider, tools: [echo] });
    expect(result.status).toBe("complete");
    expect(result.text).toBe("root done");
    expect(provider.calls.map((call) => call.caller)).toEqual([
      { depth: 0, parentId: null },
      { depth: 1, parentId: "sub_1", subtaskTitle: "Count things" },
      { depth: 1, parentId: "sub_1", subtaskTitle: "Count things" },
      { depth: 0, parentId: null },
    ]);
  });

  it("carries the agent, session and run ids the host gave, and no made-up run id", async () => {
    const given = await run({ script: [{ text: "hi" }], agentId: "todo", sessionId: "s-1", runId: "r-1" });
    expect(given.provider.calls[0]!.caller).toEqual({
      agentId: "todo",
      sessionId: "s-1",
      runId: "r-1",
      depth: 0,
      parentId: null,
    });
    const bare = await run({ script: [{ text: "hi" }] });
    expect(bare.provider.calls[0]!.caller).toEqual({ depth: 0, parentId: null });
  });
});
