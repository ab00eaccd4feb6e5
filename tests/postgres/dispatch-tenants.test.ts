import { describe, expect, it } from "vitest";
import {
  ApprovalNotFoundError,
  DispatchError,
  InvalidArgumentError,
  type RuntimeEvent,
  type TurnResult,
} from "@agentry/core";
import { requireDatabase } from "./database.js";
import { useDispatchLayouts } from "./fixtures/dispatch-layout.js";

/** Polls `check` every 20 ms, at most `polls` times (a count, not a time). */
async function until(check: () => Promise<boolean> | boolean, polls = 1500): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition never held");
}

/** The error a promise rejects with. */
const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => new Error("resolved"),
    (error: unknown) => error,
  );

describe("pg-boss dispatcher: tenants cannot reach each other's jobs and decisions by id", { timeout: 120_000 }, () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();

  it("tenant B sending tenant A's jobId gets a turn of its own: it sees none of A's events, and its abort does not cancel A's turn", async () => {
    const { schema, start } = layout();
    await start(true);
    const front = await start(false);
    const pool = front.store.pool;
    const a = front.dispatcher.send({ agentId: "main", content: "slow a1", scope: "tenant-a", jobId: "req-1" });
    await until(async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'a1-1'`)).rows.length > 0);
    const aSession = (await front.store.listSessions({ scope: "tenant-a" }))[0]!.sessionId;

    const events: RuntimeEvent[] = [];
    for await (const event of front.dispatcher.stream({
      agentId: "main",
      content: "turn b",
      scope: "tenant-b",
      jobId: "req-1",
    }))
      events.push(event);
    const b = (events.at(-1) as Extract<RuntimeEvent, { type: "done" }>).result as TurnResult;
    expect(b).toMatchObject({ status: "complete", text: "done b", runId: "req-1" });
    expect(b.sessionId).not.toBe(aSession);
    expect((await front.store.getSession(b.sessionId))?.scope).toBe("tenant-b");
    expect(events.filter((e) => e.sessionId === aSession)).toEqual([]);

    // B "cancels" req-1: an abort of its own send, whatever A runs under that id.
    const stop = new AbortController();
    stop.abort();
    const again = front.dispatcher.send({
      agentId: "main",
      content: "turn b",
      scope: "tenant-b",
      jobId: "req-1",
      signal: stop.signal,
    });
    expect(await rejection(again)).toBeInstanceOf(DispatchError);
    await pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('a1-2')`);
    expect(await a).toMatchObject({ status: "complete", text: "done a1", runId: "req-1", sessionId: aSession });
  });

  it("tenant B resolving tenant A's approval by id: not found, like an unknown id; nothing enqueued, nothing run; A resolves it within its guard", async () => {
    const { schema, start } = layout();
    await start(true);
    const front = await start(false);
    const pool = front.store.pool;
    const suspended = await front.dispatcher.send({ agentId: "main", content: "approve x", scope: "tenant-a/alice" });
    expect(suspended.status).toBe("suspended");
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const jobs = async () => (await pool.query(`SELECT id FROM "${schema}".dispatch_jobs`)).rows.length;
    const before = await jobs();

    const unknown = await rejection(
      front.dispatcher.resolveApproval("no-such-request", { approved: true, scope: "tenant-b" }),
    );
    for (const guard of [
      { scope: "tenant-b" },
      { scopePrefix: "tenant-b" },
      { scope: "tenant-a" },
      { scopePrefix: "tenant-a/bob" },
    ]) {
      const error = await rejection(front.dispatcher.resolveApproval(requestId, { approved: true, ...guard }));
      expect(ApprovalNotFoundError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe((unknown as Error).message.replace("no-such-request", requestId));
    }
    await expect(
      front.dispatcher.resolveApproval(requestId, { approved: true, scope: "tenant-a/alice", scopePrefix: "tenant-a" }),
    ).rejects.toSatisfy((error: unknown) => InvalidArgumentError.isInstance(error));
    expect(await jobs()).toBe(before);
    expect((await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'pay-x'`)).rows).toEqual([]);

    const resolved = await front.dispatcher.resolveApproval(requestId, { approved: true, scopePrefix: "tenant-a/" });
    expect(resolved).toMatchObject({ status: "complete", text: "paid x" });
    // The guard goes to the worker's runtime with the decision.
    const { rows } = await pool.query<{ payload: { decision: { scopePrefix?: string } } }>(
      `SELECT payload FROM "${schema}".dispatch_jobs WHERE kind = 'resolve'`,
    );
    expect(rows.map((r) => r.payload.decision.scopePrefix)).toEqual(["tenant-a/"]);
  });

  it("tenant B answering tenant A's question by id: not found; A answers it within its guard", async () => {
    const { schema, start } = layout();
    await start(true);
    const front = await start(false);
    const pool = front.store.pool;
    const events: RuntimeEvent[] = [];
    for await (const event of front.dispatcher.stream({ agentId: "asker", content: "ask list", scope: "tenant-a" }))
      events.push(event);
    const asked = events.find((e): e is Extract<RuntimeEvent, { type: "question" }> => e.type === "question")!;
    const before = (await pool.query(`SELECT id FROM "${schema}".dispatch_jobs`)).rows.length;
    const error = await rejection(front.dispatcher.answerQuestion(asked.questionId, { value: "b", scope: "tenant-b" }));
    expect(ApprovalNotFoundError.isInstance(error)).toBe(true);
    expect((await pool.query(`SELECT id FROM "${schema}".dispatch_jobs`)).rows.length).toBe(before);
    const answered = await front.dispatcher.answerQuestion(asked.questionId, { value: "b", scope: "tenant-a" });
    expect(answered).toMatchObject({ status: "complete", text: 'answered list {"answer":"b","label":"B"}' });
  });
});
