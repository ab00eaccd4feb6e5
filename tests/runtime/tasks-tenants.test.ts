import { describe, expect, it } from "vitest";
import { createAgentRegistry, InvalidArgumentError, type ModelRequest, type TenantGuard } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";

const registry = () => createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]);

/** The planner submits a plan; the actor finishes. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (request.system.includes("# CURRENT ROLE: PLANNER") && last.role === "user") {
    return {
      toolCalls: [
        {
          name: "create_artifact",
          args: { filename: "plan.md", kind: "plan", content: "Goal: tidy\n\n1. Look\n2. Do" },
        },
      ],
    };
  }
  return { text: "Done." };
}

/** The error a promise rejects with. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error("resolved"),
    (error: unknown) => error,
  );

describe("tasks: a tenant guard on the calls that take only a task id", () => {
  it("tenant B with tenant A's task id: every call says 'unknown task', as for an id that does not exist, and changes nothing", async () => {
    const { runtime, store } = makeRuntime(script, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes", scope: "acme/alice" });
    expect(task.status).toBe("awaiting_review");
    const records = (await store.load(task.taskId)).length;
    const calls = (id: string, guard: TenantGuard) => [
      () => runtime.tasks.approve(id, guard),
      () => runtime.tasks.revise(id, "more", guard),
      () => runtime.tasks.reply(id, "hello", guard),
      () => runtime.tasks.rename(id, "stolen", guard),
      () => runtime.tasks.cancel(id, guard),
      () => runtime.tasks.delete(id, guard),
      () => runtime.tasks.artifacts(id, guard),
    ];
    for (const guard of [
      { scope: "globex" },
      { scopePrefix: "globex" },
      { scope: "acme" },
      { scopePrefix: "acme/bob" },
    ] satisfies TenantGuard[]) {
      const attacks = calls(task.taskId, guard);
      const unknown = calls("no-such-task", guard);
      for (let i = 0; i < attacks.length; i++) {
        const error = await rejection(attacks[i]!());
        const baseline = await rejection(unknown[i]!());
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        expect((error as Error).message).toBe((baseline as Error).message.replace("no-such-task", task.taskId));
      }
      expect(await runtime.tasks.get(task.taskId, guard)).toBeUndefined();
    }
    // Nothing changed: same status, title and log.
    expect(await runtime.tasks.get(task.taskId)).toMatchObject({ status: "awaiting_review", title: "tidy the notes" });
    expect((await store.load(task.taskId)).length).toBe(records);
    // A bad guard is the host's mistake, named.
    await expect(runtime.tasks.get(task.taskId, { scope: "acme/alice", scopePrefix: "acme/" })).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e),
    );

    // Within the guard, everything works.
    expect(await runtime.tasks.get(task.taskId, { scope: "acme/alice" })).toMatchObject({ taskId: task.taskId });
    expect(await runtime.tasks.rename(task.taskId, "tidy up", { scopePrefix: "acme/" })).toMatchObject({
      title: "tidy up",
    });
    expect(await runtime.tasks.artifacts(task.taskId, { scopePrefix: "" })).toHaveLength(1);
    expect((await runtime.tasks.approve(task.taskId, { scopePrefix: "acme/" })).status).toBe("complete");
    expect((await runtime.tasks.get(task.taskId, { scope: "acme/alice" }))?.status).toBe("completed");
    await runtime.close();
  });

  it("an unscoped task is outside every guard", async () => {
    const { runtime } = makeRuntime(script, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes" });
    expect(await runtime.tasks.get(task.taskId, { scopePrefix: "" })).toBeUndefined();
    await expect(runtime.tasks.cancel(task.taskId, { scope: "acme" })).rejects.toThrow(`Unknown task "${task.taskId}"`);
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("awaiting_review");
    await runtime.close();
  });
});
