import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemorySessionStore, type SessionStore } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { eventually, gate, lastText, multiRuntime, toolResultOf } from "./multi-agent-helpers.js";

afterEach(() => {
  vi.useRealTimers();
});

const stores: { name: string; make: () => SessionStore }[] = [
  { name: "memory", make: () => new MemorySessionStore() },
  {
    name: "sqlite",
    make: () => new SqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "agentry-deleg-")), "s.db") }),
  },
];

/** general asks via agents_message with these args, then reports what the tool returned. */
const generalAsks =
  (args: Record<string, unknown>) => (request: Parameters<Parameters<typeof multiRuntime>[0][string]>[0]) =>
    request.messages.at(-1)!.role === "tool"
      ? { text: JSON.stringify(toolResultOf(request, "agents_message")) }
      : { toolCalls: [{ name: "agents_message", args }] };

describe.each(stores)("agents_message over the $name store", ({ make }) => {
  it("sync: returns the target's answer and tool-call count; the exchange is in the target's session", async () => {
    const { runtime, store, events, added, provider } = multiRuntime(
      {
        general: generalAsks({ agentId: "todo", content: "add milk" }),
        todo: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "Milk added.", thinking: "easy" }
            : { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] },
      },
      { store: make() },
    );
    const result = await runtime.send({ agentId: "general", content: "ask todo to add milk" });
    const reply = JSON.parse(result.text) as Record<string, unknown>;
    expect(reply).toMatchObject({
      mode: "sync",
      status: "complete",
      agentId: "todo",
      created: true,
      response: "Milk added.",
      truncated: false,
      toolCallCount: 1,
      toolCalls: [{ name: "todo_add" }],
      thinkingText: "easy",
    });
    expect(typeof reply.durationMs).toBe("number");
    expect(added).toEqual(["milk"]);
    const [todoSession] = await store.listSessions({ agentId: "todo" });
    expect(reply.sessionId).toBe(todoSession!.sessionId);
    const todoHistory = (await store.load(todoSession!.sessionId)).flatMap((r) =>
      r.kind === "message" && r.frame === null ? [r.message.role] : [],
    );
    expect(todoHistory).toEqual(["user", "assistant", "tool", "assistant"]);
    // The target's events reach runtime.events, stamped with its session.
    expect(
      events.some(
        (e) => e.sessionId === todoSession!.sessionId && e.type === "tool_call_update" && e.name === "todo_add",
      ),
    ).toBe(true);
    expect(reply.responseId).toBe(events.find((e) => e.sessionId === todoSession!.sessionId)?.runId);
    // The target ran with its own scoped tools, never the caller's.
    const todoRequest = provider.calls.find((r) => r.system.includes("agent todo"))!;
    expect(todoRequest.tools.map((t) => t.name)).not.toContain("general_secret");
    expect(todoRequest.tools.map((t) => t.name)).toContain("todo_add");
    (store as { close?: () => void }).close?.();
  });

  it("sync timeout returns status timeout and leaves the target running to completion", async () => {
    // The target answers only when the test lets it: the caller's answer cannot have waited for it.
    const slowAnswer = gate();
    const slowCalled = gate();
    const { runtime, store } = multiRuntime(
      {
        general: generalAsks({ agentId: "slow", content: "take your time", timeout: 0.05 }),
        slow: async () => (slowCalled.open(), await slowAnswer.promise, { text: "finally done" }),
      },
      { store: make() },
    );
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let settled = false;
    const sending = runtime.send({ agentId: "general", content: "go" }).finally(() => (settled = true));
    await slowCalled.promise; // delegated: the caller waits, the target's model call is under way
    await vi.advanceTimersByTimeAsync(49);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    // At the 0.05 s timeout, with the target still running: the fake clock stays at 50 ms while the
    // caller's turn finishes (a bounded number of real event-loop turns, as a loaded machine needs).
    for (let i = 0; i < 500 && !settled; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(settled).toBe(true);
    vi.useRealTimers();
    const result = await sending;
    expect(JSON.parse(result.text)).toMatchObject({
      mode: "sync",
      status: "timeout",
      agentId: "slow",
      timeoutSeconds: 0.05,
    });
    const [slowSession] = await store.listSessions({ agentId: "slow" });
    expect((await store.load(slowSession!.sessionId)).some((r) => r.kind === "turn" && r.phase === "end")).toBe(false);
    slowAnswer.open();
    await eventually(async () =>
      (await store.load(slowSession!.sessionId)).some((r) => r.kind === "turn" && r.phase === "end"),
    );
    const records = await store.load(slowSession!.sessionId);
    expect(
      records.some(
        (r) =>
          r.kind === "message" && r.message.role === "assistant" && JSON.stringify(r.message).includes("finally done"),
      ),
    ).toBe(true);
    await runtime.close();
    (store as { close?: () => void }).close?.();
  });

  it("async returns at once with a responseId; the result lands in the target session", async () => {
    const { runtime, store } = multiRuntime(
      {
        general: generalAsks({ agentId: "todo", content: "add eggs", mode: "async" }),
        todo: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "Eggs added.", delayMs: 50 }
            : { toolCalls: [{ name: "todo_add", args: { item: "eggs" } }] },
      },
      { store: make() },
    );
    const result = await runtime.send({ agentId: "general", content: "go" });
    const reply = JSON.parse(result.text) as { mode: string; status: string; sessionId: string; responseId: string };
    expect(reply).toMatchObject({ mode: "async", status: "started", agentId: "todo", created: true });
    await eventually(async () => JSON.stringify(await store.load(reply.sessionId)).includes("Eggs added."));
    const turns = (await store.load(reply.sessionId)).filter((r) => r.kind === "turn");
    expect(turns.every((t) => t.kind === "turn" && t.runId === reply.responseId)).toBe(true);
    await runtime.close();
    (store as { close?: () => void }).close?.();
  });
});

describe("agents_message refusals", () => {
  it("refuses agents that are denied, not allowed, hidden or unknown, naming why, before creating any session", async () => {
    const cases = [
      { agentId: "journal", why: /agentDenylist of "general"/ },
      { agentId: "outsider", why: /not in the agentAllowlist of "general"/ },
      { agentId: "hidden", why: /hidden \(uiVisible: false\)/ },
      { agentId: "nobody", why: /Unknown agent "nobody"/ },
    ];
    for (const { agentId, why } of cases) {
      const { runtime, store } = multiRuntime({ general: generalAsks({ agentId, content: "hi" }) });
      const result = await runtime.send({ agentId: "general", content: "go" });
      expect(JSON.parse(result.text)).toMatchObject({ error: expect.stringMatching(why) });
      expect((await store.listSessions()).map((s) => s.agentId)).toEqual(["general"]);
    }
  });

  it("refuses a cycle back to an agent already waiting in the chain, without deadlock", async () => {
    const { runtime } = multiRuntime({
      general: generalAsks({ agentId: "todo", content: "ask general back" }),
      todo: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: `todo saw: ${JSON.stringify(toolResultOf(request, "agents_message"))}` }
          : { toolCalls: [{ name: "agents_message", args: { agentId: "general", content: "loop?" } }] },
    });
    const result = await runtime.send({ agentId: "general", content: "go" });
    const reply = JSON.parse(result.text) as { response: string };
    expect(reply.response).toMatch(
      /Refused: .*general.* is already waiting in this delegation chain \(general → todo → general\)/,
    );
  });

  it("limits delegation chains to maxDelegationDepth hops", async () => {
    const hop = (to: string) => (request: Parameters<Parameters<typeof multiRuntime>[0][string]>[0]) =>
      request.messages.at(-1)!.role === "tool"
        ? { text: `via ${to}: ${JSON.stringify(toolResultOf(request, "agents_message"))}` }
        : { toolCalls: [{ name: "agents_message", args: { agentId: to, content: "pass it on" } }] };
    const { runtime } = multiRuntime(
      { general: hop("todo"), todo: hop("journal"), journal: hop("todo") },
      { maxDelegationDepth: 2 },
    );
    const result = await runtime.send({ agentId: "general", content: "go" });
    // general → todo → journal; journal → todo would be a cycle AND the third hop: refused either way.
    expect(result.text).toMatch(/Refused/);
    const { runtime: deep } = multiRuntime(
      { general: hop("todo"), todo: hop("journal"), journal: () => ({ text: "journal here" }) },
      { maxDelegationDepth: 1 },
    );
    const shallow = await deep.send({ agentId: "general", content: "go" });
    expect(shallow.text).toMatch(/limited to 1 hops \(general → todo → journal\)/);
  });
});

describe("system messages (seed 003)", () => {
  it("wraps, records, and runs inference unless silent; silent ones join the next inference's context", async () => {
    const { runtime, provider, store } = multiRuntime({
      worker: (request) => ({ text: `seen: ${lastText(request)}` }),
    });
    const first = await runtime.send({ agentId: "worker", content: "hello" });
    await runtime.postSystemMessage({ sessionId: first.sessionId }, "build finished", { origin: "ci", silent: true });
    expect(provider.calls).toHaveLength(1);
    await runtime.postSystemMessage({ agentId: "worker" }, "deploy started", { origin: "ops" });
    expect(provider.calls).toHaveLength(2);
    const sent = provider.calls[1]!.messages;
    expect(sent.slice(-2)).toEqual([
      {
        role: "user",
        content: '<system_message origin="ci">build finished</system_message>',
        origin: "ci",
        silent: true,
      },
      { role: "user", content: '<system_message origin="ops">deploy started</system_message>', origin: "ops" },
    ]);
    const messages = (await store.load(first.sessionId)).flatMap((r) => (r.kind === "message" ? [r.message.role] : []));
    expect(messages).toEqual(["user", "assistant", "user", "user", "assistant"]);
  });

  it("orders system and user messages through the same per-session inbox", async () => {
    const seen: string[] = [];
    const { runtime } = multiRuntime({
      worker: async (request) => {
        seen.push(lastText(request));
        await new Promise((r) => setTimeout(r, 5));
        return { text: "ok" };
      },
    });
    const { sessionId } = await runtime.send({ agentId: "worker", content: "start" });
    seen.length = 0;
    await Promise.all([
      runtime.send({ agentId: "worker", content: "u1", session: sessionId }),
      runtime.postSystemMessage({ sessionId }, "s1", { origin: "x" }),
      runtime.send({ agentId: "worker", content: "u2", session: sessionId }),
      runtime.postSystemMessage({ sessionId }, "s2", { origin: "x" }),
    ]);
    expect(seen).toEqual([
      "u1",
      '<system_message origin="x">s1</system_message>',
      "u2",
      '<system_message origin="x">s2</system_message>',
    ]);
  });
});

describe("background agents (seed 003)", () => {
  it("start_background_agent returns the new session id at once; the agent reports back with send_agent_message", async () => {
    const { runtime, store } = multiRuntime({
      general: (request) => {
        const text = lastText(request);
        if (text.startsWith('<system_message origin="worker">')) return { text: `noted report: ${text}` };
        return request.messages.at(-1)!.role === "tool"
          ? { text: JSON.stringify(toolResultOf(request, "start_background_agent")) }
          : {
              toolCalls: [
                {
                  name: "start_background_agent",
                  args: { agentId: "worker", prompt: "count to three", name: "counter" },
                },
              ],
            };
      },
      worker: (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "reported" }
          : { toolCalls: [{ name: "send_agent_message", args: { text: "one two three" } }], delayMs: 20 },
    });
    const result = await runtime.send({ agentId: "general", content: "start a counter" });
    const started = JSON.parse(result.text) as { status: string; sessionId: string; agentId: string };
    expect(started).toMatchObject({ status: "started", agentId: "worker" });
    const background = await store.getSession(started.sessionId);
    expect(background).toMatchObject({
      name: "counter",
      attributes: { background: true, parentSessionId: result.sessionId, parentAgentId: "general" },
    });
    // The report arrives in the foreground session as a system message and is answered there.
    await eventually(async () => JSON.stringify(await store.load(result.sessionId)).includes("noted report"));
    const foreground = await store.load(result.sessionId);
    expect(JSON.stringify(foreground)).toContain('<system_message origin=\\"worker\\">one two three</system_message>');
    await runtime.close();
  });

  it("posts exactly one failure notification to the parent", async () => {
    const { ProviderError } = await import("@agentry/core");
    const { runtime, store } = multiRuntime({
      general: (request) => {
        const text = lastText(request);
        if (text.includes("failed")) return { text: "sorry to hear" };
        return request.messages.at(-1)!.role === "tool"
          ? { text: "started" }
          : { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "do it" } }] };
      },
      worker: () => ({ error: new ProviderError("model exploded", { provider: "fake", status: 500 }) }),
    });
    const result = await runtime.send({ agentId: "general", content: "go" });
    const failures = async () =>
      (await store.load(result.sessionId)).filter(
        (r) => r.kind === "message" && JSON.stringify(r.message).includes("failed: model exploded"),
      );
    await eventually(async () => (await failures()).length > 0);
    // The background agent fails again on a second message: still one notification.
    const [worker] = await store.listSessions({ agentId: "worker" });
    await runtime.send({ agentId: "worker", content: "try again", session: worker!.sessionId });
    await new Promise((r) => setTimeout(r, 50));
    await runtime.close();
    expect(await failures()).toHaveLength(1);
    expect((await store.getSession(worker!.sessionId))?.attributes?.failureNotified).toBe(true);
  });

  it("request_permission: the handler decides, the foreground agent gets silent notes, the asker gets the decision", async () => {
    const asked: string[] = [];
    const { runtime, store, provider } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "started" }
            : { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "buy a domain" } }] },
        worker: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: `decision: ${JSON.stringify(request.messages.at(-1))}` }
            : {
                toolCalls: [
                  {
                    name: "request_permission",
                    args: { permission: "spend $12 on example.com", reason: "the user asked" },
                  },
                ],
              },
      },
      {
        approve: async (request) => (
          asked.push(`${request.name}:${JSON.stringify(request.args)}`),
          { approved: false, reason: "too pricey" }
        ),
      },
    );
    const result = await runtime.send({ agentId: "general", content: "go" });
    await eventually(
      async () =>
        (await store.load(result.sessionId)).filter(
          (r) => r.kind === "message" && r.message.role === "user" && r.message.silent,
        ).length === 2,
    );
    expect(asked).toEqual(['request_permission:{"permission":"spend $12 on example.com","reason":"the user asked"}']);
    const notes = (await store.load(result.sessionId)).flatMap((r) =>
      r.kind === "message" && r.message.role === "user" && r.message.silent ? [JSON.stringify(r.message.content)] : [],
    );
    expect(notes[0]).toMatch(/asked the user for permission: spend \$12 on example\.com \(reason: the user asked\)/);
    expect(notes[1]).toMatch(/was refused permission: spend \$12 on example\.com \(too pricey\)/);
    const workerAnswer = provider.calls.filter((r) => r.system.includes("agent worker")).at(-1)!;
    expect(JSON.stringify(workerAnswer.messages.at(-1))).toMatch(/not approved \(too pricey\)/);
    // Stored like tool approvals.
    const [worker] = await store.listSessions({ agentId: "worker" });
    const approvals = (await store.load(worker!.sessionId)).filter((r) => r.kind === "approval");
    expect(approvals.map((a) => (a.kind === "approval" ? (a.decision ?? "pending") : ""))).toEqual([
      "pending",
      "denied",
    ]);
    await runtime.close();
  });
});
