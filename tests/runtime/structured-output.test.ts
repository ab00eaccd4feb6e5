import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, InvalidArgumentError, type ModelRequest } from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { agents, makeRuntime, textOf, todoTools } from "./helpers.js";

const schema = { type: "object", properties: { deleted: { type: "boolean" } }, required: ["deleted"] };
const finish = (result: unknown): FakeTurn => ({ toolCalls: [{ name: "final_answer", args: { result } }] });

describe("runtime structured output", () => {
  it("passes a JSON Schema outputSchema through send and returns structured", async () => {
    const { runtime, provider } = makeRuntime(() => finish({ deleted: true }));
    const result = await runtime.send({ agentId: "todo", content: "hi", outputSchema: schema });
    expect(result.status).toBe("complete");
    expect(result.structured).toEqual({ deleted: true });
    expect(provider.calls[0]!.tools.some((t) => t.name === "final_answer")).toBe(true);
    // A later turn without a schema ends with text as before.
    const plain = await runtime.send({ agentId: "todo", content: "again", session: result.sessionId });
    expect(provider.calls.at(-1)!.tools.some((t) => t.name === "final_answer")).toBe(false);
    expect(plain.structured).toBeUndefined();
  });

  it("validates a zod outputSchema with zod (transform applied) through send", async () => {
    const { runtime } = makeRuntime((request) =>
      request.messages.at(-1)!.role === "user" ? finish({ n: "7" }) : { text: "done" },
    );
    const result = await runtime.send({
      agentId: "todo",
      content: "hi",
      outputSchema: z.object({ n: z.string().transform(Number) }),
    });
    expect(result.structured).toEqual({ n: 7 });
  });

  it("keeps the output schema when a suspended turn resumes in another runtime", async () => {
    // Deletes milk (needs approval), then must finish through final_answer.
    const script = (request: ModelRequest): FakeTurn => {
      const last = request.messages.at(-1)!;
      if (last.role === "user")
        return textOf(last).includes("delete")
          ? { toolCalls: [{ name: "todo_delete", args: { item: "milk" } }] }
          : { text: "?" };
      return request.tools.some((t) => t.name === "final_answer")
        ? finish({ deleted: true })
        : { text: "no schema offered" };
    };
    const first = makeRuntime(script);
    const suspended = await first.runtime.send({ agentId: "todo", content: "delete milk", outputSchema: schema });
    expect(suspended.status).toBe("suspended");
    const todo = todoTools();
    todo.items.push("milk");
    const second = createAgentRuntime({
      registry: createAgentRegistry(agents),
      store: first.store,
      providers: { fake: first.provider },
      defaultModel: "fake-model",
      tools: todo.tools,
    });
    const [pending] = await second.pendingApprovals();
    const resumed = await second.resolveApproval(pending!.requestId, { approved: true });
    expect(resumed.status).toBe("complete");
    expect(resumed.structured).toEqual({ deleted: true });
  });

  it("rejects a non-object outputSchema before any side effect", async () => {
    const { runtime, store } = makeRuntime(() => ({ text: "x" }));
    await expect(runtime.send({ agentId: "todo", content: "hi", outputSchema: 5 as never })).rejects.toThrow(
      InvalidArgumentError,
    );
    expect(await store.listSessions({})).toEqual([]);
  });
});
