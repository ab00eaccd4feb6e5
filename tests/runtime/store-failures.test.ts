import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  MemorySessionStore,
  SessionStoreError,
  type ModelRequest,
  type SessionStore,
} from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { agents, makeRuntime, textOf } from "./helpers.js";

/** A memory store that, once `broken` is set, fails every call: by throwing at once (`sync`) or by rejecting. */
function breakableStore(mode: "sync" | "async") {
  const inner = new MemorySessionStore();
  const state = { broken: false };
  const store: SessionStore = new Proxy(inner, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (!state.broken) return method.apply(target, args);
        if (mode === "sync") throw new TypeError(`disk on fire (${String(key)})`);
        return Promise.reject(new TypeError(`disk on fire (${String(key)})`));
      };
    },
  });
  return { store, state };
}

/** The todo agent deletes milk (approval needed); the planner submits a plan; any other turn answers. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (request.system.includes("# CURRENT ROLE: PLANNER") && last.role === "user")
    return {
      toolCalls: [
        {
          name: "create_artifact",
          args: { filename: "plan.md", kind: "plan", content: "Goal: tidy\n\n1. Look\n2. Do" },
        },
      ],
    };
  if (last.role === "user" && textOf(last).includes("delete"))
    return { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] };
  return { text: "ok" };
}

describe.each(["sync", "async"] as const)("a store that fails (%s) reaches the host as SessionStoreError", (mode) => {
  async function setup() {
    const { store, state } = breakableStore(mode);
    const registry = createAgentRegistry([...agents, { agentId: "dev", displayName: "Dev" }]);
    const { runtime } = makeRuntime(script, { store, registry });
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    const [pending] = await runtime.pendingApprovals();
    const task = await runtime.tasks.create({ agentId: "dev", content: "tidy" });
    state.broken = true;
    return { runtime, sessionId: suspended.sessionId, requestId: pending!.requestId, taskId: task.taskId };
  }

  it("on every runtime path", async () => {
    const { runtime, sessionId, requestId, taskId } = await setup();
    const paths: Record<string, () => Promise<unknown>> = {
      send: () => runtime.send({ agentId: "general", content: "hi", session: "latest-or-create" }),
      sendToSession: () => runtime.send({ agentId: "todo", content: "hi", session: sessionId, ifPending: "supersede" }),
      postSystemMessage: () => runtime.postSystemMessage({ sessionId }, "note", { origin: "test" }),
      pendingApprovals: () => runtime.pendingApprovals(),
      pendingQuestions: () => runtime.pendingQuestions({ sessionId }),
      resolveApproval: () => runtime.resolveApproval(requestId, { approved: true }),
      answerQuestion: () => runtime.answerQuestion(requestId, { value: "yes" }),
      auditLog: () => runtime.auditLog(sessionId),
      setRole: () => runtime.setRole(sessionId, "planner"),
      tasksCreate: () => runtime.tasks.create({ agentId: "dev", content: "again" }),
      tasksGet: () => runtime.tasks.get(taskId),
      tasksList: () => runtime.tasks.list(),
      tasksArtifacts: () => runtime.tasks.artifacts(taskId),
      tasksRename: () => runtime.tasks.rename(taskId, "new title"),
      tasksApprove: () => runtime.tasks.approve(taskId),
      tasksCancel: () => runtime.tasks.cancel(taskId),
      tasksDelete: () => runtime.tasks.delete(taskId),
    };
    const outcomes: Record<string, string> = {};
    for (const [name, call] of Object.entries(paths)) {
      outcomes[name] = await call().then(
        () => "resolved",
        (error: unknown) =>
          error instanceof SessionStoreError
            ? "SessionStoreError"
            : `${(error as Error).name}: ${(error as Error).message}`,
      );
    }
    expect(outcomes).toEqual(Object.fromEntries(Object.keys(paths).map((name) => [name, "SessionStoreError"])));
  });
});
