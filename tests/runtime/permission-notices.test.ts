import { describe, expect, it } from "vitest";
import type { SessionStore } from "@agentry/core";
import { eventually, multiRuntime, type AgentScript } from "./multi-agent-helpers.js";

/** Asks for a permission once, then answers. */
const asks: AgentScript = (request) =>
  request.messages.at(-1)!.role === "tool"
    ? { text: "asked" }
    : { toolCalls: [{ name: "request_permission", args: { permission: "spend $12" } }] };
const answers: AgentScript = () => ({ text: "fine" });

/** The silent notes (permission notices) stored in a session. */
async function notesIn(store: SessionStore, sessionId: string): Promise<string[]> {
  return (await store.load(sessionId)).flatMap((r) =>
    r.kind === "message" && r.message.role === "user" && r.message.silent
      ? [typeof r.message.content === "string" ? r.message.content : JSON.stringify(r.message.content)]
      : [],
  );
}

describe("request_permission notices of a foreground asker", () => {
  it("skip the most recent session when its agent is hidden (uiVisible: false) from the asker", async () => {
    // worker sets no agent lists: it may reach general, but never hidden.
    const { runtime, store } = multiRuntime(
      { general: answers, hidden: answers, worker: asks },
      { approve: async () => ({ approved: true }) },
    );
    const general = await runtime.send({ agentId: "general", content: "hi" });
    const hidden = await runtime.send({ agentId: "hidden", content: "hi" });
    await runtime.send({ agentId: "worker", content: "buy a domain" });
    await eventually(async () => (await notesIn(store, general.sessionId)).length === 2);
    await runtime.close();
    expect((await notesIn(store, general.sessionId))[0]).toMatch(
      /Agent "worker" .* asked the user for permission: spend \$12/,
    );
    expect(await notesIn(store, hidden.sessionId)).toEqual([]);
  });

  it("skip the most recent session when its agent is outside the asker's agentAllowlist", async () => {
    // journal's agentAllowlist is ["todo"]: general (more recent) is out of its reach.
    const { runtime, store } = multiRuntime(
      { general: answers, todo: answers, journal: asks },
      { approve: async () => ({ approved: false }) },
    );
    const todo = await runtime.send({ agentId: "todo", content: "hi" });
    const general = await runtime.send({ agentId: "general", content: "hi" });
    await runtime.send({ agentId: "journal", content: "ask" });
    await eventually(async () => (await notesIn(store, todo.sessionId)).length === 2);
    await runtime.close();
    expect((await notesIn(store, todo.sessionId))[1]).toMatch(/Agent "journal" .* was refused permission: spend \$12/);
    expect(await notesIn(store, general.sessionId)).toEqual([]);
  });
});
