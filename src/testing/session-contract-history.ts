import { InvalidArgumentError } from "../errors/errors.js";
import type { HistoryRecord, NewRecord, SessionStore } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual, checkRejects, isIsoTimestamp } from "./session-contract-assert.js";
import { userText, type ContractCase } from "./session-contract-fixtures.js";

const seqs = (records: HistoryRecord[]): number[] => records.map((record) => record.seq);
const recordIds = (records: HistoryRecord[]): string[] => records.map((record) => record.id);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const newSession = async (store: SessionStore, agentId = "agent-a"): Promise<string> =>
  (await store.createSession({ agentId })).sessionId;

/** History: append, seq, idempotency, atomicity, concurrency, load filters, frames. */
export const historyCases: ContractCase[] = [
  {
    name: "append stores records in order with seq 1, 2, 3 and an ISO at, and returns them",
    async run(store) {
      const sessionId = await newSession(store);
      const stored = await store.append(sessionId, [
        userText("m1", "one"),
        userText("m2", "two"),
        userText("m3", "three"),
      ]);
      checkDeepEqual(seqs(stored), [1, 2, 3], "seq");
      checkDeepEqual(recordIds(stored), ["m1", "m2", "m3"], "ids");
      check(
        stored.every((record) => isIsoTimestamp(record.at)),
        "at is an ISO timestamp",
      );
      checkDeepEqual(await store.load(sessionId), stored, "load returns what append returned");
      const more = await store.append(sessionId, [userText("m4", "four")]);
      checkDeepEqual(seqs(more), [4], "seq keeps increasing across appends");
      check(more[0]!.at >= stored[2]!.at, "at does not go back");
      checkDeepEqual(await store.append(sessionId, []), [], "an empty batch");
    },
  },
  {
    name: "append bumps updatedAt and moves the session to the top of the list",
    async run(store) {
      const first = await newSession(store);
      const second = await newSession(store);
      const before = (await store.getSession(first))!;
      await store.append(first, [userText("m1", "hi")]);
      const after = (await store.getSession(first))!;
      check(after.updatedAt >= before.updatedAt, "updatedAt does not go back");
      checkDeepEqual(
        (await store.listSessions()).map((session) => session.sessionId),
        [first, second],
        "listing order",
      );
      await store.append(second, [userText("m1", "hi")]);
      checkEqual((await store.listSessions({ limit: 1 }))[0]?.sessionId, second, "latest after appending to the other");
    },
  },
  {
    name: "re-appending a stored id stores nothing and returns the stored record",
    async run(store) {
      const sessionId = await newSession(store);
      const [original] = await store.append(sessionId, [userText("m1", "first")]);
      const again = await store.append(sessionId, [userText("m1", "changed")]);
      checkDeepEqual(again, [original], "the stored record is returned");
      const mixed = await store.append(sessionId, [userText("m1", "changed"), userText("m2", "second")]);
      checkDeepEqual(mixed[0], original, "mixed batch: the stored record in place of the duplicate");
      checkEqual(mixed[1]?.seq, 2, "mixed batch: the new record gets the next seq");
      const twice = await store.append(sessionId, [userText("m3", "a"), userText("m3", "b")]);
      checkDeepEqual(twice[1], twice[0], "the same id twice in one batch is stored once");
      const loaded = await store.load(sessionId);
      checkDeepEqual(recordIds(loaded), ["m1", "m2", "m3"], "stored ids");
      checkDeepEqual(seqs(loaded), [1, 2, 3], "stored seqs");
      checkEqual(
        (loaded[0] as { message: { content: unknown } }).message.content,
        "first",
        "the first version is kept",
      );
    },
  },
  {
    name: "a batch with an invalid record is rejected with InvalidArgumentError and stores nothing",
    async run(store) {
      const sessionId = await newSession(store);
      await store.append(sessionId, [userText("m1", "kept")]);
      const invalid = [
        [userText("m2", "valid"), { id: "bad", kind: "", frame: null }],
        [
          userText("m2", "valid"),
          { id: "", kind: "message", frame: null, message: { role: "user", content: "no id" } },
        ],
      ];
      for (const batch of invalid) {
        await checkRejects(
          store.append(sessionId, batch as NewRecord[]),
          (error) => InvalidArgumentError.isInstance(error),
          "invalid batch",
        );
      }
      checkDeepEqual(recordIds(await store.load(sessionId)), ["m1"], "nothing of the failed batches was stored");
      const [second] = await store.append(sessionId, [userText("m2", "valid")]);
      checkEqual(second?.seq, 2, "the valid record appends afterwards with the next seq");
    },
  },
  {
    name: "50 concurrent appends to one session store 50 records with seq 1..50",
    async run(store) {
      const sessionId = await newSession(store);
      const results = await Promise.all(
        range(1, 50).map((n) => store.append(sessionId, [userText(`c${n}`, `message ${n}`)])),
      );
      const returned = results.map((records) => records[0]!);
      checkDeepEqual(
        [...seqs(returned)].sort((a, b) => a - b),
        range(1, 50),
        "returned seqs are unique and contiguous",
      );
      const loaded = await store.load(sessionId);
      checkDeepEqual(seqs(loaded), range(1, 50), "loaded seqs");
      checkDeepEqual(
        [...recordIds(loaded)].sort(),
        range(1, 50)
          .map((n) => `c${n}`)
          .sort(),
        "every record is stored once",
      );
      for (const record of returned) checkDeepEqual(loaded[record.seq - 1], record, `record ${record.id}`);
    },
  },
  {
    name: "concurrent appends to different sessions do not interfere",
    async run(store) {
      const sessions = await Promise.all([newSession(store), newSession(store, "agent-b"), newSession(store)]);
      await Promise.all(
        sessions.flatMap((sessionId) =>
          range(1, 10).map((n) => store.append(sessionId, [userText(`r${n}`, sessionId)])),
        ),
      );
      for (const sessionId of sessions) {
        const loaded = await store.load(sessionId);
        checkDeepEqual(seqs(loaded), range(1, 10), `seqs of ${sessionId}`);
        check(
          loaded.every((record) => (record as { message: { content: unknown } }).message.content === sessionId),
          "records stay in their session",
        );
      }
    },
  },
  {
    name: "load afterSeq returns only later records",
    async run(store) {
      const sessionId = await newSession(store);
      await store.append(
        sessionId,
        range(1, 5).map((n) => userText(`m${n}`, `${n}`)),
      );
      checkDeepEqual(seqs(await store.load(sessionId, { afterSeq: 3 })), [4, 5], "afterSeq 3");
      checkDeepEqual(seqs(await store.load(sessionId, { afterSeq: 0 })), [1, 2, 3, 4, 5], "afterSeq 0");
      checkDeepEqual(await store.load(sessionId, { afterSeq: 5 }), [], "afterSeq at the end");
    },
  },
  {
    name: "load frame: null is the root conversation, a string is that sub-task, omitted is every frame",
    async run(store) {
      const sessionId = await newSession(store);
      await store.append(sessionId, [
        userText("r1", "root"),
        userText("c1", "child", "call_1"),
        userText("r2", "root"),
        userText("c2", "child", "call_1"),
        userText("d1", "other child", "call_2"),
      ]);
      checkDeepEqual(recordIds(await store.load(sessionId, { frame: null })), ["r1", "r2"], "frame null");
      checkDeepEqual(recordIds(await store.load(sessionId, { frame: "call_1" })), ["c1", "c2"], "frame call_1");
      checkDeepEqual(recordIds(await store.load(sessionId)), ["r1", "c1", "r2", "c2", "d1"], "every frame");
      checkDeepEqual(await store.load(sessionId, { frame: "call_3" }), [], "a frame with no records");
      checkDeepEqual(
        recordIds(await store.load(sessionId, { frame: "call_1", afterSeq: 2 })),
        ["c2"],
        "frame with afterSeq",
      );
    },
  },
  {
    name: "loaded records are copies: mutating them or the appended input changes nothing stored",
    async run(store) {
      const sessionId = await newSession(store);
      const input = userText("m1", "original") as { message: { content: unknown } } & NewRecord;
      await store.append(sessionId, [input]);
      input.message.content = "mutated input";
      const [loaded] = (await store.load(sessionId)) as ({ message: { content: unknown } } & HistoryRecord)[];
      checkEqual(loaded?.message.content, "original", "after mutating the input");
      loaded!.message.content = "mutated result";
      checkEqual(
        ((await store.load(sessionId))[0] as typeof loaded)?.message.content,
        "original",
        "after mutating a loaded record",
      );
    },
  },
];
