import { InvalidArgumentError } from "../errors/errors.js";
import { isApprovalIndexStore } from "../sessions/session-store.js";
import type { NewRecord } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual } from "./session-contract-assert.js";
import type { ContractCase } from "./session-contract-fixtures.js";

/** Strings with a lone UTF-16 surrogate: high, low, reversed pair, and one at either end. */
const LONE = ["t\ud800", "t\udc00", "t\udc00\ud800", "\ud83d", "\ude00x"];

/** Runs `call` and checks it is refused with an `InvalidArgumentError`. */
async function refused(call: () => Promise<unknown>, what: string): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await call();
  } catch (error) {
    check(InvalidArgumentError.isInstance(error), `${what}: expected InvalidArgumentError, got ${String(error)}`);
    return;
  }
  check(false, `${what}: expected InvalidArgumentError, got ${String(outcome)}`);
}

const withoutStamps = (record: object): object => ({ ...record, seq: undefined, at: undefined });

/**
 * A lone surrogate: refused in a session's string fields (a UTF-8 column would keep U+FFFD in its
 * place, and two tenants' scopes would become one), kept exactly in JSON payloads.
 */
export const surrogateCases: ContractCase[] = [
  {
    name: "a lone UTF-16 surrogate in an id, scope, scopePrefix, name, pin or snippet is refused with InvalidArgumentError",
    async run(store) {
      for (const text of LONE) {
        const what = JSON.stringify(text);
        await refused(() => store.createSession({ agentId: "agent-a", scope: text }), `createSession scope ${what}`);
        await refused(() => store.createSession({ agentId: text }), `createSession agentId ${what}`);
        await refused(() => store.createSession({ agentId: "agent-a", sessionId: text }), `sessionId ${what}`);
        await refused(() => store.createSession({ agentId: "agent-a", name: text }), `createSession name ${what}`);
        await refused(() => store.listSessions({ scope: text }), `listSessions scope ${what}`);
        await refused(() => store.listSessions({ scopePrefix: text }), `listSessions scopePrefix ${what}`);
        await refused(() => store.listSessions({ agentId: text }), `listSessions agentId ${what}`);
        await refused(() => store.getSession(text), `getSession ${what}`);
        await refused(() => store.load(text), `load ${what}`);
        if (isApprovalIndexStore(store)) {
          await refused(() => store.listPendingApprovals({ scope: text }), `listPendingApprovals scope ${what}`);
          await refused(() => store.listPendingApprovals({ scopePrefix: text }), `listPendingApprovals prefix ${what}`);
        }
      }
      checkDeepEqual(await store.listSessions(), [], "nothing was created");
      const session = await store.createSession({ agentId: "agent-a", scope: "t" });
      for (const text of LONE) {
        const what = JSON.stringify(text);
        for (const field of ["name", "pinnedAt", "lastSnippet"] as const)
          await refused(
            () => store.updateSession(session.sessionId, { [field]: text }),
            `updateSession ${field} ${what}`,
          );
        await refused(
          () => store.append(session.sessionId, [{ ...userText("m1"), id: text }]),
          `append record id ${what}`,
        );
        await refused(
          () => store.append(session.sessionId, [{ ...userText("m1"), frame: text }]),
          `append frame ${what}`,
        );
      }
      checkEqual((await store.load(session.sessionId)).length, 0, "nothing was appended");
      const paired = await store.createSession({ agentId: "agent-a", scope: "t\ud83d\ude00", name: "\ud83d\ude00" });
      const replaced = await store.createSession({ agentId: "agent-a", scope: "t\ufffd" });
      checkDeepEqual(
        (await store.listSessions({ scope: "t\ud83d\ude00" })).map((s) => [s.sessionId, s.name]),
        [[paired.sessionId, "\ud83d\ude00"]],
        "a surrogate pair is an ordinary character",
      );
      checkDeepEqual(
        (await store.listSessions({ scope: "t\ufffd" })).map((s) => s.sessionId),
        [replaced.sessionId],
        "U+FFFD is its own scope",
      );
    },
  },
  {
    name: "a lone UTF-16 surrogate in attributes and records (text, arguments, keys) round-trips exactly",
    async run(store) {
      const attributes = { "k\ud800": "v\udc00", list: [...LONE], nested: { "\ud801": "\ud800" } };
      const created = await store.createSession({ agentId: "agent-a", attributes });
      checkDeepEqual(created.attributes, attributes, "createSession returns the attributes");
      checkDeepEqual((await store.getSession(created.sessionId))?.attributes, attributes, "getSession");
      const patched = { ...attributes, more: "\udfff" };
      await store.updateSession(created.sessionId, { attributes: patched });
      checkDeepEqual((await store.getSession(created.sessionId))?.attributes, patched, "updateSession attributes");
      const args = Object.fromEntries(LONE.map((text) => [text, text]));
      const records: NewRecord[] = [
        { id: "m1", kind: "message", frame: null, message: { role: "user", content: LONE.join("|") } },
        {
          id: "m2",
          kind: "message",
          frame: null,
          message: {
            role: "assistant",
            content: [
              { type: "text", text: "\ud800\ud800" },
              { type: "tool_call", id: "c1", name: "lookup", args },
            ],
          },
        },
        {
          id: "r1",
          kind: "tool_result",
          frame: null,
          runId: "run_1",
          toolCallId: "c1",
          result: { type: "tool_result", toolCallId: "c1", name: "lookup", result: { "\udc00": args } },
        },
      ];
      await store.append(created.sessionId, records);
      checkDeepEqual((await store.load(created.sessionId)).map(withoutStamps), records, "load");
      const other = await store.createSession({ agentId: "agent-a", attributes: { k: "\ud801" } });
      checkDeepEqual((await store.getSession(other.sessionId))?.attributes, { k: "\ud801" }, "a distinct surrogate");
    },
  },
];

function userText(id: string): NewRecord {
  return { id, kind: "message", frame: null, message: { role: "user", content: "hi" } };
}
