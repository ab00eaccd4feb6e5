import { SessionNotFoundError } from "../errors/errors.js";
import { resolveSession } from "../sessions/resolve-session.js";
import type { SessionStore } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual, checkRejects } from "./session-contract-assert.js";
import type { ContractCase } from "./session-contract-fixtures.js";

const ids = async (store: SessionStore, query?: Parameters<SessionStore["listSessions"]>[0]): Promise<string[]> =>
  (await store.listSessions(query)).map((session) => session.sessionId);

/** Scope (tenant / end user): kept, listed by exact match, and never crossed by routing. */
export const scopeCases: ContractCase[] = [
  {
    name: "createSession keeps scope; a session created without one has none",
    async run(store) {
      const scoped = await store.createSession({ agentId: "agent-a", scope: "user-1" });
      checkEqual(scoped.scope, "user-1", "created scope");
      checkEqual((await store.getSession(scoped.sessionId))?.scope, "user-1", "getSession scope");
      const plain = await store.createSession({ agentId: "agent-a" });
      check(!("scope" in plain) || plain.scope === undefined, "no scope unless given");
      await store.append(scoped.sessionId, [
        { id: "s1", kind: "message", frame: null, message: { role: "user", content: "hi" } },
      ]);
      await store.updateSession(scoped.sessionId, { name: "renamed" });
      checkEqual(
        (await store.getSession(scoped.sessionId))?.scope,
        "user-1",
        "scope survives append and updateSession",
      );
    },
  },
  {
    name: "listSessions scope: exact match, null = unscoped only, omitted = every scope",
    async run(store) {
      const a1 = await store.createSession({ agentId: "agent-a", scope: "user-1" });
      const b1 = await store.createSession({ agentId: "agent-b", scope: "user-1" });
      const a2 = await store.createSession({ agentId: "agent-a", scope: "user-2" });
      const a0 = await store.createSession({ agentId: "agent-a" });
      checkDeepEqual(
        await ids(store, { scope: "user-1" }),
        [b1.sessionId, a1.sessionId],
        "listSessions({ scope: user-1 })",
      );
      checkDeepEqual(await ids(store, { scope: "user-2" }), [a2.sessionId], "listSessions({ scope: user-2 })");
      checkDeepEqual(await ids(store, { scope: null }), [a0.sessionId], "listSessions({ scope: null })");
      checkDeepEqual(
        await ids(store, { scope: "user-1", agentId: "agent-a" }),
        [a1.sessionId],
        "listSessions({ scope, agentId })",
      );
      checkDeepEqual(
        await ids(store, { scope: "user-1", limit: 1 }),
        [b1.sessionId],
        "listSessions({ scope, limit: 1 })",
      );
      checkDeepEqual(await ids(store, { scope: "user-3" }), [], "listSessions of a scope with no session");
      checkDeepEqual(
        await ids(store),
        [a0.sessionId, a2.sessionId, b1.sessionId, a1.sessionId],
        "listSessions() lists every scope",
      );
      checkDeepEqual(
        await ids(store, { scope: "user-1" }),
        [b1.sessionId, a1.sessionId],
        "a scope is a prefix of nothing: exact match only",
      );
    },
  },
  {
    name: "resolveSession latest never crosses scopes (two scopes, same agent)",
    async run(store) {
      const mine = await store.createSession({ agentId: "agent-a", scope: "user-a" });
      const theirs = await store.createSession({ agentId: "agent-a", scope: "user-b" });
      await store.append(theirs.sessionId, [
        { id: "t1", kind: "message", frame: null, message: { role: "user", content: "newer" } },
      ]);
      checkEqual(
        (await resolveSession(store, "agent-a", "latest", { scope: "user-a" })).session.sessionId,
        mine.sessionId,
        "latest in user-a",
      );
      checkEqual(
        (await resolveSession(store, "agent-a", "latest-or-create", { scope: "user-b" })).session.sessionId,
        theirs.sessionId,
        "latest-or-create in user-b",
      );
      await checkRejects(
        resolveSession(store, "agent-a", "latest"),
        (error) => SessionNotFoundError.isInstance(error),
        "latest in the unscoped space",
      );
      const created = await resolveSession(store, "agent-a", "latest-or-create", { scope: "user-c" });
      check(
        created.created && created.session.scope === "user-c",
        "latest-or-create in a new scope creates a session there",
      );
      const unscoped = await resolveSession(store, "agent-a", "latest-or-create");
      check(unscoped.created && unscoped.session.scope === undefined, "the unscoped space gets its own session");
      checkEqual(
        (await resolveSession(store, "agent-a", "create", { scope: "user-a" })).session.scope,
        "user-a",
        "create in a scope",
      );
    },
  },
  {
    name: "resolveSession: an explicit id from another scope is not found",
    async run(store) {
      const theirs = await store.createSession({ agentId: "agent-a", scope: "user-b" });
      await checkRejects(
        resolveSession(store, "agent-a", theirs.sessionId, { scope: "user-a" }),
        (error) => SessionNotFoundError.isInstance(error),
        "explicit id of another scope",
      );
      await checkRejects(
        resolveSession(store, "agent-a", theirs.sessionId),
        (error) => SessionNotFoundError.isInstance(error),
        "explicit scoped id from the unscoped space",
      );
      checkEqual(
        (await resolveSession(store, "agent-a", theirs.sessionId, { scope: "user-b" })).session.sessionId,
        theirs.sessionId,
        "explicit id in its own scope",
      );
    },
  },
];
