import { describe, expect, it } from "vitest";
import { createAgentRegistry, MemorySessionStore, type ModelRequest, type RuntimeEvent } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";
import { eventually, lastText, multiRuntime } from "./multi-agent-helpers.js";

const turnsOf = (events: RuntimeEvent[], sessionId: string) => [
  ...new Set(events.filter((e) => e.sessionId === sessionId && e.runId !== "").map((e) => e.turn)),
];

describe("runtime event labels", () => {
  it("numbers a session's turns from 1, read from the store: a new runtime on the same store goes on counting", async () => {
    const store = new MemorySessionStore();
    const first = makeRuntime(() => ({ text: "ok" }), { store });
    const one = await first.runtime.send({ agentId: "general", content: "a" });
    await first.runtime.send({ agentId: "general", content: "b", session: one.sessionId });
    expect(turnsOf(first.events, one.sessionId)).toEqual([1, 2]);
    expect(first.events.filter((e) => e.type === "done").map((e) => e.turn)).toEqual([1, 2]);
    await first.runtime.close();

    const second = makeRuntime(() => ({ text: "ok" }), { store });
    await second.runtime.send({ agentId: "general", content: "c", session: one.sessionId });
    expect(turnsOf(second.events, one.sessionId)).toEqual([3]);
    const other = await second.runtime.send({ agentId: "general", content: "d", session: "create" });
    expect(turnsOf(second.events, other.sessionId)).toEqual([1]);
    // A cleared session numbers again from 1.
    await store.clear(one.sessionId);
    const third = makeRuntime(() => ({ text: "ok" }), { store });
    await third.runtime.send({ agentId: "general", content: "e", session: one.sessionId });
    expect(turnsOf(third.events, one.sessionId)).toEqual([1]);
  });

  it("a turn resumed after an approval keeps its number", async () => {
    const script = (request: ModelRequest): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "deleted" }
        : lastText(request) === "delete"
          ? { toolCalls: [{ name: "todo_delete", args: { item: "x" } }] }
          : { text: "hi" };
    const { runtime, events } = makeRuntime(script);
    const hello = await runtime.send({ agentId: "todo", content: "hello" });
    const suspended = await runtime.send({ agentId: "todo", content: "delete", session: hello.sessionId });
    expect(suspended.status).toBe("suspended");
    const resumed = await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(events.filter((e) => e.runId === resumed.runId).map((e) => e.turn)).not.toContain(undefined);
    expect(new Set(events.filter((e) => e.runId === resumed.runId).map((e) => e.turn))).toEqual(new Set([2]));
    expect(turnsOf(events, hello.sessionId)).toEqual([1, 2]);
  });

  it("a turn continued after its process died keeps its number; the next turn counts on from it", async () => {
    const store = new MemorySessionStore();
    const session = await store.createSession({ agentId: "general" });
    // What a process that died in the session's second turn left behind.
    await store.append(session.sessionId, [
      { id: "a:0", frame: null, kind: "turn", runId: "a", phase: "start", turn: 1 },
      { id: "a:1", frame: null, kind: "message", message: { role: "user", content: "hi" } },
      {
        id: "a:2",
        frame: null,
        kind: "message",
        message: { role: "assistant", content: [{ type: "text", text: "hello" }] },
      },
      { id: "a:3", frame: null, kind: "turn", runId: "a", phase: "end", status: "complete" },
      { id: "job:0", frame: null, kind: "turn", runId: "job", phase: "start", turn: 2 },
      { id: "job:1", frame: null, kind: "message", message: { role: "user", content: "again" } },
    ] as never);
    const { runtime, events } = makeRuntime(() => ({ text: "ok" }), { store });
    const continued = await runtime.send({
      agentId: "general",
      content: "again",
      session: session.sessionId,
      runId: "job",
    });
    expect(continued.runId).toBe("job:retry-1");
    await runtime.send({ agentId: "general", content: "next", session: session.sessionId });
    expect(turnsOf(events, session.sessionId)).toEqual([2, 3]);
  });

  it("labels every event of a task's session with its task id, lifecycle events included; other sessions get none", async () => {
    const script = (request: ModelRequest): FakeTurn => {
      if (!request.system.includes("# CURRENT ROLE: PLANNER")) return { text: "plain" };
      if (request.messages.at(-1)!.role === "tool") return { text: "Plan submitted." };
      return {
        toolCalls: [
          {
            name: "create_artifact",
            args: { filename: "plan.md", kind: "plan", content: "Goal: g\n\n1. Look\n2. Do" },
          },
        ],
      };
    };
    const { runtime, events } = makeRuntime(script, {
      registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
    });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy", taskId: "task-7" });
    const ofTask = events.filter((e) => e.sessionId === task.sessionId);
    expect(ofTask.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        "task_status",
        "planning_started",
        "llm_call_start",
        "artifact_created",
        "plan_ready",
        "done",
      ]),
    );
    expect(ofTask.filter((e) => e.taskId !== "task-7")).toEqual([]);
    const plain = await runtime.send({ agentId: "dev", content: "hi", session: "create" });
    expect(events.filter((e) => e.sessionId === plain.sessionId && e.taskId !== undefined)).toEqual([]);
  });

  it("labels a background agent's events with its session id, its lifecycle events included; the parent's carry none", async () => {
    const { runtime, events, store } = multiRuntime({
      general: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "started" }
          : { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "find it" } }] },
      worker: () => ({ text: "found" }),
    });
    const parent = await runtime.send({ agentId: "general", content: "go" });
    const child = (await store.listSessions()).find((s) => s.sessionId !== parent.sessionId)!.sessionId;
    await eventually(() =>
      events.some((e) => e.type === "subagent_status" && e.sessionId === child && e.to === "waiting_for_merge"),
    );
    const ofChild = events.filter((e) => e.sessionId === child);
    expect(ofChild.map((e) => e.type)).toEqual(expect.arrayContaining(["subagent_status", "llm_call_start", "done"]));
    expect(ofChild.filter((e) => e.subagentId !== child)).toEqual([]);
    const statuses = events.filter((e) => e.type === "subagent_status");
    expect(statuses.filter((e) => e.subagentId !== child)).toEqual([]);
    expect(
      events.filter(
        (e) => e.sessionId === parent.sessionId && e.type !== "subagent_status" && e.subagentId !== undefined,
      ),
    ).toEqual([]);
    await runtime.close();
  });

  it("labels a sub-task that names a plan step, and everything inside it, with the step's index", async () => {
    const script = (request: ModelRequest): FakeTurn => {
      const depth = request.caller?.depth ?? 0;
      const last = request.messages.at(-1)!;
      if (depth === 1)
        return last.role === "tool"
          ? { text: "step done" }
          : { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] };
      if (last.role === "tool") return { text: "all done" };
      return {
        toolCalls: [
          { name: "run_subtask", args: { title: "second", instructions: "add milk", plan_step: 2 } },
          { name: "run_subtask", args: { title: "free", instructions: "add milk" } },
        ],
      };
    };
    const { runtime, events } = makeRuntime(script);
    const result = await runtime.send({ agentId: "todo", content: "carry out the plan" });
    expect(result.status).toBe("complete");
    const starts = events.filter(
      (e) => e.type === "tool_call_update" && e.name === "run_subtask" && e.status === "start",
    );
    const [stepped, free] = starts.map((e) => (e.type === "tool_call_update" ? e.toolCallId : ""));
    expect(
      events.filter((e) => e.type === "tool_call_update" && e.toolCallId === stepped).map((e) => e.stepIndex),
    ).toEqual([1, 1]);
    const inside = events.filter((e) => e.parentId === stepped);
    expect(inside.map((e) => e.type)).toEqual(
      expect.arrayContaining(["llm_call_start", "tool_call_update", "message"]),
    );
    expect(inside.filter((e) => e.stepIndex !== 1)).toEqual([]);
    expect(
      events.filter(
        (e) =>
          (e.parentId === free || (e.type === "tool_call_update" && e.toolCallId === free)) &&
          e.stepIndex !== undefined,
      ),
    ).toEqual([]);
    expect(events.filter((e) => e.depth === 0 && e.type !== "tool_call_update" && e.stepIndex !== undefined)).toEqual(
      [],
    );
  });

  it("a turn resumed after an approval inside a plan step's sub-task keeps labelling that sub-task's events", async () => {
    const script = (request: ModelRequest): FakeTurn => {
      const depth = request.caller?.depth ?? 0;
      const last = request.messages.at(-1)!;
      if (depth === 1)
        return last.role === "tool"
          ? { text: "step done" }
          : { toolCalls: [{ id: "del", name: "todo_delete", args: { item: "milk" } }] };
      if (last.role === "tool") return { text: "all done" };
      return {
        toolCalls: [
          { id: "sub", name: "run_subtask", args: { title: "third", instructions: "delete milk", plan_step: 3 } },
        ],
      };
    };
    const { runtime, events } = makeRuntime(script);
    const suspended = await runtime.send({ agentId: "todo", content: "carry out the plan" });
    expect(suspended.status).toBe("suspended");
    const resumed = await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    const inside = events.filter((e) => e.runId === resumed.runId && e.parentId === "sub");
    expect(inside.map((e) => e.type)).toEqual(expect.arrayContaining(["tool_call_update", "llm_call_start"]));
    expect(inside.filter((e) => e.stepIndex !== 2)).toEqual([]);
    const subEnd = events.find(
      (e) => e.runId === resumed.runId && e.type === "tool_call_update" && e.toolCallId === "sub",
    );
    expect(subEnd?.stepIndex).toBe(2);
  });

  it("refuses a plan_step that is not a whole number from 1 to 1,000, as invalid arguments the model reads", async () => {
    const script = (request: ModelRequest): FakeTurn =>
      request.messages.at(-1)!.role === "tool"
        ? { text: "ok" }
        : { toolCalls: [{ name: "run_subtask", args: { title: "t", instructions: "i", plan_step: 0 } }] };
    const { runtime, events } = makeRuntime(script);
    await runtime.send({ agentId: "todo", content: "go" });
    const end = events.find((e) => e.type === "tool_call_update" && e.status === "end");
    expect(end).toMatchObject({ refused: "invalid_arguments", isError: true });
    expect(end?.stepIndex).toBeUndefined();
  });
});
