import { describe, expect, it } from "vitest";
import { makeRuntime } from "./helpers.js";

describe("model call records", () => {
  it("stores each model call with its message (model, provider, duration, usage, cost, digests) and each prompt once per session", async () => {
    const { runtime, store } = makeRuntime(
      (request) =>
        request.messages.at(-1)!.role === "tool"
          ? { text: "done", usage: { inputTokens: 20, outputTokens: 3 } }
          : { toolCalls: [{ name: "todo_add", args: { item: "a" } }] },
      { pricing: { "fake-model": { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } } },
    );
    const first = await runtime.send({ agentId: "todo", content: "add a" });
    await runtime.send({ agentId: "todo", content: "add a", session: first.sessionId });
    const records = (await store.load(first.sessionId)) as unknown as { kind: string; [field: string]: unknown }[];
    const calls = records.filter((r) => r.kind === "model_call");
    expect(calls).toHaveLength(4);
    const answered = calls.find((c) => c.usage !== undefined)!;
    expect(answered).toMatchObject({
      model: "fake-model",
      provider: "fake",
      usage: { inputTokens: 20, outputTokens: 3 },
      costUsd: 26,
      messagesCount: 3,
    });
    expect(typeof answered.durationMs).toBe("number");
    // Stored in the same append as the message it produced: the next record after it.
    const message = records.find((r) => r.id === answered.messageId)!;
    expect(message.kind).toBe("message");
    expect(records.indexOf(answered)).toBe(records.indexOf(message) + 1);
    const prompts = records.filter((r) => r.kind === "prompt");
    expect(prompts).toHaveLength(2);
    const system = prompts.find((p) => p.digest === answered.systemDigest)!;
    expect(system.system).toContain("Todo Manager");
    const tools = prompts.find((p) => p.digest === answered.toolsDigest)!;
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toContain("todo_add");
  });

  it("a second runtime (another process) on the same store does not store a prompt again", async () => {
    const made = makeRuntime(() => ({ text: "hi" }));
    const first = await made.runtime.send({ agentId: "general", content: "hello" });
    const other = makeRuntime(() => ({ text: "hi" }), { store: made.store });
    await other.runtime.send({ agentId: "general", content: "again", session: first.sessionId });
    const records = (await made.store.load(first.sessionId)) as unknown as { kind: string }[];
    expect(records.filter((r) => r.kind === "prompt")).toHaveLength(2);
    expect(records.filter((r) => r.kind === "model_call")).toHaveLength(2);
  });
});
