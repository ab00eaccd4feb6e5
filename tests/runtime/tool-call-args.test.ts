import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "@agentry/core";
import { makeRuntime } from "./helpers.js";

describe("runtime: tool-call arguments nested too deep", () => {
  it("5,000 levels: the call gets an error result, the turn completes, and the store never sees the value", async () => {
    const store = new MemorySessionStore();
    const deep = { item: JSON.parse("[".repeat(5000) + "]".repeat(5000)) as unknown };
    const { runtime, provider, todo } = makeRuntime(
      [
        { toolCalls: [{ id: "deep", name: "todo_add", args: deep }] },
        { toolCalls: [{ id: "flat", name: "todo_add", args: { item: "milk" } }] },
        { text: "Added." },
      ],
      { store },
    );
    const result = await runtime.send({ agentId: "todo", content: "add milk" });
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Added.");
    expect(todo.items).toEqual(["milk"]);
    // The model read the refusal and acted on it.
    const second = JSON.stringify(provider.calls[1]!.messages);
    expect(second).toContain("nested deeper than 64 levels");
    const records = await store.load(result.sessionId);
    const text = JSON.stringify(records);
    expect(text).not.toContain("[[[[");
    expect(text).toContain("[arguments dropped: nested deeper than 64 levels]");
    expect(records.filter((r) => r.kind === "turn").map((r) => (r as { status?: string }).status)).toEqual([
      undefined,
      "complete",
    ]);
  });
});
