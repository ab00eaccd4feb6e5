import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  type JsonValue,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider, type FakeTurn } from "@agentry/core/testing";
import { toTaskEvents } from "@agentry/core/ui";
import { textOf } from "./helpers.js";

/** What each tool call saw: the tool, the agent that called it and the host context. */
interface Seen {
  tool: string;
  agentId: string | undefined;
  context: JsonValue | undefined;
}

function tools(seen: Seen[]) {
  const spy = (name: string, requiresApproval: boolean) =>
    defineTool({
      name,
      description: `${name} (records its context)`,
      permissionClass: "safe",
      input: z.object({}),
      ...(requiresApproval && { requiresApproval: true }),
      execute: (_args, ctx) => {
        seen.push({ tool: name, agentId: ctx.agentId, context: ctx.context });
        return "ok";
      },
    });
  return [spy("look", false), spy("apply", true)];
}

const agents = [
  { agentId: "planner", displayName: "Planner", systemPrompt: "You plan.", toolAllowlist: ["look", "create_artifact"] },
  { agentId: "worker", displayName: "Worker", systemPrompt: "You are the worker.", toolAllowlist: ["apply"] },
];

/** The planner looks, then submits a plan; the worker applies (approval needed), then reports. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const planning = request.system.includes("# CURRENT ROLE: PLANNER");
  if (planning) {
    const called = (name: string) =>
      request.messages.some(
        (m) => m.role === "assistant" && m.content.some((part) => part.type === "tool_call" && part.name === name),
      );
    if (!called("look")) return { toolCalls: [{ name: "look", args: {} }] };
    if (!called("create_artifact"))
      return {
        toolCalls: [
          { name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: "Goal: ship\n\n1. Apply" } },
        ],
      };
    return { text: "Plan submitted." };
  }
  if (last.role === "user") return { toolCalls: [{ name: "apply", args: {} }] };
  return { text: "Applied the change." };
}

function setup(store: SessionStore = new MemorySessionStore()) {
  const seen: Seen[] = [];
  const provider = createFakeProvider(script);
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: { fake: provider },
    defaultModel: "fake-model",
    tools: tools(seen),
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (e) => events.push(e));
  return { runtime, store, seen, events, provider };
}

const stores: [string, () => SessionStore][] = [
  ["memory", () => new MemorySessionStore()],
  ["SQLite", () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-tasks-")), "s.db") })],
];

describe.each(stores)("tasks with an actor agent and host context (%s)", (_name, makeStore) => {
  it("hands the approved plan to the actor agent's own session, linked to the task, with the host context", async () => {
    const { runtime, store, seen, events } = setup(makeStore());
    const task = await runtime.tasks.create({
      agentId: "planner",
      actorAgentId: "worker",
      content: "ship it",
      scope: "acme",
      context: { engineer: "ada", repo: "acme/app" },
    });
    expect(task).toMatchObject({ status: "awaiting_review", actorAgentId: "worker" });
    expect(seen).toEqual([{ tool: "look", agentId: "planner", context: { engineer: "ada", repo: "acme/app" } }]);

    // The actor waits on the approval its tool needs: the task stays executing.
    const result = await runtime.tasks.approve(task.taskId, { scope: "acme" });
    expect(result.status).toBe("suspended");
    const executing = await runtime.tasks.get(task.taskId);
    expect(executing).toMatchObject({ status: "executing", actorSessionId: result.sessionId });
    expect(result.sessionId).not.toBe(task.taskId);
    const actor = await store.getSession(result.sessionId);
    expect(actor).toMatchObject({ agentId: "worker", scope: "acme", attributes: { taskId: task.taskId } });
    const planMessage = (await store.load(result.sessionId)).find((r) => r.kind === "message");
    expect(planMessage?.kind === "message" && textOf(planMessage.message)).toContain("<approved_plan>");

    // The approval is decided from the actor's session; the actor's turn ends the task.
    const [pending] = await runtime.pendingApprovals({ scope: "acme" });
    expect(pending?.sessionId).toBe(result.sessionId);
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true, scope: "acme" });
    expect(resumed.status).toBe("complete");
    expect(seen.at(-1)).toEqual({ tool: "apply", agentId: "worker", context: { engineer: "ada", repo: "acme/app" } });
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("completed");

    // The actor's events carry the task's id; the task's transitions are the task session's.
    const actorEvents = events.filter((e) => e.sessionId === result.sessionId && e.type === "done");
    expect(actorEvents.length).toBeGreaterThan(0);
    expect(actorEvents.every((e) => e.taskId === task.taskId)).toBe(true);
    expect(events.filter((e) => e.type === "task_status" && e.taskId === task.taskId).map((e) => e.sessionId)).toEqual(
      Array(4).fill(task.taskId),
    );
    // A task UI sees the actor's run as the task's.
    const catalogue = toTaskEvents(events).filter(
      (e) => e.type === "agent.run_finished" || e.type === "tool.call_finished",
    );
    expect(catalogue.map((e) => e.type).filter((t) => t === "agent.run_finished")).toHaveLength(3);
    expect(catalogue.every((e) => e.payload.task_id === task.taskId)).toBe(true);
    await runtime.close();
  });

  it("gives the actor the context approve names, in place of the task's", async () => {
    const { runtime, seen } = setup(makeStore());
    const task = await runtime.tasks.create({
      agentId: "planner",
      actorAgentId: "worker",
      content: "ship",
      context: 1,
    });
    const result = await runtime.tasks.approve(task.taskId, { context: { approvedBy: "lin" } });
    const [pending] = await runtime.pendingApprovals({ sessionId: result.sessionId });
    await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(seen.map((s) => s.context)).toEqual([1, { approvedBy: "lin" }]);
  });
});

describe("tasks with an actor agent", () => {
  it("refuses an unknown actor agent before anything is stored, and a context that is not JSON", async () => {
    const { runtime, store } = setup();
    await expect(runtime.tasks.create({ agentId: "planner", actorAgentId: "ghost", content: "x" })).rejects.toThrow(
      /ghost/,
    );
    await expect(
      runtime.tasks.create({ agentId: "planner", content: "x", context: { f: () => 1 } as unknown as JsonValue }),
    ).rejects.toThrow(InvalidArgumentError);
    expect(await store.listSessions()).toEqual([]);
  });

  it("keeps approve within the tenant: another scope's approve finds no task and makes no actor session", async () => {
    const { runtime, store } = setup();
    const task = await runtime.tasks.create({ agentId: "planner", actorAgentId: "worker", content: "x", scope: "a" });
    await expect(runtime.tasks.approve(task.taskId, { scope: "b" })).rejects.toThrow(/Unknown task/);
    expect((await store.listSessions()).map((s) => s.agentId)).toEqual(["planner"]);
    // Approved twice at once: one actor session is kept, the loser's is removed.
    const results = await Promise.allSettled([runtime.tasks.approve(task.taskId), runtime.tasks.approve(task.taskId)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await store.listSessions({ agentId: "worker" })).length).toBe(1);
  });

  it("cancels and deletes the actor's session with the task", async () => {
    const { runtime, store } = setup();
    const task = await runtime.tasks.create({ agentId: "planner", actorAgentId: "worker", content: "x" });
    const result = await runtime.tasks.approve(task.taskId);
    expect((await runtime.tasks.cancel(task.taskId)).status).toBe("cancelled");
    await runtime.tasks.delete(task.taskId);
    expect(await store.getSession(result.sessionId)).toBeUndefined();
    expect(await store.getSession(task.taskId)).toBeUndefined();
  });

  it("leaves the task executing when a turn of the planner's session ends meanwhile", async () => {
    const { runtime } = setup();
    const task = await runtime.tasks.create({ agentId: "planner", actorAgentId: "worker", content: "x" });
    await runtime.tasks.approve(task.taskId);
    await runtime.send({ agentId: "planner", session: task.taskId, content: "status?" });
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("executing");
  });
});

describe("follow-up tasks", () => {
  it("shows the planner the task it continues: title, status, approved plan and final report", async () => {
    const { runtime, provider } = setup();
    const first = await runtime.tasks.create({ agentId: "planner", actorAgentId: "worker", content: "ship it" });
    const acting = await runtime.tasks.approve(first.taskId);
    const [pending] = await runtime.pendingApprovals({ sessionId: acting.sessionId });
    await runtime.resolveApproval(pending!.requestId, { approved: true });

    const next = await runtime.tasks.create({ agentId: "planner", content: "now tidy up", continues: first.taskId });
    expect(next.continues).toBe(first.taskId);
    const request = provider.calls.find((r) => textOf(r.messages.at(-1)).startsWith("now tidy up"))!;
    const text = textOf(request.messages.at(-1));
    expect(text).toContain("<continued_task>");
    expect(text).toContain(`"task_id": "${first.taskId}"`);
    expect(text).toContain('"status": "completed"');
    expect(text).toContain('"goal": "ship"');
    expect(text).toContain('"final_report": "Applied the change."');
  });

  it("continues only a task of the same scope", async () => {
    const { runtime, store } = setup();
    const first = await runtime.tasks.create({ agentId: "planner", content: "x", scope: "a" });
    await expect(
      runtime.tasks.create({ agentId: "planner", content: "y", scope: "b", continues: first.taskId }),
    ).rejects.toThrow(/unknown task/);
    await expect(runtime.tasks.create({ agentId: "planner", content: "y", continues: "nope" })).rejects.toThrow(
      /unknown task/,
    );
    expect((await store.listSessions()).length).toBe(1);
  });
});
