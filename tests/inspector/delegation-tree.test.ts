import { describe, expect, it } from "vitest";
import { createInspector } from "@agentry/core/inspector";
import { multiRuntime, toolResultOf } from "../runtime/multi-agent-helpers.js";

describe("inspector: delegations", () => {
  it("an agents_message call is a delegation node naming the target session, whose own tree the inspector shows", async () => {
    const { runtime } = multiRuntime({
      general: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: JSON.stringify(toolResultOf(request, "agents_message")) }
          : { toolCalls: [{ name: "agents_message", args: { agentId: "todo", content: "add milk" } }] },
      todo: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "Milk added." }
          : { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] },
    });
    const turn = await runtime.send({ agentId: "general", content: "ask todo to add milk" });
    const inspector = createInspector({ runtime, authorize: () => ({ scopePrefix: "", canAct: false }) });
    const read = async (path: string) => (await inspector(new Request(`http://x${path}`))).json();
    const detail = await read(`/api/sessions/${turn.sessionId}`);
    const delegation = detail.turns[0].children[0].children[0];
    expect(delegation).toMatchObject({ kind: "delegation", label: "agents_message → todo", status: "ok" });
    expect(typeof delegation.sessionId).toBe("string");
    const target = await read(`/api/sessions/${delegation.sessionId}`);
    expect(target.session.agentId).toBe("todo");
    expect(target.turns[0].children[0].children[0]).toMatchObject({
      kind: "tool_call",
      label: "todo_add",
      status: "ok",
    });
  });
});
