import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  defineTool,
  InvalidArgumentError,
  MemorySessionStore,
  runUnifiedAgentLoop,
  type ApprovalContext,
  type JsonValue,
  type ToolContext,
} from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";
import { agentOf } from "./multi-agent-helpers.js";

type Seen = Pick<ToolContext, "context" | "scope" | "runId" | "callKey" | "sessionId" | "agentId" | "host">;

/** A tool that records what its context says, named `name`. */
function spyTool(name: string, seen: Seen[], options: { requiresApproval?: boolean } = {}) {
  return defineTool({
    name,
    description: "records its context",
    permissionClass: "safe",
    input: z.object({}),
    ...(options.requiresApproval && { requiresApproval: true }),
    execute: (_args, ctx) => {
      seen.push({
        context: ctx.context,
        scope: ctx.scope,
        runId: ctx.runId,
        callKey: ctx.callKey,
        sessionId: ctx.sessionId,
        agentId: ctx.agentId,
        host: ctx.host,
      });
      return "ok";
    },
  });
}

/** Calls `tool` (always with the call id "c1", as a careless provider would) once, then answers. */
const callsOnce = (tool: string) =>
  createFakeProvider((request) =>
    request.messages.at(-1)?.role === "tool" ? { text: "done" } : { toolCalls: [{ id: "c1", name: tool, args: {} }] },
  );

const agents = [
  { agentId: "helpdesk", displayName: "Helpdesk", systemPrompt: "You are agent helpdesk.", toolAllowlist: ["*"] },
];

describe("SendInput.context", () => {
  it("reaches tools as ctx.context with the scope, run id and a call key unique across turns and sessions", async () => {
    const seen: Seen[] = [];
    const runtime = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store: new MemorySessionStore(),
      providers: { fake: callsOnce("lookup") },
      defaultModel: "fake",
      tools: [spyTool("lookup", seen)],
    });
    const context = { tenant: "acme", user: { id: "u1", plan: "pro" } };
    const first = await runtime.send({ agentId: "helpdesk", content: "hi", scope: "acme", context });
    const second = await runtime.send({
      agentId: "helpdesk",
      content: "again",
      scope: "acme",
      context,
      session: first.sessionId,
    });
    const other = await runtime.send({
      agentId: "helpdesk",
      content: "hi",
      scope: "globex",
      context: { tenant: "globex" },
    });
    expect(seen.map((s) => s.context)).toEqual([context, context, { tenant: "globex" }]);
    expect(seen.map((s) => s.scope)).toEqual(["acme", "acme", "globex"]);
    expect(seen.map((s) => s.runId)).toEqual([first.runId, second.runId, other.runId]);
    // The provider reused the call id "c1" every time; the key never repeats.
    expect(new Set(seen.map((s) => s.callKey)).size).toBe(3);
    // The runtime's internals are not the host's business.
    expect(seen[0]!.host).toEqual(context);
  });

  it("is a copy: changing the object after send changes nothing; non-JSON is refused before anything is stored", async () => {
    const seen: Seen[] = [];
    const store = new MemorySessionStore();
    const runtime = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store,
      providers: { fake: callsOnce("lookup") },
      defaultModel: "fake",
      tools: [spyTool("lookup", seen)],
    });
    const context = { tenant: "acme" };
    const pending = runtime.send({ agentId: "helpdesk", content: "hi", context });
    context.tenant = "changed";
    await pending;
    expect(seen[0]!.context).toEqual({ tenant: "acme" });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [
      { at: new Date() },
      { f: () => 1 },
      { n: Number.NaN },
      cyclic,
      { deep: nested(40) },
      { big: "x".repeat(70_000) },
    ]) {
      await expect(runtime.send({ agentId: "helpdesk", content: "hi", context: bad as never })).rejects.toThrow(
        InvalidArgumentError,
      );
    }
    expect(await store.listSessions()).toHaveLength(1);
  });

  it("survives an approval: the turn resumed by another runtime on the same store sees the same context and call key", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-ctx-")), "s.db");
    const seen: Seen[] = [];
    const make = () =>
      createAgentRuntime({
        registry: createAgentRegistry(agents),
        store: new SqliteSessionStore({ path }),
        providers: { fake: callsOnce("refund") },
        defaultModel: "fake",
        tools: [spyTool("refund", seen, { requiresApproval: true })],
      });
    const first = make();
    const suspended = await first.send({
      agentId: "helpdesk",
      content: "refund me",
      scope: "acme",
      context: { tenant: "acme", limit: 20 },
    });
    expect(suspended.status).toBe("suspended");
    await first.close();
    const second = make();
    const resumed = await second.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.context).toEqual({ tenant: "acme", limit: 20 });
    expect(seen[0]!.scope).toBe("acme");
    expect(seen[0]!.callKey).toBe(`${suspended.sessionId}:${suspended.runId}:c1`);
  });

  for (const [kind, makeStore] of [
    ["memory", () => new MemorySessionStore()],
    ["SQLite", () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-ctx-")), "s.db") })],
  ] as const) {
    it(`keeps an own __proto__ key as data, the same after a resume from the ${kind} store`, async () => {
      const text = '{"prefs":{"__proto__":{"isAdmin":true}}}';
      const store = makeStore();
      const seen: Seen[] = [];
      const rules: unknown[] = [];
      const isAdmin = (context: unknown) => (context as { prefs: { isAdmin?: unknown } }).prefs.isAdmin;
      const make = () =>
        createAgentRuntime({
          registry: createAgentRegistry(agents),
          store,
          providers: { fake: callsOnce("refund") },
          defaultModel: "fake",
          tools: [spyTool("refund", seen, { requiresApproval: true })],
          // A rule that trusts a flag only the host sets.
          approve: async (_request, info) => (
            rules.push(isAdmin(info.context)),
            isAdmin(info.context) === true ? { approved: true } : { suspend: true }
          ),
        });
      const first = make();
      const suspended = await first.send({ agentId: "helpdesk", content: "refund", context: JSON.parse(text) });
      expect(rules).toEqual([undefined]);
      expect(suspended.status).toBe("suspended");
      await first.close();
      const resumed = await make().resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
      expect(resumed.status).toBe("complete");
      expect(seen).toHaveLength(1);
      expect(isAdmin(seen[0]!.context)).toBeUndefined();
      expect(JSON.stringify(seen[0]!.context)).toBe(text);
      const prefs = (seen[0]!.context as { prefs: object }).prefs;
      expect(Object.getPrototypeOf(prefs)).toBe(Object.prototype);
      expect(Object.hasOwn(prefs, "__proto__")).toBe(true);
    });
  }

  it("is what approve, requiresApproval and a policy function decide on", async () => {
    const seen: Seen[] = [];
    const infos: ApprovalContext[] = [];
    const checks: unknown[] = [];
    const policies: unknown[] = [];
    const refund = defineTool({
      name: "refund",
      description: "refund an amount",
      permissionClass: "safe",
      input: z.object({ amount: z.number() }),
      requiresApproval: (_args, ctx) => (checks.push([ctx.context, ctx.scope]), true),
      execute: ({ amount }, ctx) => (
        seen.push({ context: ctx.context, scope: ctx.scope, runId: ctx.runId, callKey: ctx.callKey }),
        `refunded ${amount}`
      ),
    });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store: new MemorySessionStore(),
      providers: {
        fake: createFakeProvider((request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "done" }
            : { toolCalls: [{ name: "refund", args: { amount: 15 } }] },
        ),
      },
      defaultModel: "fake",
      tools: [refund],
      policy: (session, _agent, turn) => (policies.push([session.scope, turn.context]), defaultPolicy("thread")),
      // Auto-approve refunds under 20 for tenant acme: three lines.
      approve: async (request, info) => {
        infos.push(info);
        const { amount } = request.args as { amount: number };
        return info.scope === "acme" && amount < 20 ? { approved: true } : { suspend: true };
      },
    });
    const acme = await runtime.send({
      agentId: "helpdesk",
      content: "refund",
      scope: "acme",
      context: { plan: "gold" },
    });
    const globex = await runtime.send({
      agentId: "helpdesk",
      content: "refund",
      scope: "globex",
      context: { plan: "free" },
    });
    expect(acme.status).toBe("complete");
    expect(globex.status).toBe("suspended");
    expect(infos.map((i) => [i.scope, i.context, i.agentId, i.sessionId])).toEqual([
      ["acme", { plan: "gold" }, "helpdesk", acme.sessionId],
      ["globex", { plan: "free" }, "helpdesk", globex.sessionId],
    ]);
    expect(checks).toEqual([
      [{ plan: "gold" }, "acme"],
      [{ plan: "free" }, "globex"],
    ]);
    expect(policies).toEqual([
      ["acme", { plan: "gold" }],
      ["globex", { plan: "free" }],
    ]);
    expect(seen.map((s) => s.context)).toEqual([{ plan: "gold" }]);
  });

  it("is inherited by delegated, background and sub-task turns", async () => {
    const seen: (Seen & { agent: string })[] = [];
    const probe = defineTool({
      name: "probe",
      description: "records its context",
      permissionClass: "safe",
      input: z.object({}),
      execute: (_args, ctx) => (
        seen.push({ agent: ctx.agentId ?? "?", context: ctx.context, scope: ctx.scope, callKey: ctx.callKey }),
        "ok"
      ),
    });
    const provider = createFakeProvider((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "tool") return { text: "done" };
      const text = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
      if (request.system.startsWith("You are a sub-agent") || text.includes("You run in the background"))
        return { toolCalls: [{ name: "probe", args: {} }] };
      if (agentOf(request) === "triage")
        return { toolCalls: [{ name: "agents_message", args: { agentId: "billing", content: "check" } }] };
      return {
        toolCalls: [
          { name: "probe", args: {} },
          { name: "run_subtask", args: { title: "probe more", instructions: "probe" } },
          { name: "start_background_agent", args: { prompt: "probe in the background" } },
        ],
      };
    });
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([
        {
          agentId: "triage",
          displayName: "Triage",
          systemPrompt: "You are agent triage.",
          agentAllowlist: ["billing"],
        },
        { agentId: "billing", displayName: "Billing", systemPrompt: "You are agent billing." },
      ]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "fake",
      tools: [probe],
    });
    let backgroundProbed!: () => void;
    const background = new Promise<void>((resolve) => (backgroundProbed = resolve));
    runtime.events.on("event", (event) => {
      if (event.type === "tool_call_update" && event.status === "end" && event.name === "probe" && seen.length === 3)
        backgroundProbed();
    });
    await runtime.send({ agentId: "triage", content: "go", scope: "acme", context: { ticket: "T-1" } });
    await background;
    expect(seen).toHaveLength(3);
    for (const s of seen) {
      expect(s.agent).toBe("billing");
      expect(s.context).toEqual({ ticket: "T-1" });
      expect(s.scope).toBe("acme");
    }
    expect(new Set(seen.map((s) => s.callKey)).size).toBe(3);
  });
});

describe("LoopOptions.context (the bare loop)", () => {
  it("reaches tools as ctx.context and ctx.host, approve as info.context, with a call key per call", async () => {
    const seen: Seen[] = [];
    const infos: ApprovalContext<unknown>[] = [];
    const loop = runUnifiedAgentLoop({
      provider: createFakeProvider([
        {
          toolCalls: [
            { id: "a", name: "lookup", args: {} },
            { id: "b", name: "gated", args: {} },
          ],
        },
        { text: "done" },
      ]),
      model: "fake",
      systemPrompt: "",
      history: [{ role: "user", content: "go" }],
      tools: [spyTool("lookup", seen), spyTool("gated", seen, { requiresApproval: true })],
      context: { user: "u1" },
      scope: "acme",
      runId: "run-1",
      sessionId: "s-1",
      approve: async (_request, info) => (infos.push(info), { approved: true }),
    });
    for await (const event of loop) if (event.type === "done") expect(event.result.status).toBe("complete");
    expect(seen.map((s) => [s.context, s.host, s.scope, s.runId, s.callKey])).toEqual([
      [{ user: "u1" }, { user: "u1" }, "acme", "run-1", "s-1:run-1:a"],
      [{ user: "u1" }, { user: "u1" }, "acme", "run-1", "s-1:run-1:b"],
    ]);
    expect(infos).toEqual([
      { sessionId: "s-1", scope: "acme", runId: "run-1", context: { user: "u1" }, permissionClass: ["safe"] },
    ]);
  });
});

function nested(depth: number): JsonValue {
  let value: JsonValue = 1;
  for (let i = 0; i < depth; i++) value = { next: value };
  return value;
}
