import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry, defineTool, type ModelRequest, type RuntimeEvent } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { toTaskEvents, type TaskEvent } from "@agentry/core/ui";
import { makeRuntime } from "../runtime/helpers.js";
import { eventually, multiRuntime } from "../runtime/multi-agent-helpers.js";

const PLAN = "Goal: tidy the notes\n\n1. Merge duplicates\n2. Sort them";

const progress = defineTool({
  name: "progress",
  description: "Works for a while, logging its progress",
  input: z.object({}),
  execute: (_args, ctx) => {
    ctx.log?.("info", "half way");
    ctx.log?.("warn", "slow disk");
    return "merged";
  },
});

/** Planner: says it drafted a plan and submits it. Actor: step 1 as a sub-task that runs `progress`. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (request.system.includes("# CURRENT ROLE: PLANNER")) {
    if (last.role === "tool") return { text: "Plan submitted." };
    return {
      text: "I drafted a plan.",
      toolCalls: [{ id: "art", name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: PLAN } }],
    };
  }
  if ((request.caller?.depth ?? 0) === 1)
    return last.role === "tool" ? { text: "step done" } : { toolCalls: [{ id: "p", name: "progress", args: {} }] };
  if (last.role === "tool") return { text: "All done." };
  return {
    toolCalls: [
      { id: "s1", name: "run_subtask", args: { title: "Merge", instructions: "merge duplicates", plan_step: 1 } },
    ],
  };
}

const line = (e: TaskEvent) => {
  const p = e.payload as Record<string, unknown>;
  const extra = ["to", "tool_name", "message", "content", "filename"].flatMap((k) =>
    typeof p[k] === "string" ? [`${k}=${p[k]}`] : [],
  );
  return [e.type, ...extra].join(" ");
};

describe("toTaskEvents (the task event catalogue)", () => {
  it("a task planned, approved and carried out: the catalogue sequence, with task_id, turn, step_idx and the tool's log lines", async () => {
    const { runtime, events } = makeRuntime(script, {
      registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]),
      tools: [progress],
    });
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes", taskId: "t1" });
    const planning = toTaskEvents(events);
    expect(planning.map(line)).toEqual([
      "task.created",
      "agent.role_changed to=planner",
      "agent.planning_started",
      "agent.deciding",
      "agent.message_stream_started",
      "agent.message_delta content=I ",
      "agent.message_delta content=drafted ",
      "agent.message_delta content=a ",
      "agent.message_delta content=plan.",
      "agent.message_stream_cancelled",
      "agent.plan_message content=I drafted a plan.",
      "agent.tool_calls_preparing",
      "tool.call_started tool_name=create_artifact",
      "tool.call_finished tool_name=create_artifact",
      "artifact.created filename=plan.md",
      "task.status_changed to=awaiting_review",
      "agent.plan_ready",
      "agent.deciding",
      "agent.message_stream_started",
      "agent.message_delta content=Plan ",
      "agent.message_delta content=submitted.",
      "agent.message_stream_completed",
      "agent.plan_message content=Plan submitted.",
      "agent.run_finished",
    ]);
    expect(planning.every((e) => e.payload.task_id === "t1")).toBe(true);
    expect(planning.find((e) => e.type === "agent.plan_ready")?.payload).toMatchObject({
      plan: { goal_summary: "tidy the notes", steps: [{ title: "Merge duplicates" }, { title: "Sort them" }] },
    });
    expect(planning.find((e) => e.type === "agent.deciding")?.payload).toMatchObject({ task_id: "t1", turn: 1 });
    expect(planning.find((e) => e.type === "artifact.created")?.payload).toMatchObject({
      kind: "plan",
      content_preview: PLAN,
    });

    const before = events.length;
    await runtime.tasks.approve(task.taskId);
    const executing = toTaskEvents(events.slice(before));
    expect(
      executing.filter((e) => e.type !== "agent.message_delta" && !e.type.startsWith("agent.message_stream")).map(line),
    ).toEqual([
      "task.status_changed to=executing",
      "agent.role_changed to=actor",
      "agent.deciding",
      "agent.tool_calls_preparing",
      "tool.call_started tool_name=run_subtask",
      "agent.deciding",
      "agent.tool_calls_preparing",
      "tool.call_started tool_name=progress",
      "log.info tool_name=progress message=half way",
      "log.warn tool_name=progress message=slow disk",
      "tool.call_finished tool_name=progress",
      "agent.deciding",
      "tool.call_finished tool_name=run_subtask",
      "agent.deciding",
      "agent.run_finished",
      "task.status_changed to=completed",
    ]);
    const logs = executing.filter((e) => e.type.startsWith("log."));
    expect(logs.map((e) => e.payload)).toEqual([
      expect.objectContaining({ task_id: "t1", step_idx: 0, turn: 2, tool_call_id: "p", tool_name: "progress" }),
      expect.objectContaining({ task_id: "t1", step_idx: 0, turn: 2 }),
    ]);
    expect(
      executing.find((e) => e.type === "tool.call_started" && e.payload.tool_name === "run_subtask")?.payload,
    ).toMatchObject({ step_idx: 0 });
  });

  it("a background agent: its lifecycle and turn as agent.* events with sub_agent_id", async () => {
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
    const ofChild = toTaskEvents(events.filter((e: RuntimeEvent) => e.sessionId === child));
    expect(ofChild.map(line)).toEqual([
      "agent.sub_agent_status to=created",
      "agent.sub_agent_status to=running",
      "agent.deciding",
      "agent.message_stream_started",
      "agent.message_delta content=found",
      "agent.message_stream_completed",
      "agent.run_finished",
      "agent.sub_agent_status to=waiting_for_merge",
    ]);
    expect(ofChild.filter((e) => e.payload.sub_agent_id !== child)).toEqual([]);
    expect(ofChild[0]!.payload).toMatchObject({ parent_session_id: parent.sessionId, from: null });
    await runtime.close();
  });
});
