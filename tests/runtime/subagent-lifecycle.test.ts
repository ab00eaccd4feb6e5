import { describe, expect, it } from "vitest";
import type { ModelRequest, RuntimeEvent } from "@agentry/core";
import { eventually, gate, lastText, multiRuntime } from "./multi-agent-helpers.js";

/** The general agent does what the user message says: start, list, or close <sessionId>; then repeats the tool result. */
const general = (request: ModelRequest) => {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: JSON.stringify(last.content[0]!.result) };
  const text = lastText(request);
  if (text === "start")
    return { toolCalls: [{ name: "start_background_agent", args: { agentId: "worker", prompt: "find the answer" } }] };
  if (text === "list") return { toolCalls: [{ name: "list_background_agents", args: {} }] };
  if (text.startsWith("close "))
    return { toolCalls: [{ name: "close_background_agent", args: { sessionId: text.slice(6) } }] };
  return { text: "noted" };
};
const lifecycle = (events: RuntimeEvent[], sessionId: string) =>
  events.flatMap((e) => (e.type === "subagent_status" && e.sessionId === sessionId ? [e.to] : []));

describe("background agent lifecycle (seed 004 sub-agents)", () => {
  it("created → running → waiting_for_merge → completed → closed; the parent merges by reading the result and listing shows open children", async () => {
    const release = gate();
    const { runtime, store, events } = multiRuntime({
      general,
      worker: async () => {
        await release.promise;
        return { text: "the answer is 42" };
      },
    });
    const started = await runtime.send({ agentId: "general", content: "start" });
    const child = (JSON.parse(started.text) as { sessionId: string }).sessionId;
    await eventually(() => lifecycle(events, child).includes("running"));
    // A running child cannot be merged yet.
    const early = await runtime.send({ agentId: "general", content: `close ${child}`, session: started.sessionId });
    expect(early.text).toMatch(/is running; only one waiting_for_merge can be closed/);
    const listed = await runtime.send({ agentId: "general", content: "list", session: started.sessionId });
    expect(JSON.parse(listed.text)).toEqual([{ sessionId: child, agentId: "worker", name: "", status: "running" }]);

    release.open();
    await eventually(async () => (await store.getSession(child))?.attributes?.lifecycle === "waiting_for_merge");
    const merged = await runtime.send({ agentId: "general", content: `close ${child}`, session: started.sessionId });
    expect(JSON.parse(merged.text)).toMatchObject({
      sessionId: child,
      status: "completed",
      result: "the answer is 42",
    });
    expect(lifecycle(events, child)).toEqual(["created", "running", "waiting_for_merge", "completed", "closed"]);
    expect(events.find((e) => e.type === "subagent_status" && e.sessionId === child)).toMatchObject({
      parentSessionId: started.sessionId,
      from: null,
    });
    const after = await runtime.send({ agentId: "general", content: "list", session: started.sessionId });
    expect(JSON.parse(after.text)).toEqual([]);
    // Closed is final.
    const again = await runtime.send({ agentId: "general", content: `close ${child}`, session: started.sessionId });
    expect(again.text).toMatch(/is closed/);
    await runtime.close();
  });

  it("a child whose run failed is merged as failed", async () => {
    const { ProviderError } = await import("@agentry/core");
    const { runtime, store, events } = multiRuntime({
      general,
      worker: () => ({ error: new ProviderError("down", { provider: "fake" }) }),
    });
    const started = await runtime.send({ agentId: "general", content: "start" });
    const child = (JSON.parse(started.text) as { sessionId: string }).sessionId;
    await eventually(async () => (await store.getSession(child))?.attributes?.lifecycle === "waiting_for_merge");
    const merged = await runtime.send({ agentId: "general", content: `close ${child}`, session: started.sessionId });
    expect(JSON.parse(merged.text)).toMatchObject({ status: "failed" });
    expect(lifecycle(events, child).slice(-2)).toEqual(["failed", "closed"]);
    await runtime.close();
  });

  it("only the parent may close a child", async () => {
    const { runtime, store } = multiRuntime({ general, worker: () => ({ text: "done" }) });
    const started = await runtime.send({ agentId: "general", content: "start" });
    const child = (JSON.parse(started.text) as { sessionId: string }).sessionId;
    await eventually(async () => (await store.getSession(child))?.attributes?.lifecycle === "waiting_for_merge");
    const other = await runtime.send({ agentId: "general", content: `close ${child}`, session: "create" });
    expect(other.text).toMatch(/is not a background agent you started/);
    expect((await store.getSession(child))?.attributes?.lifecycle).toBe("waiting_for_merge");
    await runtime.close();
  });
});
