import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
  type Provider,
} from "@agentry/core";
import { createFakeProvider, recordProvider, replayProvider, type FakeTurn } from "@agentry/core/testing";

const agents = [
  { agentId: "general", displayName: "General", systemPrompt: "You help.", agentAllowlist: ["todo"] },
  { agentId: "todo", displayName: "Todo", systemPrompt: "You keep the list.", toolAllowlist: ["todo.*"] },
];

/** The model of both agents, routed on `caller.agentId`. */
function model(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  const said = last.role === "user" && typeof last.content === "string" ? last.content : undefined;
  const result = last.role === "tool" ? last.content[0]!.result : undefined;
  if (request.caller?.agentId === "todo") {
    if (said === "remove milk") return { toolCalls: [{ name: "todo.remove", args: { item: "milk" } }] };
    return { text: said === undefined ? `Done: ${String(result)}` : "Milk is gone." };
  }
  if (said !== undefined)
    return {
      toolCalls: [
        {
          name: "agents_message",
          args: { agentId: "todo", content: said.includes("gone") ? "is milk gone?" : "remove milk" },
        },
      ],
    };
  const reply = result;
  return {
    text:
      typeof reply === "string"
        ? `todo: ${reply}`
        : `todo said "${(reply as { response: string }).response}" in ${(reply as { sessionId: string }).sessionId}`,
  };
}

/**
 * general delegates to todo; todo's tool needs approval, which the test gives; then general asks
 * todo again (its answer names todo's session, and its timing is in the tool result).
 */
async function scenario(provider: Provider) {
  const items = ["milk", "eggs"];
  const remove = defineTool({
    name: "todo.remove",
    description: "Remove an item",
    input: z.object({ item: z.string() }),
    requiresApproval: true,
    execute: ({ item }) => (items.splice(items.indexOf(item), 1), `removed ${item}`),
  });
  const store = new MemorySessionStore();
  const runtime = createAgentRuntime({
    registry: createAgentRegistry(agents),
    store,
    providers: { main: provider },
    defaultModel: "main-model",
    tools: [remove],
  });
  const first = await runtime.send({ agentId: "general", content: "Take milk off the list." });
  const [pending] = await runtime.pendingApprovals();
  const approved = await runtime.resolveApproval(pending!.requestId, { approved: true });
  const second = await runtime.send({ agentId: "general", content: "Is milk gone?" });
  const [todoSession] = await store.listSessions({ agentId: "todo" });
  const todoSessionId = todoSession!.sessionId;
  // Session ids differ from run to run: compare texts with the todo session's id named.
  const texts = [first.text, approved.text, second.text].map((text) =>
    text.replaceAll(todoSessionId, "<todo session>"),
  );
  return {
    approval: pending!.request.name,
    items,
    texts,
    todoSessionId,
    statuses: [first.status, approved.status, second.status],
  };
}

describe("cassettes through the runtime", () => {
  it("records a delegated run with an approval and replays it offline in a fresh runtime", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-cassette-")), "delegated.jsonl");
    const real = createFakeProvider(model);
    const recorded = await scenario(recordProvider(real, { path }));
    // (Whether general's first turn waits for todo's approval or ends on its own is the runtime's business:
    // the cassette only has to give back the same run.)
    expect(recorded).toMatchObject({ approval: "todo.remove", items: ["eggs"] });
    expect(recorded.texts).toContain('todo said "Milk is gone." in <todo session>');
    expect(real.calls.filter((call) => call.caller?.agentId === "todo")).toHaveLength(3);
    // Session and run ids are new on every run: the cassette holds placeholders, not them.
    const cassette = readFileSync(path, "utf8");
    expect(cassette).not.toContain(recorded.todoSessionId);
    expect(cassette).toContain('"durationMs":"<varies>"');

    const replay = replayProvider({ path });
    const replayed = await scenario(replay);
    expect(replayed.todoSessionId).not.toBe(recorded.todoSessionId);
    // The same run, and the model's answer names this run's todo session, not the recorded one.
    expect({ ...replayed, todoSessionId: undefined }).toEqual({ ...recorded, todoSessionId: undefined });
    expect(await replay.unused()).toBe(0);
  });
});
