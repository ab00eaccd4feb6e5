import { describe, expect, it } from "vitest";
import { composeToolbelt, defaultPolicy, type AgentDefinition, type ModelRequest } from "@agentry/core";
import { createFakeProvider } from "@agentry/core/testing";
import { echo, ofType, run } from "./helpers.js";

const isChild = (request: ModelRequest) => request.system.startsWith("You are a sub-agent");
const offered = (request: ModelRequest) => request.tools.map((t) => t.name);
const agent = (lists: Partial<AgentDefinition>): AgentDefinition => ({ agentId: "a", displayName: "A", ...lists });
const policy = defaultPolicy();

/** The root asks for one sub-task (with `args`), then answers; a child answers at once. */
function subtaskProvider(args: Record<string, unknown> = {}) {
  return createFakeProvider((request) => {
    if (isChild(request)) return { text: "child done" };
    return request.messages.length === 1
      ? { toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Part", instructions: "do part", ...args } }] }
      : { text: "root done" };
  });
}

/** Runs the loop on the toolbelt `composeToolbelt` makes for an agent with these lists. */
async function runScoped(lists: Partial<AgentDefinition>, args?: Record<string, unknown>) {
  const provider = subtaskProvider(args);
  const tools = composeToolbelt({ tools: [echo], policy, agent: agent(lists) });
  const { events, result } = await run({ provider, tools, policy });
  const end = ofType(events, "tool_call_update").find((e) => e.toolCallId === "sub_1" && e.status === "end");
  return { provider, events, result, end };
}

describe("run_subtask and finish_subtask under an agent's tool lists (composeToolbelt → runUnifiedAgentLoop)", () => {
  it('toolDenylist: ["run_subtask"]: not offered, and a call is refused as an unknown tool; no child runs', async () => {
    const { provider, result, end } = await runScoped({ toolDenylist: ["run_subtask"] });
    expect(offered(provider.calls[0]!)).toEqual(["echo"]);
    expect(provider.calls.some(isChild)).toBe(false);
    expect(end).toMatchObject({ isError: true, refused: "unknown_tool" });
    expect(String(end!.result)).toMatch(/Unknown tool "run_subtask"\. Available tools: echo\./);
    expect(result.status).toBe("complete");
  });

  it("an empty toolAllowlist: nothing is offered, run_subtask included, and a call is refused", async () => {
    const { provider, end } = await runScoped({ toolAllowlist: [] });
    expect(offered(provider.calls[0]!)).toEqual([]);
    expect(provider.calls.some(isChild)).toBe(false);
    expect(end).toMatchObject({ isError: true, refused: "unknown_tool" });
  });

  it("an allowlist that names run_subtask (or no lists at all) keeps it", async () => {
    for (const lists of [{ toolAllowlist: ["echo", "run_subtask"] }, {}, { toolDenylist: ["web_*"] }]) {
      const { provider, end } = await runScoped(lists);
      expect(offered(provider.calls[0]!)).toEqual(["echo", "run_subtask"]);
      expect(end).toMatchObject({ result: "child done" });
    }
  });

  it("finish_subtask taken away: run_subtask is offered without output_schema, and a call with one is refused", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const { provider, end } = await runScoped({ toolDenylist: ["finish_subtask"] }, { output_schema: schema });
    const runSubtask = provider.calls[0]!.tools.find((t) => t.name === "run_subtask")!;
    expect(Object.keys(runSubtask.inputSchema.properties as object)).toEqual([
      "title",
      "instructions",
      "tools",
      "plan_step",
    ]);
    expect(provider.calls.some(isChild)).toBe(false);
    expect(end).toMatchObject({ isError: true, refused: "invalid_arguments" });
    expect(String(end!.result)).toMatch(/finish_subtask is not in your toolbelt/);
    // Without a schema the sub-task runs.
    expect((await runScoped({ toolDenylist: ["finish_subtask"] })).end).toMatchObject({ result: "child done" });
  });

  it("a sub-task follows the same lists as its root (kept here: the child is offered run_subtask too)", async () => {
    const provider = createFakeProvider((request) => {
      if (isChild(request)) return { text: "child" };
      return request.messages.length === 1
        ? { toolCalls: [{ name: "run_subtask", args: { title: "t", instructions: "i" } }] }
        : { text: "x" };
    });
    const tools = composeToolbelt({ tools: [echo], policy, agent: agent({ toolAllowlist: ["echo", "run_subtask"] }) });
    await run({ provider, tools, policy });
    expect(offered(provider.calls.find(isChild)!)).toEqual(["echo", "run_subtask"]);
  });
});
