import { describe, expect, it } from "vitest";
import { InvalidArgumentError, MemorySessionStore, type SessionStore } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

/** A memory store that counts every call made to it. */
function countingStore(): { store: SessionStore; calls: string[] } {
  const calls: string[] = [];
  const inner = new MemorySessionStore();
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => (
        calls.push(String(key)),
        (value as (...a: unknown[]) => unknown).apply(target, args)
      );
    },
  });
  return { store, calls };
}

describe("lone UTF-16 surrogates", () => {
  it("a scope with one is refused by send, pendingApprovals, pendingQuestions and tenant guards before the store is touched", async () => {
    const { store, calls } = countingStore();
    const { runtime } = makeRuntime([{ text: "hi" }], { store });
    for (const scope of ["acme\ud800", "\udc00acme"]) {
      await expect(runtime.send({ agentId: "general", content: "hi", scope })).rejects.toThrow(InvalidArgumentError);
      await expect(runtime.pendingApprovals({ scope })).rejects.toThrow(InvalidArgumentError);
      await expect(runtime.pendingApprovals({ scopePrefix: scope })).rejects.toThrow(InvalidArgumentError);
      await expect(runtime.pendingQuestions({ scope })).rejects.toThrow(InvalidArgumentError);
      await expect(runtime.resolveApproval("req-1", { approved: true, scope })).rejects.toThrow(InvalidArgumentError);
      await expect(
        runtime.postSystemMessage({ agentId: "general", scope }, "note", { origin: "host" }),
      ).rejects.toThrow(InvalidArgumentError);
    }
    expect(calls).toEqual([]);
  });

  it("a reply with one (and a cut through a pair) still completes; the snippet keeps U+FFFD in its place", async () => {
    const text = `a\ud800b ${"😀".repeat(200)}`;
    const { runtime, store } = makeRuntime([{ text }]);
    const result = await runtime.send({ agentId: "general", content: "hi" });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe("complete");
    const snippet = (await store.getSession(result.sessionId))!.lastSnippet!;
    expect(snippet.startsWith("a\ufffdb ")).toBe(true);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(snippet)).toBe(false);
  });

  it("a tool-call id with one is replaced, so the call's records and approval can be stored", async () => {
    const { runtime, store, todo } = makeRuntime((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : { toolCalls: [{ id: "c\ud800", name: "todo_delete", args: { item: "milk" } }] },
    );
    todo.items.push("milk");
    const suspended = await runtime.send({ agentId: "todo", content: "delete milk" });
    expect(suspended.status).toBe("suspended");
    const [pending] = await runtime.pendingApprovals();
    expect(pending!.request.toolCallId).toBe("call_1");
    const resumed = await runtime.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(todo.items).toEqual([]);
    expect(JSON.stringify(await store.load(suspended.sessionId))).not.toMatch(/\\ud800/);
  });
});
