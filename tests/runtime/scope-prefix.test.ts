import { describe, expect, it } from "vitest";
import {
  createAgentRegistry,
  InvalidArgumentError,
  MemorySessionStore,
  SessionNotFoundError,
  type IndexedApproval,
  type ListPendingApprovalsQuery,
  type ListSessionsQuery,
  type ModelRequest,
  type SessionStore,
  type SessionSummary,
} from "@agentry/core";
import type { FakeTurn } from "@agentry/core/testing";
import { agents, makeRuntime } from "./helpers.js";

const question = {
  question: "Which list?",
  context: "Two lists match.",
  severity: "minor",
  options: [{ label: "Groceries", value: "groceries" }],
};

/** todo: deletes what it is told (an approval); asker: asks a question. Both end with text once the tool answered. */
function script(request: ModelRequest): FakeTurn {
  const last = request.messages.at(-1)!;
  if (last.role === "tool") return { text: "done" };
  const content = typeof last.content === "string" ? last.content : "";
  return content.startsWith("ask")
    ? { toolCalls: [{ name: "ask_user", args: question }] }
    : { toolCalls: [{ name: "todo_delete", args: { item: content } }] };
}

/** A store written before scopePrefix existed: it ignores the field it does not know, and would list every tenant. */
class LegacyIndexStore extends MemorySessionStore {
  override listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    const { scopePrefix: _ignored, ...known } = query ?? {};
    return super.listSessions(known);
  }
  override listPendingApprovals(query?: ListPendingApprovalsQuery): Promise<IndexedApproval[]> {
    const { scopePrefix: _ignored, ...known } = query ?? {};
    return super.listPendingApprovals(known);
  }
}

/** Only the required methods: no approval index, so the runtime lists sessions and reads them. */
function withoutIndex(store: SessionStore): SessionStore {
  return {
    createSession: (init) => store.createSession(init),
    getSession: (id) => store.getSession(id),
    listSessions: (query) => store.listSessions(query),
    updateSession: (id, patch) => store.updateSession(id, patch),
    deleteSession: (id) => store.deleteSession(id),
    append: (id, records) => store.append(id, records),
    load: (id, options) => store.load(id, options),
    clear: (id) => store.clear(id),
  };
}

const stores: [string, () => SessionStore][] = [
  ["an indexing store", () => new MemorySessionStore()],
  ["a store without the approval index", () => withoutIndex(new MemorySessionStore())],
  ["a store that ignores scopePrefix", () => new LegacyIndexStore()],
  ["a store that ignores scopePrefix, without the index", () => withoutIndex(new LegacyIndexStore())],
];

describe.each(stores)("pendingApprovals / pendingQuestions({ scopePrefix }) on %s", (_name, makeStore) => {
  it("lists the requests of every scope under the prefix, and only those", async () => {
    const { runtime } = makeRuntime(script, {
      store: makeStore(),
      registry: createAgentRegistry([...agents, { agentId: "asker", displayName: "Asker", role: "actor" }]),
    });
    const send = (content: string, scope?: string) =>
      runtime.send({ agentId: content.startsWith("ask") ? "asker" : "todo", content, ...(scope && { scope }) });
    await send("milk", "acme/alice");
    await send("eggs", "acme/bob");
    await send("tea", "acme2/carol");
    await send("rice");
    await send("ask alice", "acme/alice");
    await send("ask carol", "acme2/carol");
    const items = async (query: Parameters<typeof runtime.pendingApprovals>[0]) =>
      (await runtime.pendingApprovals(query)).map((p) => (p.request.args as { item: string }).item).sort();
    expect(await items({ scopePrefix: "acme/" })).toEqual(["eggs", "milk"]);
    expect(await items({ scopePrefix: "acme" })).toEqual(["eggs", "milk", "tea"]);
    expect(await items({ scopePrefix: "" })).toEqual(["eggs", "milk", "tea"]);
    expect(await items({ scopePrefix: "acme/%" })).toEqual([]);
    expect(await items({})).toEqual(["eggs", "milk", "rice", "tea"]);
    const asked = async (query: Parameters<typeof runtime.pendingQuestions>[0]) =>
      (await runtime.pendingQuestions(query)).map((q) => q.agentId + q.sessionId);
    expect(await asked({ scopePrefix: "acme/" })).toHaveLength(1);
    expect(await asked({ scopePrefix: "acme" })).toHaveLength(2);
    expect(await asked({ scopePrefix: "zzz" })).toHaveLength(0);
    const [alice] = await runtime.pendingApprovals({ scopePrefix: "acme/a" });
    expect(await items({ scopePrefix: "acme/", sessionId: alice!.sessionId })).toEqual(["milk"]);
    expect(await items({ scopePrefix: "acme2/", sessionId: alice!.sessionId })).toEqual([]);
    await runtime.close();
  });
});

describe("scopePrefix on the runtime's queries", () => {
  it("scope and scopePrefix together, or a scopePrefix that is not a string → InvalidArgumentError", async () => {
    const { runtime } = makeRuntime(script);
    const { sessionId } = await runtime.send({ agentId: "todo", content: "milk", scope: "acme/alice" });
    const invalid = (error: unknown) => InvalidArgumentError.isInstance(error);
    await expect(runtime.pendingApprovals({ scope: "acme/alice", scopePrefix: "acme/" })).rejects.toSatisfy(invalid);
    await expect(runtime.pendingQuestions({ scope: "acme/alice", scopePrefix: "acme/" })).rejects.toSatisfy(invalid);
    await expect(runtime.auditLog(sessionId, { scope: "acme/alice", scopePrefix: "acme/" })).rejects.toSatisfy(invalid);
    await expect(runtime.pendingApprovals({ scopePrefix: 1 as unknown as string })).rejects.toSatisfy(invalid);
    await runtime.close();
  });

  it("auditLog({ scopePrefix }): a session outside the prefix (or unscoped, for '') is not found", async () => {
    const { runtime } = makeRuntime(() => ({ text: "hi" }));
    const scoped = await runtime.send({ agentId: "general", content: "hello", scope: "acme/alice" });
    const unscoped = await runtime.send({ agentId: "general", content: "hello" });
    expect(await runtime.auditLog(scoped.sessionId, { scopePrefix: "acme/" })).toEqual([]);
    expect(await runtime.auditLog(scoped.sessionId, { scopePrefix: "" })).toEqual([]);
    const notFound = (error: unknown) => SessionNotFoundError.isInstance(error);
    await expect(runtime.auditLog(scoped.sessionId, { scopePrefix: "acme2/" })).rejects.toSatisfy(notFound);
    await expect(runtime.auditLog(scoped.sessionId, { scopePrefix: "acme/alice/" })).rejects.toSatisfy(notFound);
    await expect(runtime.auditLog(unscoped.sessionId, { scopePrefix: "" })).rejects.toSatisfy(notFound);
    expect(await runtime.auditLog(unscoped.sessionId)).toEqual([]);
    await runtime.close();
  });
});
