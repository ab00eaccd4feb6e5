import { InvalidArgumentError, SessionNotFoundError, SessionOwnershipError } from "../errors/errors.js";
import { resolveSession } from "../sessions/resolve-session.js";
import type { HistoryRecord, NewRecord } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual, checkRejects } from "./session-contract-assert.js";
import { everyRecordKind, userText, type ContractCase } from "./session-contract-fixtures.js";

const recordIds = (records: HistoryRecord[]): string[] => records.map((record) => record.id);

/** Reset markers, every record kind as plain JSON, and session routing through `resolveSession`. */
export const recordCases: ContractCase[] = [
  {
    name: "clear appends a root reset marker, keeps metadata, and sinceLastReset starts after it",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a", name: "Kept", attributes: { a: 1 } });
      await store.append(sessionId, [userText("m1", "before"), userText("m2", "before")]);
      checkDeepEqual(
        recordIds(await store.load(sessionId, { sinceLastReset: true })),
        ["m1", "m2"],
        "no reset yet: everything",
      );
      const before = (await store.getSession(sessionId))!;
      await store.clear(sessionId);
      await store.append(sessionId, [userText("m3", "after")]);
      const all = await store.load(sessionId);
      checkEqual(all.length, 4, "clear keeps the history and appends a marker");
      checkEqual(all[2]?.kind, "reset", "the marker's kind");
      checkEqual(all[2]?.frame, null, "the marker's frame");
      checkEqual(all[2]?.seq, 3, "the marker's seq");
      checkDeepEqual(recordIds(await store.load(sessionId, { sinceLastReset: true })), ["m3"], "sinceLastReset");
      const after = (await store.getSession(sessionId))!;
      checkDeepEqual(
        { name: after.name, attributes: after.attributes, agentId: after.agentId },
        { name: "Kept", attributes: { a: 1 }, agentId: "agent-a" },
        "metadata kept",
      );
      check(after.updatedAt >= before.updatedAt, "clear bumps updatedAt");
      await store.clear(sessionId);
      checkDeepEqual(await store.load(sessionId, { sinceLastReset: true }), [], "right after a second clear");
    },
  },
  {
    name: "sinceLastReset combines with afterSeq and frame",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      await store.append(sessionId, [userText("m1", "1"), userText("c1", "1", "call_1")]);
      await store.clear(sessionId);
      await store.append(sessionId, [userText("m4", "4"), userText("c5", "5", "call_1"), userText("m6", "6")]);
      checkDeepEqual(
        recordIds(await store.load(sessionId, { sinceLastReset: true, afterSeq: 1 })),
        ["m4", "c5", "m6"],
        "afterSeq before the marker",
      );
      checkDeepEqual(
        recordIds(await store.load(sessionId, { sinceLastReset: true, afterSeq: 5 })),
        ["m6"],
        "afterSeq after the marker",
      );
      checkDeepEqual(
        recordIds(await store.load(sessionId, { sinceLastReset: true, frame: null })),
        ["m4", "m6"],
        "root frame",
      );
    },
  },
  {
    name: "a compaction record keeps every message in the log and sinceLastReset does not start after it",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      await store.append(sessionId, [userText("m1", "old"), userText("m2", "kept")]);
      const compaction: NewRecord = {
        id: "c1",
        kind: "compaction",
        frame: null,
        summary: "Earlier: m1.",
        keptFromSeq: 2,
        source: "fallback",
        tokensBefore: 20,
        tokensAfter: 12,
        summarizedMessages: 1,
      };
      const [stored] = await store.append(sessionId, [compaction]);
      checkDeepEqual(stored, { ...compaction, seq: 3, at: stored?.at }, "stored as given, with seq and at");
      await store.append(sessionId, [userText("m3", "after")]);
      checkDeepEqual(recordIds(await store.load(sessionId)), ["m1", "m2", "c1", "m3"], "load keeps every message");
      checkDeepEqual(
        recordIds(await store.load(sessionId, { sinceLastReset: true })),
        ["m1", "m2", "c1", "m3"],
        "a compaction is not a reset",
      );
      for (const bad of [
        { ...compaction, id: "c2", summary: "" },
        { ...compaction, id: "c3", keptFromSeq: 0 },
        { ...compaction, id: "c4", source: "someone" },
        { ...compaction, id: "c5", tokensAfter: -1 },
        { ...compaction, id: "c6", frame: "call_1" },
      ]) {
        await checkRejects(
          store.append(sessionId, [bad as NewRecord]),
          (error) => InvalidArgumentError.isInstance(error),
          `invalid compaction ${bad.id}`,
        );
      }
      checkEqual((await store.load(sessionId)).length, 4, "no invalid compaction was stored");
    },
  },
  {
    name: "every record kind round-trips as plain JSON, with seq and at added",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const records = everyRecordKind();
      const stored = await store.append(sessionId, records);
      const loaded = await store.load(sessionId);
      checkEqual(loaded.length, records.length, "record count");
      records.forEach((record, index) => {
        const got = loaded[index]!;
        checkDeepEqual(
          got,
          { ...JSON.parse(JSON.stringify(record)), seq: index + 1, at: got.at },
          `record ${record.id}`,
        );
        checkDeepEqual(JSON.parse(JSON.stringify(got)), got, `record ${record.id} is plain JSON`);
      });
      checkDeepEqual(stored, loaded, "append returned what load returns");
    },
  },
  {
    name: "resolveSession routes latest to the agent's most recently updated session",
    async run(store) {
      const older = (await store.createSession({ agentId: "agent-a" })).sessionId;
      const newer = (await store.createSession({ agentId: "agent-a" })).sessionId;
      await store.createSession({ agentId: "agent-b" });
      checkEqual((await resolveSession(store, "agent-a", "latest")).session.sessionId, newer, "latest");
      await store.append(older, [userText("m1", "hi")]);
      const latest = await resolveSession(store, "agent-a", "latest");
      checkDeepEqual(
        [latest.session.sessionId, latest.created],
        [older, false],
        "latest after appending to the older session",
      );
      await store.updateSession(newer, { name: "renamed" });
      checkEqual((await resolveSession(store, "agent-a")).session.sessionId, newer, "latest-or-create after a rename");
      const error = await checkRejects(
        resolveSession(store, "agent-c", "latest"),
        (e) => SessionNotFoundError.isInstance(e),
        "latest with no session",
      );
      checkEqual((error as SessionNotFoundError).agentId, "agent-c", "the error names the agent");
    },
  },
  {
    name: "resolveSession creates, reuses and checks explicit ids against the store",
    async run(store) {
      const first = await resolveSession(store, "agent-c", "latest-or-create");
      checkEqual(first.created, true, "latest-or-create with no session creates one");
      checkEqual(first.session.agentId, "agent-c", "for the agent");
      const second = await resolveSession(store, "agent-c", "latest-or-create");
      checkDeepEqual([second.session.sessionId, second.created], [first.session.sessionId, false], "then reuses it");
      const created = await resolveSession(store, "agent-c", "create");
      check(
        created.created && created.session.sessionId !== first.session.sessionId,
        "create always makes a new session",
      );
      const explicit = await resolveSession(store, "agent-c", first.session.sessionId);
      checkDeepEqual([explicit.session.sessionId, explicit.created], [first.session.sessionId, false], "explicit id");
      await checkRejects(
        resolveSession(store, "agent-d", first.session.sessionId),
        (e) => SessionOwnershipError.isInstance(e),
        "another agent's session",
      );
      await checkRejects(
        resolveSession(store, "agent-c", "no-such-session"),
        (e) => SessionNotFoundError.isInstance(e),
        "unknown explicit id",
      );
    },
  },
];
