import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, LeaseLostError, SessionBusyError } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const registry = createAgentRegistry([{ agentId: "a", displayName: "A" }]);

describe("session leases in the runtime (SQLite)", () => {
  it("a runtime whose lease was taken over cannot write into the session any more", async () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    const steal = defineTool({
      name: "steal",
      description: "Simulates another runtime taking the session over",
      input: z.object({}),
      execute: () => {
        store.database.prepare("UPDATE agentry_leases SET token = token + 1, owner = 'someone-else'").run();
        return "stolen";
      },
    });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: { fake: createFakeProvider([{ toolCalls: [{ name: "steal", args: {} }] }, { text: "never stored" }]) },
      defaultModel: "m",
      tools: [steal],
    });
    const sent = runtime.send({ agentId: "a", content: "go" });
    await expect(sent).rejects.toSatisfy((error) => LeaseLostError.isInstance(error));
    const [session] = await store.listSessions();
    const records = await store.load(session!.sessionId);
    // Nothing after the tool call's start: its result, the answer and the end record were all refused.
    expect(records.map((r) => r.kind)).toEqual([
      "turn",
      "message",
      "message",
      "prompt",
      "prompt",
      "model_call",
      "tool_start",
    ]);
    store.close();
  });

  it("a runtime waits for a session another runtime holds, and gives up with SessionBusyError after leaseWaitMs", async () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    const session = await store.createSession({ agentId: "a" });
    await store.acquireLease(session.sessionId, { owner: "other-process", ttlMs: 60_000 });
    const runtime = createAgentRuntime({
      registry,
      store,
      providers: { fake: createFakeProvider([{ text: "hi" }]) },
      defaultModel: "m",
      leaseWaitMs: 50,
    });
    await expect(runtime.send({ agentId: "a", content: "hello", session: session.sessionId })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error),
    );
    expect(await store.load(session.sessionId)).toEqual([]);
    store.close();
  });
});
