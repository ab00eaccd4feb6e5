import { InvalidArgumentError } from "../errors/errors.js";
import { isApprovalIndexStore } from "../sessions/session-store.js";
import type {
  ListPendingApprovalsQuery,
  ListSessionsQuery,
  NewRecord,
  SessionStore,
} from "../contracts/session-store.js";
import { checkDeepEqual, checkRejects } from "./session-contract-assert.js";
import { userText, type ContractCase } from "./session-contract-fixtures.js";

const ids = async (store: SessionStore, query: ListSessionsQuery): Promise<string[]> =>
  (await store.listSessions(query)).map((session) => session.sessionId);

/** Creates one session per scope (`null` = unscoped), in order; returns their ids by scope. */
async function sessionsIn(
  store: SessionStore,
  scopes: (string | null)[],
  agentId = "agent-a",
): Promise<Map<string | null, string>> {
  const created = new Map<string | null, string>();
  for (const scope of scopes)
    created.set(scope, (await store.createSession({ agentId, ...(scope !== null && { scope }) })).sessionId);
  return created;
}

const asked = (requestId: string): NewRecord => ({
  id: requestId,
  kind: "approval",
  frame: null,
  runId: "run-1",
  request: {
    requestId,
    toolCallId: `call-${requestId}`,
    name: "delete_file",
    args: {},
    depth: 0,
    parentId: null,
    reason: "tool requires approval",
  },
});

const isInvalid = (error: unknown): boolean => InvalidArgumentError.isInstance(error);

/** `scopePrefix`: nested tenants, listed by a plain prefix of their scope. */
export const scopePrefixCases: ContractCase[] = [
  {
    name: "listSessions scopePrefix: a plain prefix, newest first across scopes, with limit and agentId; '' = every scoped session",
    async run(store) {
      const alice = await store.createSession({ agentId: "agent-a", scope: "acme/alice" });
      const bob = await store.createSession({ agentId: "agent-b", scope: "acme/bob" });
      const carol = await store.createSession({ agentId: "agent-a", scope: "acme2/carol" });
      const bare = await store.createSession({ agentId: "agent-a", scope: "acme" });
      const nested = await store.createSession({ agentId: "agent-a", scope: "other/acme/dave" });
      const unscoped = await store.createSession({ agentId: "agent-a" });
      await store.append(alice.sessionId, [userText("m1", "touch")]); // alice is now the newest
      checkDeepEqual(
        await ids(store, { scopePrefix: "acme/" }),
        [alice.sessionId, bob.sessionId],
        "scopePrefix acme/ (a separator keeps acme2 out)",
      );
      checkDeepEqual(
        await ids(store, { scopePrefix: "acme" }),
        [alice.sessionId, bare.sessionId, carol.sessionId, bob.sessionId],
        "scopePrefix acme: a prefix of another tenant's id matches it too, newest first",
      );
      checkDeepEqual(
        await ids(store, { scopePrefix: "acme", limit: 2 }),
        [alice.sessionId, bare.sessionId],
        "scopePrefix with limit keeps the newest",
      );
      checkDeepEqual(await ids(store, { scopePrefix: "acme", limit: 0 }), [], "limit 0");
      checkDeepEqual(
        await ids(store, { scopePrefix: "acme", agentId: "agent-b" }),
        [bob.sessionId],
        "scopePrefix with agentId",
      );
      checkDeepEqual(await ids(store, { scopePrefix: "acme/bob" }), [bob.sessionId], "a whole scope is its own prefix");
      checkDeepEqual(await ids(store, { scopePrefix: "acme/bobby" }), [], "a prefix longer than the scope");
      checkDeepEqual(await ids(store, { scopePrefix: "cme" }), [], "only a prefix, never a substring");
      checkDeepEqual(
        await ids(store, { scopePrefix: "" }),
        [alice.sessionId, nested.sessionId, bare.sessionId, carol.sessionId, bob.sessionId],
        "scopePrefix '' lists every scoped session and no unscoped one",
      );
      checkDeepEqual(
        await ids(store, { scope: null }),
        [unscoped.sessionId],
        "the unscoped space is listed with scope: null",
      );
      await checkRejects(
        store.listSessions({ scope: "acme/bob", scopePrefix: "acme/" }),
        isInvalid,
        "scope and scopePrefix together",
      );
      await checkRejects(
        store.listSessions({ scope: null, scopePrefix: "" }),
        isInvalid,
        "scope: null and scopePrefix together",
      );
      await checkRejects(
        store.listSessions({ scopePrefix: 7 as unknown as string }),
        isInvalid,
        "a scopePrefix that is not a string",
      );
    },
  },
  {
    name: "listSessions scopePrefix is literal: % _ \\ * ? [ ] match only themselves",
    async run(store) {
      const scopes = [
        "t%1/a",
        "tX1/b",
        "t_1/c",
        "tZ1/d",
        "t\\1/e",
        "t\\\\1/f",
        "t*1/g",
        "t?1/h",
        "t[1]/i",
        "t1/j",
        "t'1/k",
        't"1/l',
      ];
      const byScope = await sessionsIn(store, scopes);
      for (const [prefix, expected] of [
        ["t%", ["t%1/a"]],
        ["t_", ["t_1/c"]],
        ["t\\", ["t\\1/e", "t\\\\1/f"]],
        ["t\\1", ["t\\1/e"]],
        ["t*", ["t*1/g"]],
        ["t?", ["t?1/h"]],
        ["t[1]", ["t[1]/i"]],
        ["t[", ["t[1]/i"]],
        ["t'", ["t'1/k"]],
        ['t"', ['t"1/l']],
        ["%", []],
        ["_", []],
        ["*", []],
      ] as const) {
        const want = [...expected].reverse().map((scope) => byScope.get(scope));
        checkDeepEqual(await ids(store, { scopePrefix: prefix }), want, `scopePrefix ${JSON.stringify(prefix)}`);
      }
    },
  },
  {
    name: "listSessions scopePrefix compares characters (unicode, astral, the last code points)",
    async run(store) {
      const scopes = [
        "ü/1",
        "u/2",
        "😀/3",
        "😀x/4",
        "\uFFFD/5",
        "x\uD7FF/6",
        "x\uE000/7",
        "a\u{10FFFF}/8",
        "b/9",
        "東京/10",
        "東/11",
      ];
      const byScope = await sessionsIn(store, scopes);
      for (const [prefix, expected] of [
        ["ü", ["ü/1"]],
        ["u", ["u/2"]],
        ["😀", ["😀/3", "😀x/4"]],
        ["😀x", ["😀x/4"]],
        ["\uFFFD", ["\uFFFD/5"]],
        ["x\uD7FF", ["x\uD7FF/6"]],
        ["x", ["x\uD7FF/6", "x\uE000/7"]],
        ["a\u{10FFFF}", ["a\u{10FFFF}/8"]],
        ["a", ["a\u{10FFFF}/8"]],
        ["東", ["東京/10", "東/11"]],
        ["東京", ["東京/10"]],
      ] as const) {
        const want = [...expected].reverse().map((scope) => byScope.get(scope));
        checkDeepEqual(await ids(store, { scopePrefix: prefix }), want, `scopePrefix ${JSON.stringify(prefix)}`);
      }
    },
  },
  {
    name: "listSessions scopePrefix: order and limit hold over many scopes and touches",
    async run(store) {
      const sessions: { id: string; scope: string }[] = [];
      for (let n = 0; n < 24; n++) {
        const scope = n % 3 === 2 ? `beta/u${n}` : `alpha/u${n % 5}`;
        sessions.push({
          id: (await store.createSession({ agentId: n % 2 ? "agent-odd" : "agent-even", scope })).sessionId,
          scope,
        });
      }
      const newestFirst = [...sessions].reverse();
      for (const n of [3, 17, 0, 9]) {
        await store.append(sessions[n]!.id, [userText(`touch-${n}`, "again")]);
        newestFirst.splice(newestFirst.indexOf(sessions[n]!), 1);
        newestFirst.unshift(sessions[n]!);
      }
      const alpha = newestFirst.filter((session) => session.scope.startsWith("alpha/")).map((session) => session.id);
      checkDeepEqual(await ids(store, { scopePrefix: "alpha/" }), alpha, "every alpha session, newest first");
      for (const limit of [1, 5, 16, 100])
        checkDeepEqual(await ids(store, { scopePrefix: "alpha/", limit }), alpha.slice(0, limit), `limit ${limit}`);
      checkDeepEqual(
        await ids(store, { scopePrefix: "alpha/u1" }),
        alpha.filter((id) => sessions.find((s) => s.id === id)!.scope === "alpha/u1"),
        "one scope",
      );
      await store.deleteSession(alpha[0]!);
      checkDeepEqual(
        await ids(store, { scopePrefix: "alpha/", limit: 2 }),
        alpha.slice(1, 3),
        "a deleted session is not listed",
      );
    },
  },
  {
    name: "approval index (when implemented): listPendingApprovals scopePrefix, oldest first, literal, with limit",
    async run(store) {
      if (!isApprovalIndexStore(store)) return;
      const byScope = await sessionsIn(store, ["acme/alice", "acme/bob", "acme2/carol", "t%/x", "tZ/y", null]);
      const order: [string | null, string][] = [
        ["acme/bob", "r1"],
        ["acme2/carol", "r2"],
        ["acme/alice", "r3"],
        [null, "r4"],
        ["t%/x", "r5"],
        ["tZ/y", "r6"],
        ["acme/bob", "r7"],
      ];
      for (const [scope, requestId] of order) await store.append(byScope.get(scope)!, [asked(requestId)]);
      const pending = async (query: ListPendingApprovalsQuery) =>
        (await store.listPendingApprovals(query)).map((entry) => entry.requestId);
      checkDeepEqual(await pending({ scopePrefix: "acme/" }), ["r1", "r3", "r7"], "pending under acme/, oldest first");
      checkDeepEqual(
        await pending({ scopePrefix: "acme" }),
        ["r1", "r2", "r3", "r7"],
        "pending under acme (acme2 too)",
      );
      checkDeepEqual(await pending({ scopePrefix: "acme", limit: 2 }), ["r1", "r2"], "limit keeps the oldest");
      checkDeepEqual(await pending({ scopePrefix: "t%" }), ["r5"], "% is literal");
      checkDeepEqual(
        await pending({ scopePrefix: "" }),
        ["r1", "r2", "r3", "r5", "r6", "r7"],
        "'' = every scoped session's",
      );
      checkDeepEqual(
        await pending({ scopePrefix: "acme/", sessionId: byScope.get("acme/alice")! }),
        ["r3"],
        "with sessionId",
      );
      checkDeepEqual(
        await pending({ scopePrefix: "acme2/", sessionId: byScope.get("acme/alice")! }),
        [],
        "sessionId outside the prefix",
      );
      const [first] = await store.listPendingApprovals({ scopePrefix: "acme/" });
      checkDeepEqual(
        { scope: first?.scope, sessionId: first?.sessionId },
        { scope: "acme/bob", sessionId: byScope.get("acme/bob") },
        "an entry names its scope",
      );
      await store.append(byScope.get("acme/bob")!, [
        { ...asked("r1"), id: "r1:decision", decision: "approved" } as NewRecord,
      ]);
      await store.clear(byScope.get("acme/alice")!);
      checkDeepEqual(
        await pending({ scopePrefix: "acme/" }),
        ["r7"],
        "decided and reset requests leave the prefix listing",
      );
      await store.deleteSession(byScope.get("acme/bob")!);
      checkDeepEqual(await pending({ scopePrefix: "acme/" }), [], "a deleted session's requests leave it");
      await checkRejects(
        store.listPendingApprovals({ scope: "acme/bob", scopePrefix: "acme/" }),
        isInvalid,
        "scope and scopePrefix together",
      );
    },
  },
];
