import { describe, expect, it } from "vitest";
import { MemorySessionStore, ProviderError, type NewRecord } from "@agentry/core";
import type { RuntimeErrorInfo } from "../../src/runtime/records/runtime-options.js";
import { eventually, multiRuntime } from "./multi-agent-helpers.js";
import { makeRuntime } from "./helpers.js";

/** A memory store whose appends and session updates fail when `fails` says so. */
class FailingStore extends MemorySessionStore {
  constructor(
    private readonly failAppend: (sessionId: string, records: NewRecord[]) => boolean = () => false,
    private readonly failUpdate: (
      sessionId: string,
      patch: Parameters<MemorySessionStore["updateSession"]>[1],
    ) => boolean = () => false,
  ) {
    super();
  }
  override append(sessionId: string, records: NewRecord[]) {
    if (this.failAppend(sessionId, records)) return Promise.reject(new Error("disk full"));
    return super.append(sessionId, records);
  }
  override updateSession(sessionId: string, patch: Parameters<MemorySessionStore["updateSession"]>[1]) {
    if (this.failUpdate(sessionId, patch)) return Promise.reject(new Error("disk full"));
    return super.updateSession(sessionId, patch);
  }
}

const textOf = (records: NewRecord[]) => JSON.stringify(records);

/** Collects what `onError` is told. */
function errorLog() {
  const told: { message: string; info: RuntimeErrorInfo }[] = [];
  return {
    told,
    onError: (error: unknown, info: RuntimeErrorInfo) =>
      told.push({ message: error instanceof Error ? error.message : String(error), info }),
  };
}

describe("failures of work nobody awaits are reported, never swallowed", () => {
  it("a listener that throws: onError hears it (listener_failed), the turn completes", async () => {
    const { told, onError } = errorLog();
    const { runtime } = makeRuntime([{ text: "hi" }], { onError });
    let thrown = 0;
    runtime.events.on("event", () => {
      if (thrown++ === 0) throw new Error("listener bug");
    });
    const result = await runtime.send({ agentId: "general", content: "hello" });
    expect(result.status).toBe("complete");
    expect(told).toContainEqual({
      message: "listener bug",
      info: { code: "listener_failed", sessionId: result.sessionId },
    });
  });

  it("a listener that throws does not stop the listeners after it; once and context behave as in emit", async () => {
    const { told, onError } = errorLog();
    const { runtime } = makeRuntime([{ text: "hi" }, { text: "again" }], { onError });
    const before = runtime.events.listenerCount("event");
    const seen: string[] = [];
    runtime.events.on("event", () => {
      throw new Error("first listener bug");
    });
    runtime.events.once("event", (event) => seen.push(`once:${event.type}`));
    const owner = { name: "ctx", got: [] as string[] };
    runtime.events.on(
      "event",
      function (this: typeof owner, event) {
        this.got.push(event.type);
      },
      owner,
    );
    runtime.events.on("event", (event) => seen.push(event.type));
    const first = await runtime.send({ agentId: "general", content: "hello" });
    await runtime.send({ agentId: "general", content: "more", session: first.sessionId });
    const count = seen.filter((s) => !s.startsWith("once:")).length;
    expect(count).toBeGreaterThan(4);
    expect(seen.filter((s) => s.startsWith("once:"))).toHaveLength(1);
    expect(owner.got).toHaveLength(count);
    expect(runtime.events.listenerCount("event")).toBe(before + 3); // the once listener is gone
    expect(told.filter((t) => t.info.code === "listener_failed")).toHaveLength(count);
    expect(seen).toContain("done");
  });

  it("an async agents_message whose turn cannot run: onError and a warning event (agent_message_failed)", async () => {
    const { told, onError } = errorLog();
    const store = new FailingStore((_, records) =>
      records.some((r) => r.kind === "message" && r.message.role === "user" && r.message.content === "add eggs"),
    );
    const { runtime, events } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "asked" }
            : {
                toolCalls: [{ name: "agents_message", args: { agentId: "todo", content: "add eggs", mode: "async" } }],
              },
        todo: () => ({ text: "never" }),
      },
      { store, onError },
    );
    const result = await runtime.send({ agentId: "general", content: "go" });
    expect(result.status).toBe("complete");
    await eventually(() => told.some((t) => t.info.code === "agent_message_failed"));
    const [todo] = await store.listSessions({ agentId: "todo" });
    expect(told.find((t) => t.info.code === "agent_message_failed")).toEqual({
      message: expect.stringContaining("disk full"),
      info: { code: "agent_message_failed", sessionId: todo!.sessionId },
    });
    expect(
      events.filter((e) => e.type === "warning" && e.code === "agent_message_failed").map((e) => e.sessionId),
    ).toEqual([todo!.sessionId]);
    await runtime.close();
  });

  it("a permission notice that cannot be stored: onError and a warning event on the asker's session (permission_notice_failed)", async () => {
    const { told, onError } = errorLog();
    const store = new FailingStore((_, records) => textOf(records).includes("asked the user for permission"));
    const { runtime, events } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "started" }
            : { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "buy a domain" } }] },
        worker: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "ok" }
            : { toolCalls: [{ name: "request_permission", args: { permission: "spend $12", reason: "asked" } }] },
      },
      { store, onError, approve: async () => ({ approved: true }) },
    );
    await runtime.send({ agentId: "general", content: "go" });
    await eventually(() => told.some((t) => t.info.code === "permission_notice_failed"));
    const [worker] = await store.listSessions({ agentId: "worker" });
    expect(told.find((t) => t.info.code === "permission_notice_failed")?.info.sessionId).toBe(worker!.sessionId);
    await eventually(() =>
      events.some(
        (e) => e.type === "warning" && e.code === "permission_notice_failed" && e.sessionId === worker!.sessionId,
      ),
    );
    await runtime.close();
  });

  it("a background agent's failure notice that cannot be stored: onError and a warning event (background_notice_failed)", async () => {
    const { told, onError } = errorLog();
    const store = new FailingStore(undefined, (_, patch) => patch.attributes?.failureNotified === true);
    const { runtime, events } = multiRuntime(
      {
        general: (request) =>
          request.messages.at(-1)!.role === "tool"
            ? { text: "started" }
            : { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "do it" } }] },
        worker: () => ({ error: new ProviderError("model exploded", { provider: "fake", status: 500 }) }),
      },
      { store, onError },
    );
    await runtime.send({ agentId: "general", content: "go" });
    await eventually(() => told.some((t) => t.info.code === "background_notice_failed"));
    const [worker] = await store.listSessions({ agentId: "worker" });
    // The store's own error, as every store failure reaches the host: a SessionStoreError naming the call.
    expect(told.find((t) => t.info.code === "background_notice_failed")).toEqual({
      message: "Session store failed during updateSession: disk full",
      info: { code: "background_notice_failed", sessionId: worker!.sessionId },
    });
    expect(
      events.some(
        (e) => e.type === "warning" && e.code === "background_notice_failed" && e.sessionId === worker!.sessionId,
      ),
    ).toBe(true);
    await runtime.close();
  });

  it("an onError that throws breaks nothing", async () => {
    const { runtime } = makeRuntime([{ text: "hi" }], {
      onError: () => {
        throw new Error("onError bug");
      },
    });
    runtime.events.on("event", () => {
      throw new Error("listener bug");
    });
    expect((await runtime.send({ agentId: "general", content: "hello" })).status).toBe("complete");
  });

  it("rejects an onError that is not a function", () => {
    expect(() => makeRuntime([{ text: "hi" }], { onError: "log" as never })).toThrow(/onError must be a function/);
  });
});
