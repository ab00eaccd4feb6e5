import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  ApprovalSupersededError,
  InvalidArgumentError,
  MemorySessionStore,
  type AgentRuntimeOptions,
  type ModelRequest,
  type RuntimeEvent,
  type SessionStore,
  type TurnResult,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { GuardedSessionStore } from "../../src/runtime/session/guarded-session-store.js";
import { createFakeProvider, historyProblems, type FakeTurn } from "@agentry/core/testing";

const agents = [
  { agentId: "triage", displayName: "Triage", systemPrompt: "You are agent triage.", agentAllowlist: ["billing"] },
  { agentId: "billing", displayName: "Billing", systemPrompt: "You are agent billing.", agentAllowlist: ["payments"] },
  { agentId: "payments", displayName: "Payments", systemPrompt: "You are agent payments.", role: "actor" },
];

const agentOf = (request: ModelRequest) => /You are agent (\w+)\./.exec(request.system)?.[1] ?? "?";

/** The text of the last tool result the model got (an error result as `error: ...`). */
function lastResult(request: ModelRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== "tool") return "";
  const part = last.content[0]!;
  const value = part.result as { response?: string } | string;
  const text = typeof value === "string" ? value : (value.response ?? JSON.stringify(value));
  return part.isError ? `error: ${text}` : text;
}

/**
 * triage asks billing, billing asks payments, payments refunds (approval needed) or, asked to
 * "ask", asks the user which card; each answers with what it got.
 */
function script(request: ModelRequest): FakeTurn {
  const agent = agentOf(request);
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: `${agent}: ${lastResult(request)}` };
  const text = typeof last.content === "string" ? last.content : "";
  if (agent === "triage")
    return { toolCalls: [{ name: "agents_message", args: { agentId: "billing", content: text } }] };
  if (agent === "billing")
    return { toolCalls: [{ name: "agents_message", args: { agentId: "payments", content: text } }] };
  if (text.includes("ask"))
    return {
      toolCalls: [
        {
          name: "ask_user",
          args: { question: "Which card?", severity: "major", options: [{ label: "Visa", value: "visa" }] },
        },
      ],
    };
  return { toolCalls: [{ name: "refund", args: { amount: 15 } }] };
}

function helpdesk(store: SessionStore, overrides: Partial<AgentRuntimeOptions> = {}) {
  const refunds: number[] = [];
  const refund = defineTool({
    name: "refund",
    description: "Refund an amount",
    permissionClass: "safe",
    input: z.object({ amount: z.number() }),
    requiresApproval: true,
    execute: ({ amount }) => (refunds.push(amount), `refunded ${amount}`),
  });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: { fake: createFakeProvider(script) },
    defaultModel: "fake",
    tools: [refund],
    ...overrides,
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (event) => events.push(event));
  return { runtime, refunds, events };
}

const sqlitePath = () => join(mkdtempSync(join(tmpdir(), "agentry-chain-")), "s.db");

describe("approvals and questions through a delegation chain", () => {
  it("a refund approval three agents down suspends the conversation, is listed there with its chain, and resolving it from another runtime answers up to the root", async () => {
    const path = sqlitePath();
    const first = helpdesk(new SqliteSessionStore({ path }));
    const streamed: RuntimeEvent[] = [];
    for await (const event of first.runtime.stream({ agentId: "triage", content: "refund order 7", scope: "acme" }))
      streamed.push(event);
    const done = streamed.at(-1);
    expect(done).toMatchObject({ type: "done", result: { status: "suspended" } });
    const suspended = (done as Extract<RuntimeEvent, { type: "done" }>).result as TurnResult;
    const [request] = suspended.pendingApprovals!;
    // The conversation's result names the real decision, where it was asked and who waits on it.
    expect(request).toMatchObject({ name: "refund", args: { amount: 15 }, origin: { agentId: "payments" } });
    expect(request!.origin!.chain.map((c) => c.agentId)).toEqual(["triage", "billing"]);
    // The stream the user sees carries the approval card of the real request.
    expect(
      streamed
        .filter((e) => e.type === "approval_request")
        .map((e) => (e as { request: { requestId: string } }).request.requestId),
    ).toEqual([request!.requestId]);
    // Listed once for the scope, and under every session waiting on it.
    const all = await first.runtime.pendingApprovals({ scope: "acme" });
    expect(all.map((p) => [p.requestId, p.agentId, p.chain?.map((c) => c.agentId)])).toEqual([
      [request!.requestId, "payments", ["triage", "billing"]],
    ]);
    expect((await first.runtime.pendingApprovals({ sessionId: suspended.sessionId })).map((p) => p.requestId)).toEqual([
      request!.requestId,
    ]);
    const billingSession = all[0]!.chain![1]!.sessionId;
    expect((await first.runtime.pendingApprovals({ sessionId: billingSession })).map((p) => p.requestId)).toEqual([
      request!.requestId,
    ]);
    await first.runtime.close();

    const second = helpdesk(new SqliteSessionStore({ path }));
    const resumed = await second.runtime.resolveApproval(request!.requestId, { approved: true });
    // The conversation's turn, resumed at the end of the chain.
    expect(resumed).toMatchObject({
      status: "complete",
      sessionId: suspended.sessionId,
      agentId: "triage",
      text: "triage: billing: payments: refunded 15",
    });
    expect(second.refunds).toEqual([15]);
    expect(await second.runtime.pendingApprovals()).toEqual([]);
    await expect(second.runtime.resolveApproval(request!.requestId, { approved: true })).rejects.toThrow(
      /already resolved/,
    );
    // Every session of the chain holds a history every provider takes.
    for (const session of await second.runtime.store.listSessions()) {
      const messages = (await second.runtime.store.load(session.sessionId)).flatMap((r) =>
        r.kind === "message" && r.frame === null ? [r.message] : [],
      );
      expect(historyProblems(messages)).toEqual([]);
    }
  });

  it("a denial flows back the same way: each agent answers with what it got", async () => {
    const { runtime, refunds } = helpdesk(new MemorySessionStore());
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 8" });
    const result = await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, {
      approved: false,
      reason: "over the limit",
    });
    expect(result.status).toBe("complete");
    expect(result.text).toMatch(
      /^triage: billing: payments: error: Denied: the call was not approved \(over the limit\)/,
    );
    expect(refunds).toEqual([]);
  });

  it("a question three agents down is listed for the conversation and answering it resumes the chain", async () => {
    const { runtime, events } = helpdesk(new MemorySessionStore());
    const suspended = await runtime.send({ agentId: "triage", content: "ask which card" });
    expect(suspended.status).toBe("suspended");
    const [question] = await runtime.pendingQuestions({ sessionId: suspended.sessionId });
    expect(question).toMatchObject({ agentId: "payments", question: { question: "Which card?" } });
    expect(question!.chain!.map((c) => c.agentId)).toEqual(["triage", "billing"]);
    expect(await runtime.pendingApprovals({ sessionId: suspended.sessionId })).toEqual([]);
    expect(
      events.some(
        (e) => e.type === "question" && e.sessionId === suspended.sessionId && e.questionId === question!.questionId,
      ),
    ).toBe(true);
    const result = await runtime.answerQuestion(question!.questionId, { value: "visa" });
    expect(result).toMatchObject({ status: "complete", sessionId: suspended.sessionId });
    expect(result.text).toContain("triage: billing: payments:");
    expect(result.text).toContain("visa");
  });

  it("the waiting calls are not decisions: resolveApproval on one is refused and changes nothing", async () => {
    const { runtime, refunds } = helpdesk(new MemorySessionStore());
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 9" });
    const records = await runtime.store.load(suspended.sessionId);
    const wait = records.find((r) => r.kind === "approval" && r.request.waitsOn !== undefined);
    expect(wait).toBeDefined();
    const requestId = (wait as { request: { requestId: string } }).request.requestId;
    await expect(runtime.resolveApproval(requestId, { approved: true })).rejects.toThrow(InvalidArgumentError);
    expect(refunds).toEqual([]);
    expect((await runtime.pendingApprovals()).length).toBe(1);
  });

  it("a new message to the conversation is stored behind the chain's decision (the default), then runs", async () => {
    const { runtime } = helpdesk(new MemorySessionStore());
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 10" });
    const [request] = suspended.pendingApprovals!;
    const events: RuntimeEvent[] = [];
    for await (const event of runtime.stream({
      agentId: "triage",
      content: "refund order 11",
      session: suspended.sessionId,
    }))
      events.push(event);
    expect(events.map((e) => e.type)).toEqual(["message_queued"]);
    expect(events[0]).toMatchObject({ pendingRequestIds: [request!.requestId] });
    const queuedRunId = events[0]!.runId;
    const ran = new Promise<RuntimeEvent>((resolve) =>
      runtime.events.on("event", (event) => {
        if (event.type === "done" && event.runId === queuedRunId) resolve(event);
      }),
    );
    await runtime.resolveApproval(request!.requestId, { approved: true });
    // The queued message ran after the chain ended; its own refund now waits for a decision.
    expect(await ran).toMatchObject({ type: "done", result: { status: "suspended" } });
  });

  it('"supersede" on the conversation denies the decision its chain waits for: a late approval gets ApprovalSupersededError and the refund never runs', async () => {
    const { runtime, refunds, events } = helpdesk(new MemorySessionStore());
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 13" });
    const [request] = suspended.pendingApprovals!;
    const next = await runtime.send({
      agentId: "triage",
      content: "forget it",
      session: suspended.sessionId,
      ifPending: "supersede",
    });
    // "forget it" goes down the chain again and asks for a refund of its own.
    expect(next.status).toBe("suspended");
    expect(next.pendingApprovals![0]!.requestId).not.toBe(request!.requestId);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "approval_resolved",
        requestId: request!.requestId,
        approved: false,
        reason: "superseded",
      }),
    );
    const late = await runtime.resolveApproval(request!.requestId, { approved: true }).catch((e: unknown) => e);
    expect(ApprovalSupersededError.isInstance(late)).toBe(true);
    expect(refunds).toEqual([]);
    expect((await runtime.pendingApprovals()).map((p) => p.requestId)).toEqual([next.pendingApprovals![0]!.requestId]);
  });

  it("a process that died after storing the decision loses nothing: the next runtime that touches the conversation finishes the chain, the refund runs once", async () => {
    const path = sqlitePath();
    const first = helpdesk(new SqliteSessionStore({ path }));
    const suspended = await first.runtime.send({ agentId: "triage", content: "refund order 12" });
    const [request] = suspended.pendingApprovals!;
    // The first process stores the decision and dies before anything resumes: a store that fails
    // every append after the decision record.
    const dying = new SqliteSessionStore({ path });
    let decided = false;
    const append = dying.append.bind(dying);
    dying.append = async (sessionId, records, options) => {
      if (decided) throw new Error("process died");
      const stored = await append(sessionId, records, options);
      if (records.some((r) => r.kind === "approval" && r.decision !== undefined)) decided = true;
      return stored;
    };
    const crashed = helpdesk(dying);
    await expect(crashed.runtime.resolveApproval(request!.requestId, { approved: true })).rejects.toThrow(
      /process died/,
    );
    expect(crashed.refunds).toEqual([]);

    const next = helpdesk(new SqliteSessionStore({ path }));
    // The user asks again: the chain finishes first (the refund runs once), then the new message.
    const later = await next.runtime.send({ agentId: "triage", content: "any news?", session: suspended.sessionId });
    expect(next.refunds).toEqual([15]);
    expect(later.status).toBe("suspended"); // "any news?" goes down the chain again and asks for a new refund
    const history = (await next.runtime.store.load(suspended.sessionId)).flatMap((r) =>
      r.kind === "message" && r.frame === null && r.message.role === "assistant"
        ? [r.message.content.map((p) => (p.type === "text" ? p.text : "")).join("")]
        : [],
    );
    expect(history).toContain("triage: billing: payments: refunded 15");
  });

  it("each step of a chain's resume tells waiters in any runtime sharing the store which session changed (a store signal)", async () => {
    const store = new MemorySessionStore();
    const { runtime } = helpdesk(store);
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 7" });
    const seen: string[] = [];
    new GuardedSessionStore(store).subscribe("session", (signal) => seen.push(signal.key));
    await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const sessions = await store.listSessions();
    const idOf = (agentId: string) => sessions.find((s) => s.agentId === agentId)!.sessionId;
    // billing's and triage's waiting calls got their answers.
    expect(seen).toEqual(expect.arrayContaining([idOf("billing"), idOf("triage")]));
  });

  it("a decision that leaves a delegate suspended again reports the conversation at the top, still suspended, with what it waits on now", async () => {
    let asks = 0;
    const twice = (request: ModelRequest): FakeTurn => {
      // payments asks for a second refund once the first was approved.
      if (agentOf(request) === "payments" && request.messages.at(-1)!.role === "tool" && asks++ === 0)
        return { toolCalls: [{ name: "refund", args: { amount: 5 } }] };
      return script(request);
    };
    const { runtime, refunds } = helpdesk(new MemorySessionStore(), {
      providers: { fake: createFakeProvider(twice) },
    });
    const suspended = await runtime.send({ agentId: "triage", content: "refund order 7" });
    const again = await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    expect(refunds).toEqual([15]);
    expect(again).toMatchObject({ status: "suspended", sessionId: suspended.sessionId, agentId: "triage" });
    expect(again.pendingApprovals!.map((r) => [r.name, r.args, r.origin?.agentId])).toEqual([
      ["refund", { amount: 5 }, "payments"],
    ]);
  });
});
