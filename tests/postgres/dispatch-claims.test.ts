import { describe, expect, it } from "vitest";
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

describe("pg-boss dispatcher: a worker claims the session it drains", { timeout: 120_000 }, () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();

  it("a fleet of 3 worker slots runs 3 sessions: one long turn woken again and again takes one slot, its caller gets its one result", async () => {
    const { schema, start } = layout();
    const worker = await start(true, { concurrency: 3 });
    const front = await start(false);
    const pool = front.store.pool;
    const long = front.dispatcher.send({ agentId: "main", content: "slow long" });
    await until(
      async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'long-1'`)).rows.length > 0,
    );
    const job = (
      await pool.query<{ id: string; session_id: string }>(`SELECT id, session_id FROM "${schema}".dispatch_jobs`)
    ).rows[0]!;
    // Woken again while it runs, as a sweep did every interval: each wake-up is taken by a free slot and done at once.
    for (let i = 0; i < 3; i++) {
      const wake = (await worker.boss.send("agentry-turns", { sessionId: job.session_id }))!;
      await until(async () => (await worker.boss.getJobById("agentry-turns", wake))?.state === "completed");
    }
    expect(worker.dispatcher.running).toBe(1);
    const others = await Promise.all(
      ["x", "y"].map((label) =>
        front.dispatcher.send({ agentId: "main", content: `turn ${label}`, session: "create" }),
      ),
    );
    expect(others.map((r) => r.text)).toEqual(["done x", "done y"]);
    await pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('long-2')`);
    expect(await long).toMatchObject({ status: "complete", text: "done long" });
    await until(
      async () =>
        (await pool.query(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [job.id])).rows
          .length > 0,
    );
    const outcomes = await pool.query(
      `SELECT kind FROM "${schema}".dispatch_events WHERE job_id = $1 AND kind <> 'event'`,
      [job.id],
    );
    expect(outcomes.rows).toEqual([{ kind: "result" }]);
    // Given up once drained.
    await until(async () => (await pool.query(`SELECT 1 FROM "${schema}".dispatch_claims`)).rows.length === 0);
  });

  it("the claim of a worker that died while draining a session is taken over once its heartbeat is older than the claim's ttl", async () => {
    const { schema, start } = layout();
    await start(true, { sweepAfterMs: 200 });
    const front = await start(false);
    const pool = front.store.pool;
    const first = await front.dispatcher.send({ agentId: "main", content: "turn one" });
    await until(async () => (await pool.query(`SELECT 1 FROM "${schema}".dispatch_claims`)).rows.length === 0);
    // What a worker that died while draining the session leaves behind: its claim, beating no more.
    await pool.query(
      `INSERT INTO "${schema}".dispatch_claims (session_id, owner, heartbeat_at) VALUES ($1, 'dead-worker', clock_timestamp())`,
      [first.sessionId],
    );
    const second = await front.dispatcher.send({ agentId: "main", content: "turn two", session: first.sessionId });
    expect(second).toMatchObject({ status: "complete", text: "done two", sessionId: first.sessionId });
    // The new claim is given up once the session is drained (the caller can have its result first).
    await until(async () => (await pool.query(`SELECT 1 FROM "${schema}".dispatch_claims`)).rows.length === 0);
  });

  it("a worker whose claim was taken over stores no event and no outcome for the session's jobs", async () => {
    const { schema, start } = layout();
    const worker = await start(true);
    const front = await start(false);
    const pool = front.store.pool;
    const pending = front.dispatcher.send({ agentId: "main", content: "slow gone" });
    await until(
      async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'gone-1'`)).rows.length > 0,
    );
    const job = (
      await pool.query<{ id: string; session_id: string }>(`SELECT id, session_id FROM "${schema}".dispatch_jobs`)
    ).rows[0]!;
    const events = async () =>
      Number(
        (
          await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".dispatch_events WHERE job_id = $1`, [
            job.id,
          ])
        ).rows[0]!.n,
      );
    // Quiet: the gated call has started (nothing more happens until its gate opens).
    await until(
      async () =>
        (
          await pool.query(
            `SELECT 1 FROM "${schema}".dispatch_events WHERE job_id = $1 AND body->>'name' = 'slow_effect' AND body->>'status' = 'start'`,
            [job.id],
          )
        ).rows.length > 0,
    );
    const stored = await events();
    // Another worker took the session over (this one stalled past the claim's ttl, say).
    await pool.query(`UPDATE "${schema}".dispatch_claims SET owner = 'successor'`);
    await pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('gone-2')`);
    await until(
      async () => (await pool.query(`SELECT 1 FROM "${schema}".effects WHERE key = 'gone-2'`)).rows.length > 0,
    );
    await until(() => worker.dispatcher.running === 0);
    expect(await events()).toBe(stored);
    expect((await pool.query(`SELECT state FROM "${schema}".dispatch_jobs WHERE id = $1`, [job.id])).rows).toEqual([
      { state: "queued" },
    ]);
    // The successor died too (its claim runs out): the next wake-up runs the job again and reports the stored outcome.
    await pool.query(`UPDATE "${schema}".dispatch_claims SET heartbeat_at = clock_timestamp() - interval '1 hour'`);
    await worker.boss.send("agentry-turns", { sessionId: job.session_id });
    expect(await pending).toMatchObject({ status: "complete", text: "done gone" });
    const effects = await pool.query<{ key: string }>(`SELECT key FROM "${schema}".effects ORDER BY key`);
    expect(effects.rows.map((r) => r.key)).toEqual(["gone-1", "gone-2"]);
  });
});
