import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  ApprovalSupersededError,
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  type AgentRuntimeOptions,
  type HistoryRecord,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
  type ToolResultPart,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider, historyProblems, type FakeTurn } from "@agentry/core/testing";

/** A tool that runs in the browser: no `execute`. */
const geolocate = defineTool({
  name: "geolocate",
  description: "The user's position, from the browser",
  input: z.object({ precise: z.boolean() }),
  output: z.object({ city: z.string() }),
});

/** The same, needing an approval first. */
const share = defineTool({
  name: "share_screen",
  description: "Shares the user's screen",
  input: z.object({}),
  requiresApproval: true,
});

const agents = [
  { agentId: "assistant", displayName: "Assistant", systemPrompt: "You are agent assistant." },
  { agentId: "front", displayName: "Front", systemPrompt: "You are agent front.", agentAllowlist: ["assistant"] },
];

/** The last tool result the model read, as text (`error: ...` for an error result). */
function lastResult(request: ModelRequest): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "tool") return undefined;
  const part = last.content[0] as ToolResultPart;
  const text = typeof part.result === "string" ? part.result : JSON.stringify(part.result);
  return part.isError ? `error: ${text}` : text;
}

/**
 * "where am I" → geolocate; "share" → share_screen; "nested" → a sub-task that geolocates;
 * front delegates to assistant; then each says what it read.
 */
function script(request: ModelRequest): FakeTurn {
  const seen = lastResult(request);
  if (seen !== undefined) return { text: `read: ${seen}` };
  const last = request.messages.at(-1)!;
  const text = typeof last.content === "string" ? last.content : "";
  if (request.system.includes("You are agent front."))
    return { toolCalls: [{ name: "agents_message", args: { agentId: "assistant", content: "where am I" } }] };
  if (request.system.startsWith("You are a sub-agent"))
    return { toolCalls: [{ id: "deep", name: "geolocate", args: { precise: false } }] };
  if (text === "share") return { toolCalls: [{ id: "s1", name: "share_screen", args: {} }] };
  if (text === "nested")
    return { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "Locate", instructions: "find me" } }] };
  if (text === "where am I") return { toolCalls: [{ id: "g1", name: "geolocate", args: { precise: true } }] };
  return { text: "plain" };
}

function setup(overrides: Partial<AgentRuntimeOptions> & { store?: SessionStore } = {}) {
  const store = overrides.store ?? new MemorySessionStore();
  const problems: string[] = [];
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: {
      fake: createFakeProvider((request) => (problems.push(...historyProblems(request.messages)), script(request))),
    },
    defaultModel: "fake",
    tools: [geolocate, share],
    ...overrides,
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (event) => events.push(event));
  return { runtime, store, events, problems };
}

const toolResults = (records: HistoryRecord[]) => records.flatMap((r) => (r.kind === "tool_result" ? [r.result] : []));

describe("client tools (a tool with no execute)", () => {
  it("suspend the turn like an approval: the call's start says client, a client_tool_call follows, pendingToolCalls lists it", async () => {
    const { runtime, events } = setup();
    const result = await runtime.send({ agentId: "assistant", content: "where am I" });
    expect(result.status).toBe("suspended");
    expect(result.pendingApprovals).toMatchObject([{ toolCallId: "g1", name: "geolocate", client: true }]);
    const start = events.find((e) => e.type === "tool_call_update" && e.status === "start");
    expect(start).toMatchObject({ toolCallId: "g1", client: true, args: { precise: true } });
    expect(events.filter((e) => e.type === "client_tool_call")).toMatchObject([
      { request: { toolCallId: "g1", name: "geolocate", args: { precise: true }, client: true } },
    ]);
    // Not an approval, not a question: listed apart.
    expect(events.some((e) => e.type === "approval_request")).toBe(false);
    expect(events.some((e) => e.type === "tool_call_update" && e.status === "end")).toBe(false);
    expect(await runtime.pendingApprovals()).toEqual([]);
    expect(await runtime.pendingQuestions()).toEqual([]);
    expect(await runtime.pendingToolCalls()).toMatchObject([
      {
        toolCallId: "g1",
        name: "geolocate",
        args: { precise: true },
        sessionId: result.sessionId,
        agentId: "assistant",
      },
    ]);
    expect(await runtime.pendingToolCalls({ sessionId: result.sessionId })).toHaveLength(1);
  });

  it("submitToolResult stores the client's result, resumes the turn (the model reads it) and answers only once", async () => {
    const { runtime, store, events, problems } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I" });
    const result = await runtime.submitToolResult("g1", { output: { city: "Lyon" }, decisionId: "job-1" });
    expect(result).toMatchObject({ status: "complete", text: 'read: {"city":"Lyon"}', sessionId: suspended.sessionId });
    const end = events.find((e) => e.type === "tool_call_update" && e.status === "end");
    expect(end).toMatchObject({ toolCallId: "g1", client: true, result: { city: "Lyon" } });
    expect(end).not.toHaveProperty("isError");
    expect(await runtime.pendingToolCalls()).toEqual([]);
    // Again: already resolved, from the pending list's point of view and from the session's.
    await expect(runtime.submitToolResult("g1", { output: { city: "Paris" } })).rejects.toBeInstanceOf(
      ApprovalNotFoundError,
    );
    await expect(
      runtime.submitToolResult("g1", { output: { city: "Paris" }, sessionId: suspended.sessionId }),
    ).rejects.toBeInstanceOf(ApprovalAlreadyResolvedError);
    // The same decider again (a retried job) gets the resumed turn's outcome.
    const again = await runtime.submitToolResult("g1", {
      output: { city: "Lyon" },
      decisionId: "job-1",
      sessionId: suspended.sessionId,
    });
    expect(again).toMatchObject({ status: "complete", text: 'read: {"city":"Lyon"}' });
    expect(toolResults(await store.load(suspended.sessionId)).map((r) => r.result)).toEqual([{ city: "Lyon" }]);
    expect(problems).toEqual([]);
  });

  it("two concurrent submits store one result; the other rejects with ApprovalAlreadyResolvedError", async () => {
    const { runtime, store } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I" });
    const outcomes = await Promise.allSettled([
      runtime.submitToolResult("g1", { output: { city: "Lyon" } }),
      runtime.submitToolResult("g1", { output: { city: "Nice" } }),
    ]);
    const fulfilled = outcomes.filter((o) => o.status === "fulfilled");
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(fulfilled).toHaveLength(1);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(ApprovalAlreadyResolvedError);
    expect(toolResults(await store.load(suspended.sessionId))).toHaveLength(1);
  });

  it("an isError result reaches the model as an error result", async () => {
    const { runtime, events } = setup();
    await runtime.send({ agentId: "assistant", content: "where am I" });
    const result = await runtime.submitToolResult("g1", { output: "permission denied by the user", isError: true });
    expect(result.text).toBe("read: error: permission denied by the user");
    expect(events.find((e) => e.type === "tool_call_update" && e.status === "end")).toMatchObject({ isError: true });
  });

  it("checks the output: not valid for the output schema, not JSON or too large is InvalidArgumentError and nothing is stored", async () => {
    const { runtime, store } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I" });
    const before = (await store.load(suspended.sessionId)).length;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const output of [{ town: "Lyon" }, { city: 3 }, cyclic, () => 1, { city: "x".repeat(300_000) }, undefined])
      await expect(runtime.submitToolResult("g1", { output })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(runtime.submitToolResult("g1", { output: { town: "Lyon" } })).rejects.toThrow(/output schema/);
    expect((await store.load(suspended.sessionId)).length).toBe(before);
    expect(await runtime.pendingToolCalls()).toHaveLength(1);
    // An error result need not match the schema.
    await expect(runtime.submitToolResult("g1", { output: { town: "?" }, isError: true })).resolves.toMatchObject({
      status: "complete",
    });
  });

  it("is tenant-guarded: another scope's call is not found (listed nowhere, nothing stored)", async () => {
    const { runtime, store } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I", scope: "acme/alice" });
    expect(await runtime.pendingToolCalls({ scope: "globex" })).toEqual([]);
    expect(await runtime.pendingToolCalls({ scopePrefix: "acme/" })).toHaveLength(1);
    for (const guard of [
      { scope: "globex" },
      { scopePrefix: "glob" },
      { scope: "globex", sessionId: suspended.sessionId },
    ])
      await expect(runtime.submitToolResult("g1", { output: { city: "Lyon" }, ...guard })).rejects.toBeInstanceOf(
        ApprovalNotFoundError,
      );
    expect(toolResults(await store.load(suspended.sessionId))).toEqual([]);
    await expect(runtime.submitToolResult("nope", { output: 1 })).rejects.toBeInstanceOf(ApprovalNotFoundError);
    await expect(
      runtime.submitToolResult("g1", { output: { city: "Lyon" }, scopePrefix: "acme/" }),
    ).resolves.toMatchObject({ status: "complete" });
  });

  it("is decided by submitToolResult only: resolveApproval on its request is InvalidArgumentError", async () => {
    const { runtime } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I" });
    const requestId = suspended.pendingApprovals![0]!.requestId;
    await expect(runtime.resolveApproval(requestId, { approved: true })).rejects.toThrow(/use submitToolResult/);
    await expect(runtime.answerQuestion(requestId, { value: "x" })).rejects.toThrow(/use submitToolResult/);
    expect(await runtime.pendingToolCalls()).toHaveLength(1);
  });

  it("passes the policy and an approval first: the call goes to the client only once approved", async () => {
    const { runtime, events } = setup();
    const asked = await runtime.send({ agentId: "assistant", content: "share" });
    expect(asked.status).toBe("suspended");
    const [approval] = await runtime.pendingApprovals();
    expect(approval).toMatchObject({ request: { name: "share_screen" } });
    expect(await runtime.pendingToolCalls()).toEqual([]);
    expect(events.some((e) => e.type === "client_tool_call")).toBe(false);
    const approved = await runtime.resolveApproval(approval!.requestId, { approved: true });
    expect(approved.status).toBe("suspended");
    expect(await runtime.pendingToolCalls()).toMatchObject([{ toolCallId: "s1", name: "share_screen" }]);
    const done = await runtime.submitToolResult("s1", { output: "shared" });
    expect(done).toMatchObject({ status: "complete", text: "read: shared" });

    // A policy without the tool's class refuses the call before it reaches anyone.
    const closed = setup({ policy: { ...defaultPolicy(), classes: ["workspace_read"] } });
    const refused = await closed.runtime.send({ agentId: "assistant", content: "where am I" });
    expect(refused.status).toBe("complete");
    expect(refused.text).toMatch(/Unknown tool "geolocate"/);
    expect(await closed.runtime.pendingToolCalls()).toEqual([]);
  });

  it("a denied approval never reaches the client", async () => {
    const { runtime, events } = setup();
    await runtime.send({ agentId: "assistant", content: "share" });
    const [approval] = await runtime.pendingApprovals();
    const denied = await runtime.resolveApproval(approval!.requestId, { approved: false, reason: "no" });
    expect(denied.text).toMatch(/read: error: Denied/);
    expect(events.some((e) => e.type === "client_tool_call")).toBe(false);
  });

  it("the host's hooks see it: beforeToolCall's arguments go to the client, afterToolCall rewrites the client's result", async () => {
    const { runtime } = setup({
      hooks: {
        beforeToolCall: (call) => (call.name === "geolocate" ? { args: { precise: false } } : undefined),
        afterToolCall: (call, outcome) =>
          call.name === "geolocate"
            ? { result: { city: String((outcome.result as { city: string }).city).toUpperCase() } }
            : undefined,
      },
    });
    await runtime.send({ agentId: "assistant", content: "where am I" });
    expect(await runtime.pendingToolCalls()).toMatchObject([{ args: { precise: false } }]);
    const result = await runtime.submitToolResult("g1", { output: { city: "Lyon" } });
    expect(result.text).toBe('read: {"city":"LYON"}');
  });

  it("waits without a timer: the tool's timeoutMs does not apply, a second runtime on the store answers later", async () => {
    const store = new MemorySessionStore();
    const quick = defineTool({
      name: "geolocate",
      description: "d",
      input: z.object({ precise: z.boolean() }),
      timeoutMs: 5,
    });
    const first = setup({ store, tools: [quick] });
    await first.runtime.send({ agentId: "assistant", content: "where am I" });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const second = setup({ store, tools: [quick] });
    expect(await second.runtime.pendingToolCalls()).toHaveLength(1);
    const result = await second.runtime.submitToolResult("g1", { output: { city: "Lyon" } });
    expect(result).toMatchObject({ status: "complete", text: 'read: {"city":"Lyon"}' });
    await expect(first.runtime.submitToolResult("g1", { output: { city: "Nice" } })).rejects.toBeInstanceOf(
      ApprovalNotFoundError,
    );
  });

  it("a newer message supersedes it: the model reads that the result never came, a late submit is ApprovalSupersededError", async () => {
    const { runtime } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "where am I" });
    const next = await runtime.send({
      agentId: "assistant",
      content: "never mind",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    expect(next.status).toBe("complete");
    await expect(
      runtime.submitToolResult("g1", { output: { city: "Lyon" }, sessionId: suspended.sessionId }),
    ).rejects.toBeInstanceOf(ApprovalSupersededError);
  });

  it("works inside a sub-task (depth 1)", async () => {
    const { runtime, events } = setup();
    const suspended = await runtime.send({ agentId: "assistant", content: "nested" });
    expect(suspended.status).toBe("suspended");
    expect(events.find((e) => e.type === "client_tool_call")).toMatchObject({ depth: 1, parentId: "sub" });
    const [pending] = await runtime.pendingToolCalls();
    expect(pending).toMatchObject({ toolCallId: "deep", name: "geolocate" });
    const result = await runtime.submitToolResult("deep", { output: { city: "Lyon" } });
    expect(result).toMatchObject({ status: "complete", text: 'read: read: {"city":"Lyon"}' });
  });

  it("travels up a delegation chain: listed for the waiting session, shown in its stream, answered from there", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-client-chain-")), "s.db");
    const { runtime } = setup({ store: new SqliteSessionStore({ path }) });
    const streamed: RuntimeEvent[] = [];
    for await (const event of runtime.stream({ agentId: "front", content: "locate me", scope: "acme" }))
      streamed.push(event);
    const done = streamed.at(-1) as Extract<RuntimeEvent, { type: "done" }>;
    expect(done.result.status).toBe("suspended");
    const shown = streamed.filter((e) => e.type === "client_tool_call");
    expect(shown).toMatchObject([
      { request: { toolCallId: "g1", name: "geolocate", origin: { agentId: "assistant" } } },
    ]);
    const frontSession = (done as { sessionId: string }).sessionId;
    const listed = await runtime.pendingToolCalls({ sessionId: frontSession });
    expect(listed).toMatchObject([{ toolCallId: "g1", agentId: "assistant", chain: [{ agentId: "front" }] }]);
    expect(await runtime.pendingApprovals({ sessionId: frontSession })).toEqual([]);
    const result = await runtime.submitToolResult("g1", {
      output: { city: "Lyon" },
      scope: "acme",
      sessionId: frontSession,
    });
    expect(result).toMatchObject({ status: "complete", sessionId: frontSession, agentId: "front" });
    expect(result.text).toContain("Lyon");
    expect(await runtime.pendingToolCalls({ scope: "acme" })).toEqual([]);
  });
});
