import { InvalidArgumentError, SessionNotFoundError } from "../errors/errors.js";
import { isPrunableSessionStore } from "../sessions/session-store.js";
import type { SessionStore } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual, checkRejects, isIsoTimestamp, pause } from "./session-contract-assert.js";
import { userText, type ContractCase } from "./session-contract-fixtures.js";

const notFound = (error: unknown): boolean => SessionNotFoundError.isInstance(error);
const ids = async (store: SessionStore, query?: { agentId?: string; limit?: number }): Promise<string[]> =>
  (await store.listSessions(query)).map((session) => session.sessionId);

/** Sessions: create, get, list, update, delete, prune, unknown ids. */
export const metadataCases: ContractCase[] = [
  {
    name: "createSession returns the summary and getSession reads it back",
    async run(store) {
      const created = await store.createSession({
        agentId: "agent-a",
        name: "Reading",
        attributes: { panel: { open: true, tabs: [1, 2] } },
      });
      check(typeof created.sessionId === "string" && created.sessionId !== "", "sessionId is a non-empty string");
      checkEqual(created.agentId, "agent-a", "agentId");
      checkEqual(created.name, "Reading", "name");
      checkDeepEqual(created.attributes, { panel: { open: true, tabs: [1, 2] } }, "attributes");
      check(
        isIsoTimestamp(created.createdAt) && isIsoTimestamp(created.updatedAt),
        "createdAt and updatedAt are ISO timestamps",
      );
      check(created.updatedAt >= created.createdAt, "updatedAt is not before createdAt");
      checkDeepEqual(await store.getSession(created.sessionId), created, "getSession");
      const other = await store.createSession({ agentId: "agent-a" });
      check(other.sessionId !== created.sessionId, "generated session ids are distinct");
      check(!("name" in other) || other.name === undefined, "no name unless given");
    },
  },
  {
    name: "createSession uses an explicit sessionId and rejects one in use with InvalidArgumentError",
    async run(store) {
      const created = await store.createSession({ agentId: "agent-a", sessionId: "explicit-session-1" });
      checkEqual(created.sessionId, "explicit-session-1", "sessionId");
      await checkRejects(
        store.createSession({ agentId: "agent-b", sessionId: "explicit-session-1" }),
        (error) => InvalidArgumentError.isInstance(error),
        "createSession with an id in use",
      );
      checkEqual(
        (await store.getSession("explicit-session-1"))?.agentId,
        "agent-a",
        "the existing session is untouched",
      );
    },
  },
  {
    name: "getSession of an unknown id is undefined",
    async run(store) {
      checkEqual(await store.getSession("no-such-session"), undefined, "getSession");
    },
  },
  {
    name: "listSessions is newest first, filters by agentId and honours limit",
    async run(store) {
      const a1 = await store.createSession({ agentId: "agent-a" });
      const b1 = await store.createSession({ agentId: "agent-b" });
      const a2 = await store.createSession({ agentId: "agent-a" });
      checkDeepEqual(await ids(store), [a2.sessionId, b1.sessionId, a1.sessionId], "listSessions()");
      checkDeepEqual(
        await ids(store, { agentId: "agent-a" }),
        [a2.sessionId, a1.sessionId],
        "listSessions({ agentId })",
      );
      checkDeepEqual(await ids(store, { limit: 2 }), [a2.sessionId, b1.sessionId], "listSessions({ limit: 2 })");
      checkDeepEqual(
        await ids(store, { agentId: "agent-a", limit: 1 }),
        [a2.sessionId],
        "listSessions({ agentId, limit: 1 })",
      );
      checkDeepEqual(await ids(store, { agentId: "agent-z" }), [], "listSessions of an agent with no session");
      checkDeepEqual(
        (await store.listSessions())[1],
        await store.getSession(b1.sessionId),
        "listed summaries equal getSession",
      );
    },
  },
  {
    name: "updateSession sets name, pinnedAt, attributes and lastSnippet, and bumps updatedAt",
    async run(store) {
      const first = await store.createSession({ agentId: "agent-a", attributes: { keep: false } });
      await store.createSession({ agentId: "agent-a" });
      const patch = {
        name: "Renamed",
        pinnedAt: "2024-05-01T10:00:00.000Z",
        attributes: { color: "red", n: 2 },
        lastSnippet: "see you",
      };
      const updated = await store.updateSession(first.sessionId, patch);
      checkDeepEqual(
        {
          name: updated.name,
          pinnedAt: updated.pinnedAt,
          attributes: updated.attributes,
          lastSnippet: updated.lastSnippet,
        },
        patch,
        "patched fields",
      );
      checkEqual(updated.agentId, "agent-a", "agentId unchanged");
      checkEqual(updated.createdAt, first.createdAt, "createdAt unchanged");
      check(updated.updatedAt >= first.updatedAt, "updatedAt does not go back");
      checkDeepEqual(await store.getSession(first.sessionId), updated, "getSession after update");
      checkEqual((await ids(store))[0], first.sessionId, "the updated session lists first");
    },
  },
  {
    name: "updateSession keeps fields not in the patch and removes fields set to undefined",
    async run(store) {
      const session = await store.createSession({ agentId: "agent-a", name: "Kept", attributes: { a: 1 } });
      await store.updateSession(session.sessionId, { pinnedAt: "2024-05-01T10:00:00.000Z" });
      const unpinned = await store.updateSession(session.sessionId, { pinnedAt: undefined });
      checkEqual(unpinned.pinnedAt, undefined, "pinnedAt removed");
      checkEqual(unpinned.name, "Kept", "name kept");
      checkDeepEqual(unpinned.attributes, { a: 1 }, "attributes kept");
      checkDeepEqual(await store.getSession(session.sessionId), unpinned, "getSession after update");
    },
  },
  {
    name: "summaries are copies: mutating inputs or results changes nothing stored",
    async run(store) {
      const attributes = { list: [1] };
      const session = await store.createSession({ agentId: "agent-a", attributes });
      attributes.list.push(2);
      session.attributes!.list = "mutated";
      session.name = "mutated";
      const stored = await store.getSession(session.sessionId);
      checkDeepEqual(stored?.attributes, { list: [1] }, "attributes");
      checkEqual(stored?.name, undefined, "name");
    },
  },
  {
    name: "deleteSession removes the session and its history; deleting again is a no-op",
    async run(store) {
      const session = await store.createSession({ agentId: "agent-a", sessionId: "contract-deleted" });
      const kept = await store.createSession({ agentId: "agent-a" });
      await store.append(session.sessionId, [userText("m1", "hello")]);
      await store.deleteSession(session.sessionId);
      checkEqual(await store.getSession(session.sessionId), undefined, "getSession after delete");
      checkDeepEqual(await ids(store), [kept.sessionId], "listSessions after delete");
      await checkRejects(store.load(session.sessionId), notFound, "load after delete");
      await checkRejects(store.append(session.sessionId, [userText("m2", "again")]), notFound, "append after delete");
      await store.deleteSession(session.sessionId);
      await store.deleteSession("never-existed");
      const again = await store.createSession({ agentId: "agent-b", sessionId: "contract-deleted" });
      checkEqual(again.agentId, "agent-b", "a deleted id can be created again");
      checkDeepEqual(await store.load("contract-deleted"), [], "the new session starts with no history");
    },
  },
  {
    name: "load, append, updateSession and clear of an unknown session reject with SessionNotFoundError",
    async run(store) {
      await checkRejects(store.load("no-such-session"), notFound, "load");
      await checkRejects(store.append("no-such-session", [userText("m1", "hi")]), notFound, "append");
      await checkRejects(store.updateSession("no-such-session", { name: "x" }), notFound, "updateSession");
      await checkRejects(store.clear("no-such-session"), notFound, "clear");
      checkDeepEqual(await store.listSessions(), [], "nothing was created");
    },
  },
  {
    name: "prune (when implemented) deletes sessions last updated before olderThan",
    async run(store) {
      if (!isPrunableSessionStore(store)) return;
      const old = await store.createSession({ agentId: "agent-a" });
      await pause(15);
      const cutoff = new Date().toISOString();
      await pause(15);
      const fresh = await store.createSession({ agentId: "agent-a" });
      checkEqual(await store.prune({ olderThan: cutoff }), 1, "pruned count");
      checkEqual(await store.getSession(old.sessionId), undefined, "the old session is gone");
      checkDeepEqual(await ids(store), [fresh.sessionId], "the recent session is kept");
      checkEqual(await store.prune({ olderThan: cutoff }), 0, "pruning again");
    },
  },
];
