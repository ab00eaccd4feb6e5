import { describe, expect, it } from "vitest";
import { createAgentRegistry, InvalidArgumentError, MemorySessionStore, type ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";

const registry = () => createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]);
const plan = "Goal: Tidy the notes\n\n1. Merge duplicates\n2. Sort by date";
const isInvalid = (error: unknown) => InvalidArgumentError.isInstance(error);
const lastUserText = (request: ModelRequest) => {
  const content = request.messages.findLast((m) => m.role === "user")?.content;
  return typeof content === "string" ? content : "";
};

/** Planner: asks which notes first (in text, or with ask_user when the request says "ask"), submits a plan once told. */
function clarifying(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: "Plan submitted." };
  const text = lastUserText(request);
  if (text.includes("work notes"))
    return { toolCalls: [{ name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: plan } }] };
  if (text.includes("ask"))
    return {
      toolCalls: [
        { name: "ask_user", args: { question: "Which notes?", severity: "minor", options: [], allow_custom: true } },
      ],
    };
  return { text: "Which notes: work or personal?" };
}

describe("tasks.reply", () => {
  it("answers a planner that asked in text: the task stays planning until the plan comes, where revise refuses", async () => {
    const { runtime, events } = makeRuntime(clarifying, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy my notes" });
    expect(task.status).toBe("planning");
    await expect(runtime.tasks.revise(task.taskId, "work notes")).rejects.toSatisfy(isInvalid);
    const result = await runtime.tasks.reply(task.taskId, "The work notes");
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Plan submitted.");
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("awaiting_review");
    expect(events.filter((e) => e.type === "plan_ready")).toHaveLength(1);
  });

  it("answers a planner waiting on ask_user (the question is superseded and its call closed as a tool result)", async () => {
    const { runtime, store } = makeRuntime(clarifying, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy, ask me first" });
    expect(task.status).toBe("planning");
    expect(await runtime.pendingQuestions({ sessionId: task.taskId })).toHaveLength(1);
    await runtime.tasks.reply(task.taskId, "The work notes");
    expect(await runtime.pendingQuestions({ sessionId: task.taskId })).toEqual([]);
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("awaiting_review");
    const closing = (await store.load(task.taskId)).flatMap((r) =>
      r.kind === "message" && r.message.role === "tool" ? [r.message] : [],
    );
    expect(closing[0]).toMatchObject({ messageType: "tool_result", content: [{ name: "ask_user", isError: true }] });
  });

  it("refuses outside planning and refuses empty content, changing nothing", async () => {
    const { runtime, store } = makeRuntime(clarifying, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy my notes" });
    for (const content of ["", "  ", 42 as unknown as string])
      await expect(runtime.tasks.reply(task.taskId, content)).rejects.toSatisfy(isInvalid);
    await runtime.tasks.reply(task.taskId, "work notes");
    const before = (await store.load(task.taskId)).length;
    await expect(runtime.tasks.reply(task.taskId, "more")).rejects.toThrow(
      /"awaiting_review": reply answers the planner while it is "planning"/,
    );
    await runtime.tasks.cancel(task.taskId);
    await expect(runtime.tasks.reply(task.taskId, "more")).rejects.toSatisfy(isInvalid);
    expect((await store.load(task.taskId)).length).toBe(before + 1); // the cancel's record only
    await expect(runtime.tasks.reply("no-such-task", "x")).rejects.toSatisfy(isInvalid);
  });
});

describe("tasks.rename", () => {
  it("sets the title in any state, seen by get and list and by a new runtime on the same store", async () => {
    const store = new MemorySessionStore();
    const { runtime } = makeRuntime(clarifying, { registry: registry(), store });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy my notes" });
    const renamed = await runtime.tasks.rename(task.taskId, "  Notes cleanup  ");
    expect(renamed).toMatchObject({ taskId: task.taskId, title: "Notes cleanup", status: "planning" });
    await runtime.tasks.cancel(task.taskId);
    expect((await runtime.tasks.rename(task.taskId, "Notes cleanup (dropped)")).title).toBe("Notes cleanup (dropped)");
    const again = makeRuntime(clarifying, { registry: registry(), store });
    expect((await again.runtime.tasks.get(task.taskId))?.title).toBe("Notes cleanup (dropped)");
    expect((await again.runtime.tasks.list()).map((t) => t.title)).toEqual(["Notes cleanup (dropped)"]);
    expect((await again.runtime.tasks.get(task.taskId))?.status).toBe("cancelled");
  });

  it("refuses a bad title or an unknown task", async () => {
    const { runtime } = makeRuntime(clarifying, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy my notes" });
    for (const title of ["", "   ", "x".repeat(121), "a\nb", 7 as unknown as string]) {
      await expect(runtime.tasks.rename(task.taskId, title)).rejects.toSatisfy(isInvalid);
    }
    await expect(runtime.tasks.rename("no-such-task", "x")).rejects.toSatisfy(isInvalid);
    expect((await runtime.tasks.get(task.taskId))?.title).toBe("tidy my notes");
  });
});

describe("tasks.delete", () => {
  it("removes the task's session, history and artifacts", async () => {
    const { runtime, store } = makeRuntime(clarifying, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy my notes" });
    await runtime.tasks.reply(task.taskId, "work notes");
    expect(await runtime.tasks.artifacts(task.taskId)).toHaveLength(1);
    await runtime.tasks.delete(task.taskId);
    expect(await runtime.tasks.get(task.taskId)).toBeUndefined();
    expect(await store.getSession(task.taskId)).toBeUndefined();
    expect(await runtime.tasks.list()).toEqual([]);
    await expect(runtime.tasks.delete(task.taskId)).rejects.toSatisfy(isInvalid);
    await expect(runtime.tasks.artifacts(task.taskId)).rejects.toSatisfy(isInvalid);
  });

  it("stops a running turn of the task first, and deletes once it has ended", async () => {
    const { runtime, store, events } = makeRuntime([{ delayMs: Infinity, text: "never" }], { registry: registry() });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    runtime.events.on("event", (event) => {
      if (event.type === "llm_call_start" && event.sessionId === "t-1") started();
    });
    const creating = runtime.tasks.create({ agentId: "dev", content: "tidy my notes", taskId: "t-1" });
    await running;
    await runtime.tasks.delete("t-1");
    // The turn ended (aborted) before delete resolved, and nothing of the task is left.
    const done = events.find((e) => e.type === "done" && e.sessionId === "t-1");
    expect(done?.type === "done" && done.result.status).toBe("aborted");
    expect(await store.getSession("t-1")).toBeUndefined();
    expect(await runtime.tasks.get("t-1")).toBeUndefined();
    // create settles either way: with the task as its planning turn left it, or saying it was deleted.
    await creating.then(
      (task) => expect(task.status).toBe("planning"),
      (error: unknown) => expect(String(error)).toMatch(/was deleted while it was planning/),
    );
  });
});
