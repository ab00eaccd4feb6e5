import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  defineTool,
  InvalidArgumentError,
  SessionNotFoundError,
  type HistoryRecord,
  type ModelRequest,
  type ToolResultPart,
} from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { makeRuntime } from "./helpers.js";

const planner = { agentId: "planner", displayName: "Planner", role: "planner" };
const planMarkdown = "Goal: tidy the notes\n\n1. Read the notes\n2. Merge duplicates";

const assistantMessages = (records: HistoryRecord[]) =>
  records.flatMap((r) => (r.kind === "message" && r.message.role === "assistant" ? [r.message] : []));
const lastToolResult = (request: ModelRequest) => {
  const last = request.messages.at(-1)!;
  return last.role === "tool" ? (last.content[0] as ToolResultPart) : undefined;
};

describe("create_artifact", () => {
  it("stores a plan artifact, emits artifact_created and plan_ready, and marks the calling message a plan", async () => {
    const script = (request: ModelRequest): FakeTurn =>
      lastToolResult(request)
        ? { text: "Plan submitted." }
        : {
            toolCalls: [
              { id: "c1", name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: planMarkdown } },
            ],
          };
    const { runtime, events, store } = makeRuntime(script, { registry: createAgentRegistry([planner]) });
    const result = await runtime.send({ agentId: "planner", content: "tidy my notes" });
    expect(result.status).toBe("complete");
    const created = events.find((e) => e.type === "artifact_created");
    expect(created).toMatchObject({ filename: "plan.md", kind: "plan", preview: planMarkdown });
    const ready = events.find((e) => e.type === "plan_ready");
    expect(ready).toMatchObject({
      artifactId: (created as { artifactId: string }).artifactId,
      plan: { goal: "tidy the notes", steps: [{ step_number: 1 }, { step_number: 2 }] },
    });
    const records = await store.load(result.sessionId);
    const artifact = records.find((r) => r.kind === "artifact");
    expect(artifact).toMatchObject({ artifactKind: "plan", content: planMarkdown, filename: "plan.md" });
    expect(assistantMessages(records).map((m) => m.messageType)).toEqual(["plan", "text"]);
  });

  it("gives the model the parse error for a plan it cannot read, and stores nothing", async () => {
    const script = (request: ModelRequest): FakeTurn => {
      const result = lastToolResult(request);
      return result
        ? { text: `tool: ${String(result.result)}` }
        : {
            toolCalls: [
              { name: "create_artifact", args: { filename: "plan.md", kind: "plan", content: "no plan here" } },
            ],
          };
    };
    const { runtime, events, store } = makeRuntime(script, { registry: createAgentRegistry([planner]) });
    const result = await runtime.send({ agentId: "planner", content: "tidy my notes" });
    expect(result.text).toMatch(/^tool: Error: The plan could not be read/);
    expect(events.some((e) => e.type === "artifact_created" || e.type === "plan_ready")).toBe(false);
    const records = await store.load(result.sessionId);
    expect(records.some((r) => (r.kind as string) === "artifact")).toBe(false);
    // A message that only calls tools (here a plan that did not parse) is a tool call, not a plan.
    expect(assistantMessages(records)[0]!.messageType).toBe("tool_call");
  });
});

describe("setRole", () => {
  it("stops a running turn of the session first (its end record says why), records the switch and uses the role from the next turn", async () => {
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    const wait = defineTool({
      name: "read_slowly",
      description: "Reads until stopped",
      permissionClass: "workspace_read",
      input: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
        }),
    });
    const script = (request: ModelRequest): FakeTurn => {
      const last = request.messages.at(-1)!;
      if (last.role === "user" && last.content === "explore") return { toolCalls: [{ name: "read_slowly", args: {} }] };
      return { text: "ok" };
    };
    const { runtime, events, store, provider } = makeRuntime(script, {
      registry: createAgentRegistry([planner]),
      tools: [wait],
    });
    const session = await store.createSession({ agentId: "planner" });
    const turn = runtime.send({ agentId: "planner", content: "explore", session: session.sessionId });
    await toolStarted;
    await runtime.setRole(session.sessionId, "actor");
    const stopped = await turn;
    expect(stopped.status).toBe("aborted");
    const records = await store.load(session.sessionId);
    const end = records.findIndex((r) => r.kind === "turn" && r.phase === "end");
    expect(records[end]).toMatchObject({ reason: "role_changed" });
    const roleRecord = records.findIndex((r) => r.kind === "role");
    expect(records[roleRecord]).toMatchObject({ role: "actor", from: "planner" });
    // The role record comes after the stopped turn's end.
    expect(roleRecord).toBeGreaterThan(end);
    expect(events.filter((e) => e.type === "role_changed")).toMatchObject([
      { sessionId: session.sessionId, from: "planner", to: "actor" },
    ]);

    await runtime.send({ agentId: "planner", content: "go on", session: session.sessionId });
    const last = provider.calls.at(-1)!;
    expect(last.system).toContain("# CURRENT ROLE: ACTOR");
    expect(last.tools.map((t) => t.name)).not.toContain("request_build_mode");
    // Switching to the current role records nothing.
    await runtime.setRole(session.sessionId, "actor");
    expect((await store.load(session.sessionId)).filter((r) => (r.kind as string) === "role")).toHaveLength(1);
  });

  it("survives a clear of the session (kept in its attributes) and a new runtime", async () => {
    const { runtime, store } = makeRuntime([{ text: "one" }], { registry: createAgentRegistry([planner]) });
    const first = await runtime.send({ agentId: "planner", content: "hi" });
    await runtime.setRole(first.sessionId, "actor");
    await store.clear(first.sessionId);
    const again = makeRuntime([{ text: "two" }], { registry: createAgentRegistry([planner]), store });
    await again.runtime.send({ agentId: "planner", content: "hi", session: first.sessionId });
    expect(again.provider.calls[0]!.system).toContain("# CURRENT ROLE: ACTOR");
  });

  it("throws for an unknown role or session, before anything is stored", async () => {
    const { runtime, store } = makeRuntime([{ text: "one" }], { registry: createAgentRegistry([planner]) });
    const first = await runtime.send({ agentId: "planner", content: "hi" });
    const before = (await store.load(first.sessionId)).length;
    await expect(runtime.setRole(first.sessionId, "wizard")).rejects.toSatisfy((e) =>
      InvalidArgumentError.isInstance(e),
    );
    await expect(runtime.setRole("missing", "actor")).rejects.toSatisfy((e) => SessionNotFoundError.isInstance(e));
    expect((await store.load(first.sessionId)).length).toBe(before);
  });
});

describe("request_build_mode", () => {
  const script = (request: ModelRequest): FakeTurn =>
    lastToolResult(request)
      ? { text: `tool: ${JSON.stringify(lastToolResult(request)!.result)}` }
      : { toolCalls: [{ name: "request_build_mode", args: { reason: "the plan is approved" } }] };

  it("is an approval request, never a switch by itself: denied, the role stays", async () => {
    const { runtime, events, provider } = makeRuntime(script, {
      registry: createAgentRegistry([planner]),
      approve: async () => ({ approved: false, reason: "not yet" }),
    });
    const result = await runtime.send({ agentId: "planner", content: "build it" });
    expect(result.text).toMatch(/not approved \(not yet\)/);
    expect(events.some((e) => e.type === "role_changed")).toBe(false);
    await runtime.send({ agentId: "planner", content: "again", session: result.sessionId });
    expect(provider.calls.at(-1)!.system).toContain("# CURRENT ROLE: PLANNER");
  });

  it("once approved (here after a suspension), switches the session to the actor from its next turn", async () => {
    const { runtime, events, provider } = makeRuntime(script, { registry: createAgentRegistry([planner]) });
    const suspended = await runtime.send({ agentId: "planner", content: "build it" });
    expect(suspended.status).toBe("suspended");
    const [pending] = await runtime.pendingApprovals();
    expect(pending!.request.name).toBe("request_build_mode");
    await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(events.filter((e) => e.type === "role_changed")).toMatchObject([{ from: "planner", to: "actor" }]);
    await runtime.send({ agentId: "planner", content: "now build", session: suspended.sessionId });
    expect(provider.calls.at(-1)!.system).toContain("# CURRENT ROLE: ACTOR");
  });
});
