import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  InvalidArgumentError,
  type HistoryRecord,
  type ModelRequest,
  type RuntimeEvent,
} from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";

const registry = () =>
  createAgentRegistry([
    { agentId: "dev", displayName: "Dev" },
    { agentId: "ops", displayName: "Ops" },
  ]);
const plan = (goal: string) => `Goal: ${goal}\n\n1. Look around\n2. Do it`;

/**
 * Planner: submits a plan (goal from the latest user message). Actor: asks one question when told
 * to ("ask" in the plan), then finishes; "fail" in the plan makes the provider fail.
 */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const planning = request.system.includes("# CURRENT ROLE: PLANNER");
  if (last.role === "user") {
    const text = typeof last.content === "string" ? last.content : "";
    if (planning)
      return {
        toolCalls: [
          {
            name: "create_artifact",
            args: { filename: "plan.md", kind: "plan", content: plan(text.split("\n").at(-1)!) },
          },
        ],
      };
    if (text.includes("fail")) return { error: new Error("provider down") };
    if (text.includes("ask"))
      return {
        toolCalls: [
          { name: "ask_user", args: { question: "Go?", severity: "major", options: [{ label: "Yes", value: "yes" }] } },
        ],
      };
    return { text: "Done." };
  }
  return { text: planning ? "Plan submitted." : "Done." };
}

const statuses = (events: RuntimeEvent[], taskId: string) =>
  events.flatMap((e) => (e.type === "task_status" && e.taskId === taskId ? [`${e.from ?? "-"}>${e.to}`] : []));
const taskRecords = (records: HistoryRecord[]) => records.filter((r) => r.kind === "task");

describe("tasks", () => {
  it("runs plan → review → revise → approve → completed, each transition a record and an event", async () => {
    const { runtime, events, store } = makeRuntime(script, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes" });
    expect(task).toMatchObject({
      status: "awaiting_review",
      agentId: "dev",
      title: "tidy the notes",
      sessionId: task.taskId,
    });
    expect(events.filter((e) => e.type === "planning_started")).toHaveLength(1);
    expect(events.find((e) => e.type === "plan_ready")).toMatchObject({
      taskId: task.taskId,
      plan: { goal: "tidy the notes" },
    });

    await runtime.tasks.revise(task.taskId, "merge duplicates first");
    const revised = await runtime.tasks.get(task.taskId);
    expect(revised?.status).toBe("awaiting_review");
    const artifacts = await runtime.tasks.artifacts(task.taskId);
    expect(artifacts.map((a) => a.content)).toEqual([plan("tidy the notes"), plan("merge duplicates first")]);
    expect(revised?.planArtifactId).toBe(artifacts[1]!.artifactId);

    const result = await runtime.tasks.approve(task.taskId);
    expect(result.status).toBe("complete");
    // The actor got the approved (revised) plan.
    const records = await store.load(task.taskId);
    const approved = records.find(
      (r) =>
        r.kind === "message" && typeof r.message.content === "string" && r.message.content.includes("<approved_plan>"),
    );
    expect(approved && approved.kind === "message" && approved.message.content).toContain("merge duplicates first");
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("completed");
    const path = [
      "->planning",
      "planning>awaiting_review",
      "awaiting_review>planning",
      "planning>awaiting_review",
      "awaiting_review>executing",
      "executing>completed",
    ];
    expect(statuses(events, task.taskId)).toEqual(path);
    expect(taskRecords(records).map((r) => `${r.from ?? "-"}>${r.to}`)).toEqual(path);
  });

  it("takes a task id from the host, known before planning ends; a taken or bad id changes nothing", async () => {
    const { runtime, events, store } = makeRuntime(script, { registry: registry() });
    let seenWhilePlanning: string | undefined;
    runtime.events.on("event", (event) => {
      if (event.type === "planning_started") seenWhilePlanning = event.taskId;
    });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy", taskId: "chat-42" });
    expect(task).toMatchObject({ taskId: "chat-42", sessionId: "chat-42", status: "awaiting_review" });
    expect(seenWhilePlanning).toBe("chat-42");
    const sessions = (await store.listSessions()).length;
    const published = events.length;
    await expect(runtime.tasks.create({ agentId: "dev", content: "again", taskId: "chat-42" })).rejects.toThrow(
      InvalidArgumentError,
    );
    for (const taskId of ["", "x".repeat(257), "a\nb", 42 as unknown as string]) {
      await expect(runtime.tasks.create({ agentId: "dev", content: "again", taskId })).rejects.toThrow(
        /taskId must be/,
      );
    }
    expect((await store.listSessions()).length).toBe(sessions);
    expect(events.length).toBe(published);
    expect((await runtime.tasks.get("chat-42"))?.status).toBe("awaiting_review");
  });

  it("refuses every transition the lifecycle forbids, changing nothing", async () => {
    const { runtime, store } = makeRuntime(script, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy" });
    await runtime.tasks.approve(task.taskId);
    // completed: nothing more.
    const before = (await store.load(task.taskId)).length;
    for (const attempt of [
      () => runtime.tasks.approve(task.taskId),
      () => runtime.tasks.revise(task.taskId, "again"),
      () => runtime.tasks.cancel(task.taskId),
    ]) {
      await expect(attempt()).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
    }
    expect((await store.load(task.taskId)).length).toBe(before);
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("completed");

    // planning (no plan submitted yet) cannot be approved or revised.
    const noPlan = makeRuntime([{ text: "thinking..." }], { registry: registry() });
    const pending = await noPlan.runtime.tasks.create({ agentId: "dev", content: "tidy" });
    expect(pending.status).toBe("planning");
    await expect(noPlan.runtime.tasks.approve(pending.taskId)).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    await expect(noPlan.runtime.tasks.revise(pending.taskId, "x")).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    expect((await noPlan.runtime.tasks.get(pending.taskId))?.status).toBe("planning");
    // cancelled is final.
    await noPlan.runtime.tasks.cancel(pending.taskId);
    await expect(noPlan.runtime.tasks.cancel(pending.taskId)).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    await expect(runtime.tasks.approve("no-such-task")).rejects.toSatisfy((e) => InvalidArgumentError.isInstance(e));
  });

  it("of two concurrent approvals exactly one moves the task", async () => {
    const { runtime } = makeRuntime(script, { registry: registry() });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy" });
    const outcomes = await Promise.allSettled([runtime.tasks.approve(task.taskId), runtime.tasks.approve(task.taskId)]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("completed");
  });

  it("ends failed when the execution does not complete, and waits (executing) on a question until answered", async () => {
    const { runtime } = makeRuntime(script, { registry: registry() });
    const failing = await runtime.tasks.create({ agentId: "dev", content: "fail" });
    expect((await runtime.tasks.approve(failing.taskId)).status).toBe("error");
    expect((await runtime.tasks.get(failing.taskId))?.status).toBe("failed");

    const asking = await runtime.tasks.create({ agentId: "dev", content: "ask" });
    expect((await runtime.tasks.approve(asking.taskId)).status).toBe("suspended");
    expect((await runtime.tasks.get(asking.taskId))?.status).toBe("executing");
    const [question] = await runtime.pendingQuestions({ sessionId: asking.taskId });
    await runtime.answerQuestion(question!.questionId, { value: "yes" });
    expect((await runtime.tasks.get(asking.taskId))?.status).toBe("completed");
  });

  it("lists by scope, status and agent, and survives a new runtime on the same store", async () => {
    const { runtime, store } = makeRuntime(script, { registry: registry() });
    const a = await runtime.tasks.create({ agentId: "dev", content: "one", scope: "alice" });
    const b = await runtime.tasks.create({ agentId: "ops", content: "two", scope: "alice" });
    const c = await runtime.tasks.create({ agentId: "dev", content: "three", scope: "bob" });
    await runtime.tasks.cancel(b.taskId);
    await runtime.send({ agentId: "dev", content: "not a task", scope: "alice" });

    const again = makeRuntime(script, { registry: registry(), store });
    const ids = (tasks: { taskId: string }[]) => tasks.map((t) => t.taskId).sort();
    expect(ids(await again.runtime.tasks.list({ scope: "alice" }))).toEqual([a.taskId, b.taskId].sort());
    expect(ids(await again.runtime.tasks.list({ status: "awaiting_review" }))).toEqual([a.taskId, c.taskId].sort());
    expect(ids(await again.runtime.tasks.list({ agentId: "dev", scope: "bob" }))).toEqual([c.taskId]);
    expect(await again.runtime.tasks.get(b.taskId)).toMatchObject({
      status: "cancelled",
      scope: "alice",
      agentId: "ops",
    });
    // The new runtime carries on the lifecycle.
    await again.runtime.tasks.approve(a.taskId);
    expect((await again.runtime.tasks.get(a.taskId))?.status).toBe("completed");
  });
});
