import { describe, expect, it } from "vitest";
import {
  AgentNotFoundError,
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  DispatchError,
  InvalidArgumentError,
  type HistoryRecord,
  type RuntimeEvent,
  type TurnResult,
} from "@agentry/core";
import { createPgBossDispatcher } from "@agentry/core/postgres";
import { historyProblems } from "@agentry/core/testing";
import { databaseUrl, requireDatabase } from "./database.js";
import { useDispatchLayouts } from "./fixtures/dispatch-layout.js";

/** Polls `check` every 20 ms, at most `polls` times (a count, not a time). */
async function until(check: () => Promise<boolean> | boolean, polls = 1500): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition never held");
}

const userTexts = (records: HistoryRecord[]): string[] =>
  records.flatMap((r) =>
    r.kind === "message" && r.frame === null && r.message.role === "user" && typeof r.message.content === "string"
      ? [r.message.content]
      : [],
  );

/** Turn records of the root frame never interleave: every start is followed by its own end. */
function turnsInterleave(records: HistoryRecord[]): boolean {
  let open: string | undefined;
  for (const r of records) {
    if (r.kind !== "turn") continue;
    if (r.phase === "start") {
      if (open !== undefined) return true;
      open = r.runId;
    } else {
      if (open !== r.runId) return true;
      open = undefined;
    }
  }
  return false;
}

describe("createPgBossDispatcher: turns dispatched across processes through pg-boss", { timeout: 120_000 }, () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();

  it("aborting a send's signal stops its turn on the worker (it ends aborted); a send aborted while queued starts aborted, without a model call", async () => {
    const { schema, start } = layout();
    // A model that would answer after a minute, unless aborted.
    const worker = await start(true, { latencyMs: [60_000, 60_000] });
    const front = await start(false);
    const events: RuntimeEvent[] = [];
    worker.runtime!.events.on("event", (e) => events.push(e));
    const running = new AbortController();
    const first = front.dispatcher.send({ agentId: "main", content: "hello", signal: running.signal });
    await until(() => events.some((e) => e.type === "llm_call_start"));
    const sessionId = events[0]!.sessionId;
    const pool = front.store.pool;
    const queuedSignal = new AbortController();
    const queued = front.dispatcher.send({
      agentId: "main",
      content: "later",
      session: sessionId,
      signal: queuedSignal.signal,
    });
    await until(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE session_id = $1`, [sessionId])).rows.length ===
        2,
    );
    queuedSignal.abort();
    await expect(queued).rejects.toThrow(DispatchError);
    running.abort();
    await expect(first).rejects.toMatchObject({ remoteName: "AbortError" });
    // Both jobs end with their turns' outcomes: aborted, wherever they ran.
    await until(
      async () =>
        (
          await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE session_id = $1 AND state = 'done'`, [
            sessionId,
          ])
        ).rows.length === 2,
    );
    const { rows } = await pool.query<{ body: TurnResult }>(
      // The first outcome of each job (a duplicate wake-up may run a job again: it reports the stored outcome).
      `SELECT DISTINCT ON (j.ord) e.body FROM "${schema}".dispatch_events e JOIN "${schema}".dispatch_jobs j ON j.id = e.job_id
       WHERE j.session_id = $1 AND e.kind = 'result' ORDER BY j.ord, e.ord`,
      [sessionId],
    );
    expect(rows.map((r) => r.body.status)).toEqual(["aborted", "aborted"]);
    expect(events.filter((e) => e.type === "llm_call_start")).toHaveLength(1);
    expect(userTexts(await front.store.load(sessionId))).toEqual(["hello", "later"]);
  });

  it("a worker that finishes a job fetches the next at once: work announced while it was busy does not wait for pg-boss's polling", async () => {
    const { start } = layout();
    // One slot, a model that keeps it busy a little, and a polling interval far longer than the test may wait.
    const worker = await start(true, { concurrency: 1, pollingIntervalSeconds: 600, latencyMs: [200, 200] });
    const front = await start(false);
    let started = false;
    worker.runtime!.events.on("event", (e) => (started ||= e.type === "llm_call_start"));
    const outcomes: string[] = [];
    const send = (content: string) =>
      front.dispatcher.send({ agentId: "main", content, session: "create" }).then((r) => void outcomes.push(r.text));
    const first = send("echo one");
    await until(() => started);
    // Announced while the only worker is busy: nobody is told (no idle worker); it must fetch when done.
    const later = [send("echo two"), send("echo three")];
    await until(() => outcomes.length === 3, 1000);
    await Promise.all([first, ...later]);
    expect(outcomes.sort()).toEqual(["echo echo one", "echo echo three", "echo echo two"]);
  });

  it("processes starting together on a fresh database all start (pg-boss's queue creation can deadlock between them)", async () => {
    for (let round = 0; round < 4; round++) {
      const { start } = layout();
      const apps = await Promise.all([start(true), start(true), start(true), start(false)]);
      expect(await apps[3].dispatcher.send({ agentId: "main", content: `turn r${round}` })).toMatchObject({
        status: "complete",
        text: `done r${round}`,
      });
    }
  });

  it("a dispatch_jobs table made before jobs could be cancelled gets the column on start, and its queued work runs", async () => {
    const { schema, start } = layout();
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`CREATE SCHEMA "${schema}"`);
    // The table as the previous version made it.
    await client.query(`CREATE TABLE "${schema}".dispatch_jobs (
      id text PRIMARY KEY, session_id text NOT NULL, ord bigserial NOT NULL, kind text NOT NULL, payload json NOT NULL,
      state text NOT NULL DEFAULT 'queued', created_at timestamptz NOT NULL DEFAULT clock_timestamp(), finished_at timestamptz)`);
    await start(true);
    const front = await start(false);
    const { rows } = await client.query(
      "SELECT column_default FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'dispatch_jobs' AND column_name = 'cancelled'",
      [schema],
    );
    await client.end();
    expect(rows).toEqual([{ column_default: "false" }]);
    expect(await front.dispatcher.send({ agentId: "main", content: "turn up" })).toMatchObject({
      status: "complete",
      text: "done up",
    });
  });

  it("a turn sent by a process without a runtime runs on a worker; the caller gets every event of it, in order, and its result", async () => {
    const { start } = layout();
    const worker = await start(true);
    const front = await start(false);
    const seenOnWorker: RuntimeEvent[] = [];
    worker.runtime!.events.on("event", (e) => seenOnWorker.push(e));
    const events: RuntimeEvent[] = [];
    for await (const event of front.dispatcher.stream({ agentId: "main", content: "turn a" })) events.push(event);
    const done = events.at(-1)!;
    expect(done.type).toBe("done");
    const result = (done as Extract<RuntimeEvent, { type: "done" }>).result as TurnResult;
    expect(result).toMatchObject({ status: "complete", text: "done a", created: true });
    // Every event the worker emitted for that turn, in the same order.
    const workerTurn = seenOnWorker.filter((e) => e.runId === result.runId);
    expect(events.map((e) => [e.type, e.seq])).toEqual(workerTurn.map((e) => [e.type, e.seq]));
    expect(events.map((e) => e.type)).toContain("tool_call_update");
    // send() resolves with the result, on the same session when asked.
    const second = await front.dispatcher.send({ agentId: "main", content: "turn b", session: result.sessionId });
    expect(second).toMatchObject({ status: "complete", text: "done b", sessionId: result.sessionId, created: false });
  });

  it("messages to one session sent at once from two processes run one at a time, in arrival order, each once", async () => {
    const { schema, start } = layout();
    await start(true);
    await start(true);
    const fronts = [await start(false), await start(false)];
    const first = await fronts[0]!.dispatcher.send({ agentId: "main", content: "turn 0" });
    const sessionId = first.sessionId;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        fronts[i % 2]!.dispatcher.send({ agentId: "main", content: `turn ${i + 1}`, session: sessionId }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => "complete"));
    const records = await fronts[0]!.store.load(sessionId);
    // Arrival order: the order the jobs were stored in.
    const { rows } = await fronts[0]!.store.pool.query<{ payload: { content: string } }>(
      `SELECT payload FROM "${schema}".dispatch_jobs WHERE session_id = $1 ORDER BY ord`,
      [sessionId],
    );
    expect(userTexts(records)).toEqual(rows.map((row) => row.payload.content));
    expect(new Set(userTexts(records)).size).toBe(13);
    expect(turnsInterleave(records)).toBe(false);
    const { rows: effects } = await fronts[0]!.store.pool.query<{ key: string; n: string }>(
      `SELECT key, count(*) AS n FROM "${schema}".effects GROUP BY key`,
    );
    expect(effects.length).toBe(13);
    expect(effects.every((e) => e.n === "1")).toBe(true);
  });

  it("a job run twice (a retry, a duplicate wake-up) stores nothing twice and runs no tool twice: the second run reports the stored outcome", async () => {
    const { schema, start } = layout();
    const worker = await start(true);
    const front = await start(false);
    const result = await front.dispatcher.send({ agentId: "main", content: "turn once" });
    const before = await front.store.load(result.sessionId);
    const pool = front.store.pool;
    const done = async () =>
      (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [result.runId]))
        .rows.length > 0;
    // The caller can have its result before the worker marks the job done: wait for that first.
    await until(done);
    // The same job again, as pg-boss would hand it out after an expiry.
    await pool.query(`UPDATE "${schema}".dispatch_jobs SET state = 'queued' WHERE id = $1`, [result.runId]);
    await worker.boss.send("agentry-turns", { sessionId: result.sessionId });
    await until(done);
    const outcomes = await pool.query<{ body: TurnResult }>(
      `SELECT body FROM "${schema}".dispatch_events WHERE job_id = $1 AND kind <> 'event' ORDER BY ord`,
      [result.runId],
    );
    expect(outcomes.rows.length).toBeGreaterThanOrEqual(2);
    for (const row of outcomes.rows)
      expect(row.body).toMatchObject({ status: "complete", text: "done once", runId: result.runId });
    expect(await front.store.load(result.sessionId)).toEqual(before);
    const effects = await pool.query(`SELECT * FROM "${schema}".effects WHERE key = 'once'`);
    expect(effects.rows.length).toBe(1);
  });

  it("a send repeated with the same jobId (a retried HTTP request) enqueues nothing new: both get the one turn's result", async () => {
    const { schema, start } = layout();
    await start(true);
    const fronts = [await start(false), await start(false)];
    const [a, b] = await Promise.all(
      fronts.map((front) =>
        front.dispatcher.send({ agentId: "main", content: "turn keyed", session: "create", jobId: "req-42" }),
      ),
    );
    expect(a).toMatchObject({ status: "complete", text: "done keyed", runId: "req-42" });
    expect(b).toMatchObject({ status: "complete", text: "done keyed", runId: "req-42", sessionId: a!.sessionId });
    const c = await fronts[0]!.dispatcher.send({
      agentId: "main",
      content: "turn keyed",
      session: "create",
      jobId: "req-42",
    });
    expect(c.sessionId).toBe(a!.sessionId);
    const pool = fronts[0]!.store.pool;
    expect((await pool.query(`SELECT * FROM "${schema}".dispatch_jobs`)).rows.length).toBe(1);
    expect(userTexts(await fronts[0]!.store.load(a!.sessionId))).toEqual(["turn keyed"]);
    expect((await pool.query(`SELECT * FROM "${schema}".effects`)).rows.length).toBe(1);
    await expect(fronts[0]!.dispatcher.send({ agentId: "main", content: "x", jobId: "bad id" })).rejects.toSatisfy(
      (e: unknown) => InvalidArgumentError.isInstance(e),
    );
  });

  it("two workers on one job at once (a duplicate wake-up while it runs): the turn runs once", async () => {
    const { schema, start } = layout();
    const a = await start(true);
    await start(true);
    const front = await start(false);
    const pool = front.store.pool;
    const pending = front.dispatcher.send({ agentId: "main", content: "slow dup" });
    await until(
      async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'dup-1'`)).rows.length > 0,
    );
    const [job] = (await pool.query<{ session_id: string }>(`SELECT session_id FROM "${schema}".dispatch_jobs`)).rows;
    // A second wake-up for the session while its job runs: another worker takes it and waits.
    await a.boss.send("agentry-turns", { sessionId: job!.session_id });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('dup-2')`);
    const result = await pending;
    expect(result).toMatchObject({ status: "complete", text: "done dup" });
    const records = await front.store.load(result.sessionId);
    expect(userTexts(records)).toEqual(["slow dup"]);
    expect(turnsInterleave(records)).toBe(false);
    const effects = await pool.query<{ key: string }>(`SELECT key FROM "${schema}".effects ORDER BY key`);
    expect(effects.rows.map((r) => r.key)).toEqual(["dup-1", "dup-2"]);
  });

  it("one approval resolved from two processes at once: one resumes the turn on a worker, the other gets ApprovalAlreadyResolvedError; the tool runs once", async () => {
    const { schema, start } = layout();
    await start(true);
    const fronts = [await start(false), await start(false)];
    const suspended = await fronts[0]!.dispatcher.send({ agentId: "main", content: "approve x" });
    expect(suspended.status).toBe("suspended");
    const requestId = suspended.pendingApprovals![0]!.requestId;
    const settled = await Promise.allSettled(
      fronts.map((front) => front.dispatcher.resolveApproval(requestId, { approved: true })),
    );
    const won = settled.filter((s): s is PromiseFulfilledResult<TurnResult> => s.status === "fulfilled");
    const lost = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(won.length).toBe(1);
    expect(won[0]!.value).toMatchObject({ status: "complete", text: "paid x" });
    expect(lost.length).toBe(1);
    expect(ApprovalAlreadyResolvedError.isInstance(lost[0]!.reason)).toBe(true);
    const pool = fronts[0]!.store.pool;
    expect((await pool.query(`SELECT * FROM "${schema}".effects WHERE key = 'pay-x'`)).rows.length).toBe(1);
    const decisions = (await fronts[0]!.store.load(suspended.sessionId)).filter(
      (r) => r.kind === "approval" && r.decision !== undefined,
    );
    expect(decisions.length).toBe(1);
    // The winning decision's job run again (a retry): it reports the resumed turn, not an error, and resumes nothing twice.
    const { rows } = await pool.query<{ id: string }>(
      `SELECT j.id FROM "${schema}".dispatch_jobs j WHERE kind = 'resolve' AND EXISTS (SELECT 1 FROM "${schema}".dispatch_events e WHERE e.job_id = j.id AND e.kind = 'result')`,
    );
    expect(rows.length).toBe(1);
    const count = (await fronts[0]!.store.load(suspended.sessionId)).length;
    // (Two wake-ups for the session may already have run it twice: each run adds an outcome row.)
    const outcomesOf = async () =>
      (
        await pool.query<{ body: TurnResult }>(
          `SELECT body FROM "${schema}".dispatch_events WHERE job_id = $1 AND kind <> 'event' ORDER BY ord`,
          [rows[0]!.id],
        )
      ).rows.map((r) => r.body.status);
    const before = (await outcomesOf()).length;
    await pool.query(`UPDATE "${schema}".dispatch_jobs SET state = 'queued' WHERE id = $1`, [rows[0]!.id]);
    await fronts[0]!.boss.send("agentry-turns", { sessionId: suspended.sessionId });
    await until(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [rows[0]!.id]))
          .rows.length === 1,
    );
    const again = await outcomesOf();
    expect(again.length).toBeGreaterThan(before);
    expect(again).toEqual(again.map(() => "complete"));
    expect((await fronts[0]!.store.load(suspended.sessionId)).length).toBe(count);
    expect((await pool.query(`SELECT * FROM "${schema}".effects WHERE key = 'pay-x'`)).rows.length).toBe(1);
  });

  it("an ask_user question answered from two processes without a runtime at once: the turn resumes once, on a worker; the other gets ApprovalAlreadyResolvedError", async () => {
    const { schema, start } = layout();
    const worker = await start(true);
    const fronts = [await start(false), await start(false)];
    const events: RuntimeEvent[] = [];
    for await (const event of fronts[0]!.dispatcher.stream({ agentId: "asker", content: "ask list" }))
      events.push(event);
    const asked = events.find((e): e is Extract<RuntimeEvent, { type: "question" }> => e.type === "question");
    expect(asked).toBeDefined();
    const suspended = (events.at(-1) as Extract<RuntimeEvent, { type: "done" }>).result as TurnResult;
    expect(suspended.status).toBe("suspended");
    expect(await worker.runtime!.pendingQuestions()).toMatchObject([
      { questionId: asked!.questionId, sessionId: suspended.sessionId },
    ]);
    const settled = await Promise.allSettled(
      fronts.map((front) => front.dispatcher.answerQuestion(asked!.questionId, { value: "b" })),
    );
    const won = settled.filter((s): s is PromiseFulfilledResult<TurnResult> => s.status === "fulfilled");
    const lost = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    expect(won.length).toBe(1);
    expect(won[0]!.value).toMatchObject({
      status: "complete",
      text: 'answered list {"answer":"b","label":"B"}',
      sessionId: suspended.sessionId,
    });
    expect(lost.length).toBe(1);
    expect(ApprovalAlreadyResolvedError.isInstance(lost[0]!.reason)).toBe(true);
    expect(await worker.runtime!.pendingQuestions()).toEqual([]);
    const records = await fronts[0]!.store.load(suspended.sessionId);
    // One decision, one answer reaching the model, one user message, one turn resumed.
    expect(records.filter((r) => r.kind === "approval" && r.decision !== undefined).length).toBe(1);
    const toolResults = records.flatMap((r) =>
      r.kind === "message" && r.frame === null && r.message.role === "tool" ? r.message.content : [],
    );
    expect(toolResults.map((part) => part.name)).toEqual(["ask_user"]);
    const answers = records.flatMap((r) =>
      r.kind === "message" &&
      r.frame === null &&
      r.message.role === "assistant" &&
      JSON.stringify(r.message.content).includes("answered list")
        ? [r.message]
        : [],
    );
    expect(answers.length).toBe(1);
    expect(userTexts(records)).toEqual(["ask list"]);
    expect(turnsInterleave(records)).toBe(false);
    expect(
      historyProblems(records.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []))),
    ).toEqual([]);
    // The winning answer's job run again (a retry): it reports the resumed turn and appends nothing.
    const pool = fronts[0]!.store.pool;
    const { rows } = await pool.query<{ id: string }>(
      `SELECT j.id FROM "${schema}".dispatch_jobs j WHERE kind = 'answer' AND EXISTS (SELECT 1 FROM "${schema}".dispatch_events e WHERE e.job_id = j.id AND e.kind = 'result')`,
    );
    expect(rows.length).toBe(1);
    await pool.query(`UPDATE "${schema}".dispatch_jobs SET state = 'queued' WHERE id = $1`, [rows[0]!.id]);
    await fronts[0]!.boss.send("agentry-turns", { sessionId: suspended.sessionId });
    await until(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [rows[0]!.id]))
          .rows.length === 1,
    );
    const outcomes = await pool.query<{ kind: string; body: TurnResult }>(
      `SELECT kind, body FROM "${schema}".dispatch_events WHERE job_id = $1 AND kind <> 'event' ORDER BY ord`,
      [rows[0]!.id],
    );
    expect(outcomes.rows.map((r) => [r.kind, r.body.status])).toEqual(outcomes.rows.map(() => ["result", "complete"]));
    expect((await fronts[0]!.store.load(suspended.sessionId)).length).toBe(records.length);
    expect(worker.problems).toEqual([]);
  });

  it("errors of work run on a worker come back to the caller as their own typed errors", async () => {
    const { start } = layout();
    const worker = await start(true);
    const front = await start(false);
    const result = await front.dispatcher.send({ agentId: "main", content: "hello there" });
    expect(result.text).toBe("echo hello there");
    // The front has no registry: the worker's runtime finds no such agent.
    await expect(front.dispatcher.send({ agentId: "ghost", content: "hi" })).rejects.toSatisfy(
      (e: unknown) => AgentNotFoundError.isInstance(e) && e.agentId === "ghost",
    );
    // Found missing before anything is enqueued.
    await expect(front.dispatcher.answerQuestion("nope", { value: "x" })).rejects.toSatisfy((e: unknown) =>
      ApprovalNotFoundError.isInstance(e),
    );
    expect(worker.problems).toEqual([]);
  });

  it("close() lets the running turn finish, hands the session's queued work back, and stops fetching", async () => {
    const { schema, start } = layout();
    const a = await start(true, { concurrency: 1 });
    const front = await start(false);
    const pool = front.store.pool;
    const first = front.dispatcher.send({ agentId: "main", content: "slow c1" });
    await until(async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'c1-1'`)).rows.length > 0);
    const sessionId = (await pool.query<{ session_id: string }>(`SELECT session_id FROM "${schema}".dispatch_jobs`))
      .rows[0]!.session_id;
    const second = front.dispatcher.send({ agentId: "main", content: "turn c2", session: sessionId });
    await until(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE state = 'queued'`)).rows.length === 2,
    );
    let closed = false;
    const closing = a.dispatcher.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closed).toBe(false); // still finishing the running turn
    await pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('c1-2')`);
    await closing;
    expect(await first).toMatchObject({ status: "complete", text: "done c1" });
    expect(a.dispatcher.running).toBe(0);
    // The second job was handed back, not run here: a new worker takes it.
    expect(
      (await pool.query(`SELECT state FROM "${schema}".dispatch_jobs WHERE payload->>'content' = 'turn c2'`)).rows[0],
    ).toEqual({ state: "queued" });
    const b = await start(true);
    const ranOnB: string[] = [];
    b.runtime!.events.on("event", (e) => ranOnB.push(e.runId));
    const result = await second;
    expect(result).toMatchObject({ status: "complete", text: "done c2" });
    expect(ranOnB).toContain(result.runId);
    await expect(a.dispatcher.send({ agentId: "main", content: "turn late" })).rejects.toSatisfy((e: unknown) =>
      InvalidArgumentError.isInstance(e),
    );
    const records = await front.store.load(sessionId);
    expect(
      historyProblems(records.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []))),
    ).toEqual([]);
  });

  it("rejects bad options with InvalidArgumentError", () => {
    expect(() => createPgBossDispatcher({} as never)).toThrow(/boss/);
  });
});
