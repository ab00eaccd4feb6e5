import { describe, expect, it } from "vitest";
import { ApprovalNotFoundError, createAgentRegistry, type ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: "done" };
  return textOf(last).includes("ask")
    ? {
        toolCalls: [
          { name: "ask_user", args: { question: "Which?", severity: "minor", options: [{ label: "A", value: "a" }] } },
        ],
      }
    : { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] };
}

describe("resolveApproval / answerQuestion with a tenant guard", () => {
  it("tenant B cannot decide tenant A's approval or answer its question: the same 'not found' as an unknown id, nothing changes", async () => {
    const { runtime, todo } = makeRuntime(script, {
      registry: createAgentRegistry([
        { agentId: "todo", displayName: "Todo", toolAllowlist: ["todo_*", "ask_user"], role: "actor" },
      ]),
    });
    todo.items.push("milk");
    const approval = await runtime.send({ agentId: "todo", content: "delete milk", scope: "tenant-a/eu" });
    const question = await runtime.send({
      agentId: "todo",
      content: "ask me",
      scope: "tenant-a/eu",
      session: "create",
    });
    const requestId = approval.pendingApprovals![0]!.requestId;
    const questionId = question.pendingApprovals![0]!.requestId;
    const unknown = await runtime
      .resolveApproval("no-such-request", { approved: true, scope: "tenant-b" })
      .catch((e: unknown) => e);
    for (const attempt of [
      runtime.resolveApproval(requestId, { approved: true, scope: "tenant-b" }),
      runtime.resolveApproval(requestId, { approved: true, scopePrefix: "tenant-b" }),
      runtime.resolveApproval(requestId, { approved: true, scope: "tenant-a" }),
      runtime.answerQuestion(questionId, { value: "a", scopePrefix: "tenant-b/" }),
    ]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(ApprovalNotFoundError.isInstance(error)).toBe(true);
      expect((error as Error).message.replace(requestId, "<id>").replace(questionId, "<id>")).toBe(
        (unknown as Error).message.replace("no-such-request", "<id>"),
      );
    }
    expect(todo.items).toEqual(["milk"]);
    expect((await runtime.pendingApprovals()).length).toBe(1);
    // Inside the guard it works.
    expect((await runtime.resolveApproval(requestId, { approved: true, scopePrefix: "tenant-a/" })).status).toBe(
      "complete",
    );
    expect((await runtime.answerQuestion(questionId, { value: "a", scope: "tenant-a/eu" })).status).toBe("complete");
    expect(todo.items).toEqual([]);
  });
});
