import { describe, expect, it } from "vitest";
import { makeRuntime } from "./helpers.js";

describe("tool-call ids that name Object.prototype members", () => {
  for (const [sub, del] of [
    ["constructor", "toString"],
    ["__proto__", "hasOwnProperty"],
  ]) {
    it(`a sub-task called "${sub}" with a call "${del}" suspends, resumes and completes`, async () => {
      const { runtime, todo } = makeRuntime((request) => {
        const last = request.messages.at(-1)!;
        if (request.system.startsWith("You are a sub-agent")) {
          return last.role === "user"
            ? { toolCalls: [{ id: del, name: "todo_delete", args: { item: "milk" } }] }
            : { text: "child deleted it" };
        }
        return last.role === "user"
          ? { toolCalls: [{ id: sub, name: "run_subtask", args: { title: "Clean", instructions: "delete milk" } }] }
          : { text: "root: done" };
      });
      todo.items.push("milk");
      const suspended = await runtime.send({ agentId: "todo", content: "clean up" });
      expect(suspended.status).toBe("suspended");
      const [pending] = await runtime.pendingApprovals();
      expect(pending).toBeDefined();
      const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
      expect(resumed).toMatchObject({ status: "complete", text: "root: done" });
      expect(todo.items).toEqual([]);
    });
  }
});
