import { LeaseLostError, SessionNotFoundError } from "../errors/errors.js";
import { isApprovalIndexStore, isLeasableSessionStore } from "../sessions/session-store.js";
import type { HistoryRecord, NewRecord } from "../contracts/session-store.js";
import { check, checkDeepEqual, checkEqual, checkRejects, pause } from "./session-contract-assert.js";
import { userText, type ContractCase } from "./session-contract-fixtures.js";

const request = (requestId: string) => ({
  requestId,
  toolCallId: `call-${requestId}`,
  name: "delete_file",
  args: { path: "a" },
  depth: 0,
  parentId: null,
  reason: "tool requires approval",
});
const asked = (requestId: string): NewRecord => ({
  id: requestId,
  kind: "approval",
  frame: null,
  request: request(requestId),
  runId: "run-1",
});
const decided = (requestId: string, decisionId: string): NewRecord => ({
  id: `${requestId}:decision`,
  kind: "approval",
  frame: null,
  request: request(requestId),
  decision: "approved",
  decisionId,
});

/** Records of kinds beyond the four core ones, and the optional capabilities (checked when the store has them). */
export const capabilityCases: ContractCase[] = [
  {
    name: "a record of a further kind (tool_result) round-trips as plain JSON",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const record = {
        id: "tr-1",
        kind: "tool_result",
        frame: "call-parent",
        runId: "run-1",
        toolCallId: "call-1",
        result: {
          type: "tool_result",
          toolCallId: "call-1",
          name: "read_file",
          result: { lines: ["a", "b"] },
          isError: false,
        },
      } as NewRecord;
      await store.append(sessionId, [record]);
      const [loaded] = await store.load(sessionId);
      checkDeepEqual({ ...loaded, seq: undefined, at: undefined }, record, "the tool_result record");
    },
  },
  {
    name: "steer and stop records round-trip; written without the lease while another runtime holds it, the holder reads them after its own seq",
    async run(store) {
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const leasable = isLeasableSessionStore(store) ? store : undefined;
      const held = await leasable?.acquireLease(sessionId, { owner: "runtime-1", ttlMs: 60_000 });
      const write = (records: NewRecord[], fenced: boolean) =>
        leasable && held && fenced
          ? leasable.append(sessionId, records, { leaseToken: held.token })
          : store.append(sessionId, records);
      const [own] = await write([userText("m1", "the running turn's")], true);
      const steer = {
        id: "steer:run-2",
        kind: "steer",
        frame: null,
        message: { role: "user", content: "also this" },
        messageId: "steer:run-2:message",
        runId: "run-2",
      } as NewRecord;
      const stop = {
        id: "stop:run-1:x",
        kind: "stop",
        frame: null,
        runId: "run-1",
        reason: "user_pressed_stop",
      } as NewRecord;
      // Another runtime's writes: no lease token (the holder is not fenced out by them).
      await write([steer], false);
      await write([stop], false);
      await write([userText("m2", "the running turn's again")], true);
      const after = await store.load(sessionId, { afterSeq: own!.seq });
      checkDeepEqual(
        after.map((record) => record.id),
        ["steer:run-2", "stop:run-1:x", "m2"],
        "records after the holder's own, in order",
      );
      checkDeepEqual({ ...after[0], seq: undefined, at: undefined }, steer, "the steer record");
      checkDeepEqual({ ...after[1], seq: undefined, at: undefined }, stop, "the stop record");
      if (held) await leasable?.releaseLease(sessionId, held.token);
    },
  },
  {
    name: "leases (when implemented): one holder at a time, tokens increase, a stale token cannot append",
    async run(store) {
      if (!isLeasableSessionStore(store)) return;
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const first = await store.acquireLease(sessionId, { owner: "runtime-1", ttlMs: 60_000 });
      check(first !== undefined && Number.isInteger(first.token), "the first acquire gets a lease");
      checkEqual(
        await store.acquireLease(sessionId, { owner: "runtime-2", ttlMs: 60_000 }),
        undefined,
        "another owner while it is held",
      );
      await store.append(sessionId, [userText("m1", "in lease")], { leaseToken: first.token });
      await store.releaseLease(sessionId, first.token);
      const second = await store.acquireLease(sessionId, { owner: "runtime-2", ttlMs: 60_000 });
      check(second !== undefined && second.token > first.token, "after release another owner gets a greater token");
      await checkRejects(
        store.append(sessionId, [userText("m2", "stale")], { leaseToken: first.token }),
        (error) => LeaseLostError.isInstance(error),
        "append with the stale token",
      );
      checkEqual(
        await store.renewLease(sessionId, first.token, { ttlMs: 60_000 }),
        undefined,
        "renewing a stale token",
      );
      check(
        (await store.renewLease(sessionId, second.token, { ttlMs: 60_000 }))?.token === second.token,
        "renewing the current token",
      );
      await store.append(sessionId, [userText("m3", "current")], { leaseToken: second.token });
      await store.append(sessionId, [userText("m4", "unfenced")]);
      checkDeepEqual(
        (await store.load(sessionId)).map((record) => record.id),
        ["m1", "m3", "m4"],
        "nothing of the refused append was stored",
      );
      await checkRejects(
        store.acquireLease("no-such-session", { owner: "x", ttlMs: 1000 }),
        (error) => SessionNotFoundError.isInstance(error),
        "acquire on an unknown session",
      );
    },
  },
  {
    name: "leases (when implemented): an expired lease can be taken over, and fences its old holder",
    async run(store) {
      if (!isLeasableSessionStore(store)) return;
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const first = (await store.acquireLease(sessionId, { owner: "runtime-1", ttlMs: 20 }))!;
      let second;
      for (let attempt = 0; attempt < 200 && second === undefined; attempt++) {
        await pause(10);
        second = await store.acquireLease(sessionId, { owner: "runtime-2", ttlMs: 60_000 });
      }
      check(second !== undefined && second.token > first.token, "the expired lease was taken with a greater token");
      await checkRejects(
        store.append(sessionId, [userText("late", "late write")], { leaseToken: first.token }),
        (error) => LeaseLostError.isInstance(error),
        "the old holder's append",
      );
      checkEqual((await store.load(sessionId)).length, 0, "nothing stored");
    },
  },
  {
    name: "leases (when implemented): waiting tickets are served in arrival order",
    async run(store) {
      if (!isLeasableSessionStore(store)) return;
      const { sessionId } = await store.createSession({ agentId: "agent-a" });
      const held = (await store.acquireLease(sessionId, { owner: "runtime-1", ttlMs: 60_000 }))!;
      checkEqual(
        await store.acquireLease(sessionId, { owner: "runtime-2", ttlMs: 60_000, ticket: "t-early" }),
        undefined,
        "queued behind the holder",
      );
      checkEqual(
        await store.acquireLease(sessionId, { owner: "runtime-3", ttlMs: 60_000, ticket: "t-late" }),
        undefined,
        "queued second",
      );
      await store.releaseLease(sessionId, held.token);
      checkEqual(
        await store.acquireLease(sessionId, { owner: "runtime-3", ttlMs: 60_000, ticket: "t-late" }),
        undefined,
        "the later ticket waits for the earlier one",
      );
      checkEqual(
        await store.acquireLease(sessionId, { owner: "runtime-1", ttlMs: 60_000 }),
        undefined,
        "a caller without a ticket does not jump the queue",
      );
      const early = await store.acquireLease(sessionId, { owner: "runtime-2", ttlMs: 60_000, ticket: "t-early" });
      check(early !== undefined && early.token > held.token, "the earliest ticket gets the lease");
      await store.releaseLease(sessionId, early.token);
      const late = await store.acquireLease(sessionId, { owner: "runtime-3", ttlMs: 60_000, ticket: "t-late" });
      check(late !== undefined && late.token > early.token, "then the next ticket");
    },
  },
  {
    name: "approval index (when implemented): pending by scope and session, decided once, retired by reset and deletion",
    async run(store) {
      if (!isApprovalIndexStore(store)) return;
      const a = await store.createSession({ agentId: "agent-a", scope: "user-a" });
      const b = await store.createSession({ agentId: "agent-a", scope: "user-b" });
      const plain = await store.createSession({ agentId: "agent-a" });
      await store.append(a.sessionId, [asked("ra1"), asked("ra2")]);
      await store.append(b.sessionId, [asked("rb1")]);
      await store.append(plain.sessionId, [asked("rp1")]);
      const ids = async (query?: Parameters<typeof store.listPendingApprovals>[0]) =>
        (await store.listPendingApprovals(query)).map((entry) => entry.requestId);
      checkDeepEqual(await ids({ scope: "user-a" }), ["ra1", "ra2"], "pending in user-a");
      checkDeepEqual(await ids({ scope: null }), ["rp1"], "pending in the unscoped space");
      checkDeepEqual(await ids({ sessionId: b.sessionId }), ["rb1"], "pending of one session");
      checkDeepEqual((await ids()).sort(), ["ra1", "ra2", "rb1", "rp1"], "pending everywhere");
      const found = await store.findApproval("rb1");
      checkDeepEqual(
        { ...found, request: found?.request.request },
        {
          requestId: "rb1",
          sessionId: b.sessionId,
          agentId: "agent-a",
          scope: "user-b",
          request: request("rb1"),
          decided: false,
        },
        "findApproval",
      );
      checkEqual(await store.findApproval("nope"), undefined, "findApproval of an unknown id");
      // Two deciders at once: append is idempotent by the decision's id, so exactly one is kept.
      const [one, two] = await Promise.all([
        store.append(a.sessionId, [decided("ra1", "decider-1")]),
        store.append(a.sessionId, [decided("ra1", "decider-2")]),
      ]);
      const decisionOf = (record: HistoryRecord | undefined) =>
        record?.kind === "approval" ? record.decisionId : undefined;
      const kept = decisionOf(one[0]);
      checkEqual(typeof kept, "string", "the kept decision has its decider's id");
      checkEqual(decisionOf(two[0]), kept, "both deciders see the one kept decision");
      checkEqual(
        (await store.load(a.sessionId)).filter((record) => record.id === "ra1:decision").length,
        1,
        "one decision stored",
      );
      checkEqual((await store.findApproval("ra1"))?.decided, true, "decided after the decision record");
      checkDeepEqual(await ids({ scope: "user-a" }), ["ra2"], "a decided request is no longer pending");
      await store.clear(a.sessionId);
      checkDeepEqual(await ids({ scope: "user-a" }), [], "a reset retires the session's pending requests");
      await store.deleteSession(b.sessionId);
      checkDeepEqual(await ids({ scope: "user-b" }), [], "deleting a session drops its requests");
      checkEqual(await store.findApproval("rb1"), undefined, "findApproval after deletion");
    },
  },
];
