import { InvalidArgumentError } from "../errors/errors.js";
import { isApprovalIndexStore } from "../sessions/session-store.js";
import type { NewRecord, SessionStore } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual } from "./session-contract-assert.js";
import type { ContractCase } from "./session-contract-fixtures.js";

/**
 * Strings a store must keep exactly: U+0000 (which Postgres text and jsonb cannot hold), other
 * control characters, and text that looks like an escape a store might use for them.
 */
const AWKWARD = [
  "a\u0000b",
  "\u0000",
  "\u0001",
  "\u00010",
  "\u00011",
  "\u0001\u0000\u0001",
  "\\u0000",
  "\\0",
  "\\\\",
  "%_*?[",
  "\u001f\u007f",
  "ü😀",
];
const JOINED = AWKWARD.join("|");

const withoutStamps = (record: object): object => ({ ...record, seq: undefined, at: undefined });

/** Records whose ids, frames, texts, arguments and keys hold every awkward string. */
function awkwardRecords(): NewRecord[] {
  const args = Object.fromEntries(AWKWARD.map((text, index) => [text, { index, text, list: [text, null, 1] }]));
  const request = {
    requestId: "req\u0000\u00010",
    toolCallId: "call\u0000",
    name: "delete_file",
    args,
    depth: 0,
    parentId: null,
    reason: JOINED,
  };
  return [
    { id: "m\u00001", kind: "message", frame: null, message: { role: "user", content: JOINED } },
    {
      id: "m\u00010",
      kind: "message",
      frame: null,
      message: {
        role: "assistant",
        content: [
          { type: "text", text: JOINED },
          { type: "tool_call", id: "call\u0000", name: "run_subtask", args },
        ],
      },
    },
    {
      id: "m\u0001\u0000",
      kind: "message",
      frame: "call\u0000",
      message: { role: "user", content: [{ type: "text", text: "child \u0000" }] },
    },
    { id: "req\u0000\u00010", kind: "approval", frame: "call\u0000", runId: "run\u0000", request },
  ];
}

/** Text a database cannot hold natively is still kept exactly, in every field. */
export const textCases: ContractCase[] = [
  {
    name: "U+0000 and escape look-alikes round-trip in records: ids, frames, message text, tool args and keys, approvals",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a", scope: "tenant\u0000/1" });
      const records = awkwardRecords();
      const stored = await store.append(sessionId, records);
      checkDeepEqual(stored.map(withoutStamps), records, "append returns the records as given");
      const loaded = await store.load(sessionId);
      checkDeepEqual(loaded.map(withoutStamps), records, "load");
      checkDeepEqual(
        (await store.load(sessionId, { frame: "call\u0000" })).map((record) => record.id),
        ["m\u0001\u0000", "req\u0000\u00010"],
        "load of a frame",
      );
      checkDeepEqual(
        (await store.load(sessionId, { frame: "call\u00010" })).map((record) => record.id),
        [],
        "load of a look-alike frame",
      );
      const again = await store.append(sessionId, [
        { ...records[1]!, message: { role: "user", content: "other" } } as NewRecord,
      ]);
      checkDeepEqual(withoutStamps(again[0]!), records[1], "appending a stored id again returns the stored record");
      checkEqual((await store.load(sessionId)).length, records.length, "nothing new stored for a duplicate id");
      await store.append(sessionId, [
        { id: "m\u00011", kind: "message", frame: null, message: { role: "user", content: "distinct" } },
      ]);
      checkEqual(
        (await store.load(sessionId)).length,
        records.length + 1,
        "an id that looks like another's escape is a distinct id",
      );
      if (!isApprovalIndexStore(store)) return;
      const found = await store.findApproval("req\u0000\u00010");
      checkDeepEqual(
        { ...found, request: found && withoutStamps(found.request) },
        {
          requestId: "req\u0000\u00010",
          sessionId,
          agentId: "agent-a",
          scope: "tenant\u0000/1",
          request: records[3],
          decided: false,
        },
        "findApproval",
      );
      checkEqual(await store.findApproval("req\u00010\u00010"), undefined, "findApproval of a look-alike id");
      checkDeepEqual(
        (await store.listPendingApprovals({ scopePrefix: "tenant\u0000" })).map((entry) => entry.requestId),
        ["req\u0000\u00010"],
        "pending",
      );
    },
  },
  {
    name: "U+0000 and escape look-alikes round-trip in session metadata: scope, name, snippet, attributes; and list by scope",
    async run(store) {
      const attributes = {
        [JOINED]: AWKWARD,
        nested: Object.fromEntries(AWKWARD.map((text) => [text, text])),
        "\u00010": "looks like an escape",
      };
      const nul = await store.createSession({ agentId: "agent\u0000", scope: "t\u0000/1", name: JOINED, attributes });
      const lookalike = await store.createSession({ agentId: "agent-a", scope: "t\u00010/1" });
      const plain = await store.createSession({ agentId: "agent-a", scope: "t/1" });
      const expected = { ...nul, scope: "t\u0000/1", name: JOINED, attributes, agentId: "agent\u0000" };
      checkDeepEqual(nul, expected, "createSession");
      checkDeepEqual(await store.getSession(nul.sessionId), expected, "getSession");
      const updated = await store.updateSession(nul.sessionId, { lastSnippet: JOINED, pinnedAt: "\u0000" });
      checkDeepEqual(
        { ...(await store.getSession(nul.sessionId)), updatedAt: undefined },
        { ...updated, updatedAt: undefined },
        "updateSession",
      );
      check(updated.lastSnippet === JOINED && updated.pinnedAt === "\u0000", "updated fields kept");
      const listed = async (query: Parameters<SessionStore["listSessions"]>[0]) =>
        (await store.listSessions(query)).map((session) => session.sessionId);
      checkDeepEqual(await listed({ scope: "t\u0000/1" }), [nul.sessionId], "scope with U+0000");
      checkDeepEqual(await listed({ scope: "t\u00010/1" }), [lookalike.sessionId], "scope that looks like its escape");
      checkDeepEqual(await listed({ scopePrefix: "t\u0000" }), [nul.sessionId], "scopePrefix with U+0000");
      checkDeepEqual(await listed({ scopePrefix: "t\u0001" }), [lookalike.sessionId], "scopePrefix U+0001");
      checkDeepEqual(
        await listed({ scopePrefix: "t" }),
        [nul.sessionId, plain.sessionId, lookalike.sessionId],
        "scopePrefix t (the update made it the newest)",
      );
      checkDeepEqual(await listed({ agentId: "agent\u0000" }), [nul.sessionId], "agentId with U+0000");
      checkEqual(
        (await store.listSessions({ scope: "t\u0000/1" }))[0]?.name,
        JOINED,
        "a listed summary keeps its name",
      );
    },
  },
  {
    name: "a session id with U+0000 is kept exactly, or refused with InvalidArgumentError",
    async run(store) {
      let created;
      try {
        created = await store.createSession({ agentId: "agent-a", sessionId: "s\u0000\u00010" });
      } catch (error) {
        check(
          InvalidArgumentError.isInstance(error),
          `a refused session id: expected InvalidArgumentError, got ${String(error)}`,
        );
        return;
      }
      checkEqual(created.sessionId, "s\u0000\u00010", "created id");
      const lookalike = await store.createSession({ agentId: "agent-a", sessionId: "s\u00010\u00010" });
      await store.append(created.sessionId, [
        { id: "m1", kind: "message", frame: null, message: { role: "user", content: "hi" } },
      ]);
      checkEqual((await store.getSession(created.sessionId))?.sessionId, created.sessionId, "getSession");
      checkEqual((await store.load(created.sessionId)).length, 1, "load");
      checkEqual((await store.load(lookalike.sessionId)).length, 0, "the look-alike id is another session");
      checkDeepEqual(
        (await store.listSessions()).map((session) => session.sessionId),
        [created.sessionId, lookalike.sessionId],
        "listSessions",
      );
      await store.deleteSession(created.sessionId);
      checkEqual(await store.getSession(created.sessionId), undefined, "deleted");
      checkEqual((await store.getSession(lookalike.sessionId))?.sessionId, lookalike.sessionId, "the look-alike stays");
    },
  },
];
