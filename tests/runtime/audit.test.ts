import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  createAgentRuntime,
  defaultPolicy,
  defineTool,
  MemorySessionStore,
  SessionNotFoundError,
  type AgentRuntimeOptions,
  type AuditEntry,
  type ModelRequest,
  type RuntimeEvent,
  type Tool,
} from "@agentry/core";
import { createFakeProvider, type FakeScript, type FakeTurn } from "@agentry/core/testing";

/** Argument values no audit entry may contain. */
const SECRET = "s3cret-Δ-7781";
const SECRET_2 = "hunter2-other-9913";

function tools() {
  const ran: string[] = [];
  const note = defineTool({
    name: "note",
    description: "Keep a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => (ran.push(`note:${text}`), "noted"),
  });
  const wipe = defineTool({
    name: "wipe",
    description: "Wipe a record",
    input: z.object({ id: z.string() }),
    requiresApproval: true,
    execute: ({ id }) => (ran.push(`wipe:${id}`), `wiped ${id}`),
  });
  const shell = defineTool({
    name: "shell",
    description: "Run a command",
    input: z.object({ command: z.string() }),
    permissionClass: "execute",
    execute: () => "ran",
  });
  // A tool of an MCP server the policy does not allow (what connectMcpServer makes, without a process).
  const issues: Tool = {
    ...defineTool({
      name: "github.create_issue",
      description: "Open an issue",
      input: z.object({ title: z.string() }),
      execute: () => "opened",
    }),
    mcpServer: "github",
  };
  const boom = defineTool({
    name: "boom",
    description: "Fails",
    input: z.object({}),
    execute: () => Promise.reject(new Error("exploded")),
  });
  return { ran, all: [note, wipe, shell, issues, boom] };
}

const agents = [{ agentId: "clerk", displayName: "Clerk" }];

function setup(script: FakeScript, extra: Partial<AgentRuntimeOptions> = {}) {
  const provider = createFakeProvider(script);
  const store = extra.store ?? new MemorySessionStore();
  const { ran, all } = tools();
  const delivered: AuditEntry[] = [];
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: { fake: provider },
    defaultModel: "fake-model",
    tools: all,
    audit: (entry) => void delivered.push(entry),
    ...extra,
  });
  const events: RuntimeEvent[] = [];
  runtime.events.on("event", (event) => events.push(event));
  return { runtime, store, provider, delivered, events, ran };
}

const isRoot = (request: ModelRequest) => !request.system.startsWith("You are a sub-agent");
const lastRole = (request: ModelRequest) => request.messages.at(-1)?.role;
const byCall = (entries: AuditEntry[]) => Object.fromEntries(entries.map((entry) => [entry.toolCallId, entry]));

describe("audit: one entry per tool call", () => {
  it("audits allowed, unknown, not permitted, MCP server not allowed, invalid, approved, denied and failing calls", async () => {
    const turns: FakeTurn[] = [
      {
        toolCalls: [
          { id: "ok", name: "note", args: { text: SECRET } },
          { id: "unknown", name: "teleport", args: { to: SECRET } },
          { id: "class", name: "shell", args: { command: SECRET } },
          { id: "mcp", name: "github.create_issue", args: { title: SECRET } },
          { id: "invalid", name: "note", args: { text: 42, extra: SECRET } },
          { id: "approved", name: "wipe", args: { id: "row-Q7" } },
          { id: "denied", name: "wipe", args: { id: SECRET_2 } },
          { id: "fails", name: "boom", args: {} },
          { id: "same", name: "note", args: { text: SECRET } },
          { id: "garbled", name: "note", args: "{not json" },
        ],
      },
      { text: "done" },
    ];
    const { runtime, store, delivered, ran } = setup(turns, {
      approve: (request) =>
        Promise.resolve(
          (request.args as { id: string }).id === "row-Q7"
            ? { approved: true }
            : { approved: false, reason: "not this one" },
        ),
    });
    const before = Date.now();
    const result = await runtime.send({ agentId: "clerk", content: "go", scope: "tenant-a" });
    const elapsed = Date.now() - before;
    expect(result.status).toBe("complete");
    expect(ran).toEqual([`note:${SECRET}`, "wipe:row-Q7", `note:${SECRET}`]);

    expect(delivered).toHaveLength(10);
    const entries = byCall(delivered);
    const common = {
      sessionId: result.sessionId,
      scope: "tenant-a",
      agentId: "clerk",
      runId: result.runId,
      depth: 0,
      parentId: null,
    };
    expect(entries.ok).toMatchObject({
      ...common,
      tool: "note",
      decision: "allowed",
      isError: false,
      entryId: `${result.runId}:ok`,
    });
    expect(entries.ok!.reason).toBeUndefined();
    expect(entries.unknown).toMatchObject({
      ...common,
      tool: "teleport",
      decision: "refused",
      reason: "unknown_tool",
      isError: true,
    });
    expect(entries.class).toMatchObject({ tool: "shell", decision: "refused", reason: "not_permitted", isError: true });
    expect(entries.mcp).toMatchObject({
      tool: "github.create_issue",
      server: "github",
      decision: "refused",
      reason: "mcp_server_not_allowed",
      isError: true,
    });
    expect(entries.invalid).toMatchObject({
      tool: "note",
      decision: "refused",
      reason: "invalid_arguments",
      isError: true,
    });
    expect(entries.garbled).toMatchObject({ decision: "refused", reason: "invalid_arguments" });
    expect(entries.approved).toMatchObject({ tool: "wipe", decision: "approved", isError: false });
    expect(entries.approved!.approvalRequestId).toEqual(expect.any(String));
    expect(entries.denied).toMatchObject({ tool: "wipe", decision: "denied", reason: "not this one", isError: true });
    expect(entries.fails).toMatchObject({ tool: "boom", decision: "allowed", isError: true });
    for (const entry of delivered) {
      expect(entry.argsDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(Number.isNaN(Date.parse(entry.startedAt))).toBe(false);
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      // A call lasts no longer than the turn it ran in (a resumed call's start was once 0: a duration from the epoch).
      expect(entry.durationMs).toBeLessThanOrEqual(elapsed);
      expect(Date.parse(entry.startedAt)).toBeGreaterThanOrEqual(before);
    }
    // Equal arguments, equal digests; different arguments, different digests.
    expect(entries.same!.argsDigest).toBe(entries.ok!.argsDigest);
    expect(new Set(delivered.map((entry) => entry.argsDigest)).size).toBe(9);
    // No raw argument value in any entry (they may be secrets).
    const text = JSON.stringify(delivered);
    for (const value of [SECRET, SECRET_2, "row-Q7", "{not json"]) expect(text).not.toContain(value);

    // The store has the same entries, in the session's log, in call order.
    const log = await runtime.auditLog(result.sessionId);
    expect(log.map((record) => record.entry)).toEqual(delivered);
    expect(log.every((record) => record.kind === "audit" && typeof record.seq === "number")).toBe(true);
    const raw = await store.load(result.sessionId);
    expect(raw.filter((record) => record.kind === "audit")).toHaveLength(10);
    // Paging.
    expect((await runtime.auditLog(result.sessionId, { limit: 3 })).map((r) => r.entry.toolCallId)).toEqual(
      log.slice(0, 3).map((r) => r.entry.toolCallId),
    );
    expect(
      (await runtime.auditLog(result.sessionId, { afterSeq: log[7]!.seq })).map((r) => r.entry.toolCallId),
    ).toEqual(log.slice(8).map((r) => r.entry.toolCallId));
    // Scope is a boundary here too.
    await expect(runtime.auditLog(result.sessionId, { scope: "tenant-b" })).rejects.toSatisfy((error) =>
      SessionNotFoundError.isInstance(error),
    );
    await expect(runtime.auditLog("no-such-session")).rejects.toSatisfy((error) =>
      SessionNotFoundError.isInstance(error),
    );
  });

  it("the digest is the SHA-256 of the canonical JSON: key order does not matter", async () => {
    const { createHash } = await import("node:crypto");
    const { runtime, delivered } = setup([
      {
        toolCalls: [
          { id: "x", name: "note", args: { text: "a", b: { y: 1, x: [2, "é"] } } },
          { id: "y", name: "note", args: { b: { x: [2, "é"], y: 1 }, text: "a" } },
        ],
      },
      { text: "ok" },
    ]);
    await runtime.send({ agentId: "clerk", content: "go" });
    const [x, y] = delivered;
    expect(x!.argsDigest).toBe(y!.argsDigest);
    expect(x!.argsDigest).toBe(createHash("sha256").update('{"b":{"x":[2,"é"],"y":1},"text":"a"}').digest("hex"));
  });

  it("keeps audit records out of the history the model sees, across turns", async () => {
    const { runtime, provider } = setup([
      { toolCalls: [{ name: "note", args: { text: "x" } }] },
      { text: "one" },
      { text: "two" },
    ]);
    const first = await runtime.send({ agentId: "clerk", content: "first" });
    await runtime.send({ agentId: "clerk", content: "second", session: first.sessionId });
    const seen = JSON.stringify(provider.calls.at(-1)!.messages);
    expect(seen).not.toContain("argsDigest");
    expect(provider.calls.at(-1)!.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });

  it("audits a sub-task's inner calls at their depth, and the sub-task tools themselves", async () => {
    const { runtime, delivered } = setup(
      (request) => {
        if (!isRoot(request))
          return lastRole(request) === "user"
            ? { toolCalls: [{ id: "inner", name: "note", args: { text: SECRET } }] }
            : { text: "child done" };
        return lastRole(request) === "user"
          ? { toolCalls: [{ id: "sub", name: "run_subtask", args: { title: "Notes", instructions: "write a note" } }] }
          : { text: "root done" };
      },
      { policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "subagent"] } },
    );
    const result = await runtime.send({ agentId: "clerk", content: "go" });
    expect(result.status).toBe("complete");
    const entries = byCall(delivered);
    expect(entries.inner).toMatchObject({
      tool: "note",
      depth: 1,
      parentId: "sub",
      decision: "allowed",
      runId: result.runId,
    });
    expect(entries.sub).toMatchObject({
      tool: "run_subtask",
      depth: 0,
      parentId: null,
      decision: "allowed",
      isError: false,
    });
    expect(delivered.map((entry) => entry.toolCallId)).toEqual(["inner", "sub"]);
    const log = await runtime.auditLog(result.sessionId);
    expect(log.find((record) => record.entry.toolCallId === "inner")!.frame).toBe("sub");
  });

  it("refuses a sub-task beyond the depth limit with its reason", async () => {
    const { runtime, delivered } = setup(
      (request) =>
        lastRole(request) === "user"
          ? { toolCalls: [{ id: "deep", name: "run_subtask", args: { title: "t", instructions: "i" } }] }
          : { text: "ok" },
      { policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "subagent"] }, budget: { maxDepth: 0 } },
    );
    await runtime.send({ agentId: "clerk", content: "go" });
    expect(byCall(delivered).deep).toMatchObject({ decision: "refused", reason: "depth_limit" });
  });

  it("a call suspended for approval is audited once, by the runtime (process) that resumes it", async () => {
    const store = new MemorySessionStore();
    const script: FakeScript = (request) =>
      lastRole(request) === "user"
        ? { toolCalls: [{ id: "w", name: "wipe", args: { id: SECRET } }] }
        : { text: "finished" };
    const first = setup(script, { store });
    const suspended = await first.runtime.send({ agentId: "clerk", content: "wipe it" });
    expect(suspended.status).toBe("suspended");
    expect(first.delivered).toEqual([]);
    expect(await first.runtime.auditLog(suspended.sessionId)).toEqual([]);

    const second = setup(script, { store });
    const [pending] = await second.runtime.pendingApprovals();
    const resumed = await second.runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(second.ran).toEqual([`wipe:${SECRET}`]);
    expect(second.delivered).toHaveLength(1);
    const [entry] = second.delivered;
    expect(entry).toMatchObject({
      toolCallId: "w",
      tool: "wipe",
      decision: "approved",
      approvalRequestId: pending!.requestId,
      runId: resumed.runId,
      isError: false,
    });
    expect(entry!.runId).not.toBe(suspended.runId);
    // The wait for the decision is not the call's duration.
    expect(entry!.durationMs).toBeLessThan(60_000);
    // The digest matches what the first run saw for these arguments.
    const direct = setup([{ toolCalls: [{ id: "w2", name: "note", args: { id: SECRET } }] }, { text: "x" }]);
    await direct.runtime.send({ agentId: "clerk", content: "x" });
    expect(entry!.argsDigest).toBe(direct.delivered[0]!.argsDigest);
    expect((await second.runtime.auditLog(suspended.sessionId)).map((record) => record.entry)).toEqual([entry]);
    expect(JSON.stringify(second.delivered)).not.toContain(SECRET);
  });

  it("a denial across a suspension, and an approval retired by a new message, are audited as denied", async () => {
    const script: FakeScript = (request) => {
      const last = request.messages.at(-1)!;
      if (last.role === "user" && last.content === "wipe it")
        return { toolCalls: [{ id: `w${request.messages.length}`, name: "wipe", args: { id: SECRET } }] };
      return { text: "ok" };
    };
    const { runtime, delivered } = setup(script);
    const one = await runtime.send({ agentId: "clerk", content: "wipe it" });
    const [pending] = await runtime.pendingApprovals();
    await runtime.resolveApproval(pending!.requestId, { approved: false, reason: "no" });
    expect(delivered.at(-1)).toMatchObject({
      decision: "denied",
      reason: "no",
      isError: true,
      approvalRequestId: pending!.requestId,
    });

    await runtime.send({ agentId: "clerk", content: "wipe it", session: one.sessionId });
    const [again] = await runtime.pendingApprovals();
    const next = await runtime.send({
      agentId: "clerk",
      content: "never mind",
      session: one.sessionId,
      ifPending: "supersede",
    });
    expect(delivered).toHaveLength(2);
    expect(delivered[1]).toMatchObject({
      tool: "wipe",
      decision: "denied",
      reason: "superseded",
      isError: true,
      approvalRequestId: again!.requestId,
      runId: next.runId,
    });
    expect(delivered[1]!.argsDigest).toBe(delivered[0]!.argsDigest);
    expect((await runtime.auditLog(one.sessionId)).map((record) => record.entry)).toEqual(delivered);
  });

  it("a throwing or rejecting audit callback is reported and does not break the turn; the entries are still stored", async () => {
    let calls = 0;
    const { runtime, events, ran } = setup(
      [
        {
          toolCalls: [
            { id: "a", name: "note", args: { text: "1" } },
            { id: "b", name: "note", args: { text: "2" } },
          ],
        },
        { text: "done" },
      ],
      {
        audit: () => {
          calls++;
          if (calls === 1) throw new Error("audit sink down");
          return Promise.reject(new Error("audit sink still down"));
        },
      },
    );
    const result = await runtime.send({ agentId: "clerk", content: "go" });
    expect(result.status).toBe("complete");
    expect(ran).toHaveLength(2);
    const warnings = events.filter((event) => event.type === "warning" && event.code === "audit_failed");
    expect(warnings).toHaveLength(2);
    expect(warnings.map((w) => (w as { message: string }).message).join("\n")).toMatch(
      /audit sink down[\s\S]*audit sink still down/,
    );
    // Reported before the turn's `done`.
    const done = events.findIndex((event) => event.type === "done");
    expect(events.indexOf(warnings[1]!)).toBeLessThan(done);
    expect(await runtime.auditLog(result.sessionId)).toHaveLength(2);
  });

  it("waits for a slow audit callback before `done`", async () => {
    const released: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { runtime } = setup([{ toolCalls: [{ id: "a", name: "note", args: { text: "1" } }] }, { text: "done" }], {
      audit: async (entry) => {
        await gate;
        released.push(entry.toolCallId);
      },
    });
    // Released on a timer: a turn that did not wait would resolve first.
    setTimeout(release, 50);
    await runtime.send({ agentId: "clerk", content: "go" });
    expect(released).toEqual(["a"]);
  });
});
