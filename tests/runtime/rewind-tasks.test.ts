import { describe, expect, it } from "vitest";
import { createAgentRegistry, type ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime, textOf } from "./helpers.js";

/** The planner submits a plan whose goal is the latest user message; the actor answers "Done." */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const planning = request.system.includes("# CURRENT ROLE: PLANNER");
  if (last.role === "user" && planning)
    return {
      toolCalls: [
        {
          name: "create_artifact",
          args: { filename: "plan.md", kind: "plan", content: `Goal: ${textOf(last)}\n\n1. Look\n2. Do it` },
        },
      ],
    };
  return { text: planning ? "Plan submitted." : "Done." };
}

describe("a task returns to a checkpoint", () => {
  it("rewinding a task's session takes a revision out of the planner's context; the task's lifecycle goes on", async () => {
    const { runtime, store, provider } = makeRuntime(script, {
      registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
    });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes" });
    expect(task.status).toBe("awaiting_review");
    await runtime.tasks.revise(task.taskId, "only the old ones");
    const feedback = (await store.load(task.sessionId)).find(
      (r) => r.kind === "message" && textOf(r.message).includes("only the old ones"),
    )!;

    // Back to the first plan's checkpoint, then another direction.
    await runtime.rewind(task.sessionId, { before: feedback.id });
    await runtime.tasks.revise(task.taskId, "only the new ones");
    const seen = provider.calls
      .at(-1)!
      .messages.filter((m) => m.role === "user")
      .map((m) => textOf(m));
    expect(seen.some((text) => text.includes("only the old ones"))).toBe(false);
    expect(seen.at(-1)).toContain("only the new ones");
    expect((await runtime.tasks.get(task.taskId))!.status).toBe("awaiting_review");
    const approved = await runtime.tasks.approve(task.taskId);
    expect(approved.text).toBe("Done.");
    expect((await runtime.tasks.get(task.taskId))!.status).toBe("completed");
    // The artifacts of both plans stay (a rewind deletes nothing).
    expect((await runtime.tasks.artifacts(task.taskId)).length).toBe(3);
  });

  it("forking a task's session makes a plain session in the role the task was in, with the task left as it was", async () => {
    const { runtime, provider } = makeRuntime(script, {
      registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
    });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes", scope: "alice" });
    const fork = await runtime.forkSession(task.sessionId, { scope: "alice" });
    expect(fork.attributes).toEqual({ forkedFrom: { sessionId: task.sessionId }, role: "planner" });
    expect(await runtime.tasks.get(fork.sessionId)).toBeUndefined();
    await runtime.send({ agentId: "dev", content: "a plan for the drafts", session: fork.sessionId, scope: "alice" });
    expect(provider.calls.at(-1)!.system).toContain("# CURRENT ROLE: PLANNER");
    expect((await runtime.tasks.get(task.taskId))!.status).toBe("awaiting_review");
    expect((await runtime.tasks.list({ scope: "alice" })).map((t) => t.taskId)).toEqual([task.taskId]);
  });
});
