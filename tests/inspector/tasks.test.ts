import { describe, expect, it } from "vitest";
import { createAgentRegistry, type ModelRequest } from "@agentry/core";
import { createInspector } from "@agentry/core/inspector";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "../runtime/helpers.js";

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

function setUp() {
  const made = makeRuntime(script, { registry: createAgentRegistry([{ agentId: "dev", displayName: "Dev" }]) });
  const users: Record<string, { scopePrefix: string; canAct: boolean }> = {
    alice: { scopePrefix: "acme/", canAct: true },
    bob: { scopePrefix: "globex/", canAct: true },
  };
  const inspector = createInspector({
    runtime: made.runtime,
    authorize: (request) => users[request.headers.get("x-user") ?? ""] ?? null,
  });
  const get = async (path: string, user: string) =>
    (await inspector(new Request(`http://x${path}`, { headers: { "x-user": user } }))).json();
  const post = async (path: string, user: string, body: unknown = {}) => {
    const { csrfToken } = (await get("/api/me", user)) as { csrfToken: string };
    const response = await inspector(
      new Request(`http://x${path}`, {
        method: "POST",
        headers: {
          "x-user": user,
          "x-agentry-csrf": csrfToken,
          "content-type": "application/json",
          origin: "http://x",
        },
        body: JSON.stringify(body),
      }),
    );
    return { status: response.status, body: await response.json() };
  };
  return { ...made, get, post };
}

describe("inspector: tasks", () => {
  it("lists tasks with their plan within the caller's scopes; approve once (then 409), revise, cancel; another tenant gets 404", async () => {
    const { runtime, get, post } = setUp();
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy the notes", scope: "acme/alice" });
    const other = await runtime.tasks.create({ agentId: "dev", content: "tidy more", scope: "acme/alice" });
    expect(task.status).toBe("awaiting_review");
    const list = await get("/api/tasks", "alice");
    expect(list.items.map((t: { taskId: string }) => t.taskId).sort()).toEqual([task.taskId, other.taskId].sort());
    expect(list.items[0]).toMatchObject({ state: "awaiting_review", plan: { goal: "tidy" } });
    expect((await get("/api/tasks", "bob")).items).toEqual([]);

    expect(await post(`/api/tasks/${task.taskId}/approve`, "bob")).toEqual({
      status: 404,
      body: { error: "not found" },
    });
    expect(await post(`/api/tasks/${task.taskId}/approve`, "alice")).toEqual({
      status: 200,
      body: { ok: true, status: "complete" },
    });
    expect(await post(`/api/tasks/${task.taskId}/approve`, "alice")).toEqual({
      status: 409,
      body: { error: "already decided" },
    });
    expect((await runtime.tasks.get(task.taskId))?.status).toBe("completed");

    expect((await post(`/api/tasks/${other.taskId}/revise`, "alice", {})).status).toBe(400);
    expect((await post(`/api/tasks/${other.taskId}/revise`, "alice", { feedback: "smaller steps" })).status).toBe(200);
    expect((await post(`/api/tasks/${other.taskId}/cancel`, "bob")).status).toBe(404);
    expect((await post(`/api/tasks/${other.taskId}/cancel`, "alice")).status).toBe(200);
    expect((await runtime.tasks.get(other.taskId))?.status).toBe("cancelled");
    expect((await post(`/api/tasks/${other.taskId}/cancel`, "alice")).status).toBe(409);
  });
});
