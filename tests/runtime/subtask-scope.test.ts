import { describe, expect, it } from "vitest";
import { createAgentRegistry, type ModelRequest } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

const isChild = (request: ModelRequest) => request.system.startsWith("You are a sub-agent");
const registry = createAgentRegistry([
  { agentId: "denied", displayName: "Denied", systemPrompt: "You are denied.", toolDenylist: ["run_subtask"] },
  { agentId: "nothing", displayName: "Nothing", systemPrompt: "You are nothing.", toolAllowlist: [] },
  { agentId: "open", displayName: "Open", systemPrompt: "You are open." },
]);

/** Every agent asks for one sub-task, then answers; a child answers at once. */
function subtaskRuntime() {
  return makeRuntime(
    (request) => {
      if (isChild(request)) return { text: "child done" };
      return request.messages.at(-1)!.role === "user"
        ? { toolCalls: [{ id: "sub_1", name: "run_subtask", args: { title: "Part", instructions: "do part" } }] }
        : { text: "root done" };
    },
    { registry },
  );
}

describe("run_subtask under an agent definition's tool lists (runtime)", () => {
  it.each(["denied", "nothing"])(
    "agent %s: not offered, not in the prompt, and a call is refused as an unknown tool",
    async (agentId) => {
      const { runtime, provider, events } = subtaskRuntime();
      const result = await runtime.send({ agentId, content: "split the work" });
      const first = provider.calls[0]!;
      expect(first.tools.map((t) => t.name)).not.toContain("run_subtask");
      expect(first.system).not.toContain("run_subtask");
      expect(provider.calls.some(isChild)).toBe(false);
      const end = events.find((e) => e.type === "tool_call_update" && e.toolCallId === "sub_1" && e.status === "end");
      expect(end).toMatchObject({ isError: true, refused: "unknown_tool" });
      expect(result.status).toBe("complete");
      await runtime.close();
    },
  );

  it("an agent without lists is offered run_subtask and runs the sub-task", async () => {
    const { runtime, provider } = subtaskRuntime();
    await runtime.send({ agentId: "open", content: "split the work" });
    expect(provider.calls[0]!.tools.map((t) => t.name)).toContain("run_subtask");
    expect(provider.calls[0]!.system).toContain("- run_subtask:");
    expect(provider.calls.some(isChild)).toBe(true);
    await runtime.close();
  });
});
