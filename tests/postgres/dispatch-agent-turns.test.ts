import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { historyProblems } from "@agentry/core/testing";
import { databaseUrl, freshSchema, requireDatabase } from "./database.js";
import { startApp, type App } from "./fixtures/dispatch-app.js";
import { bundleDispatchWorker, startChild, type Child } from "./fixtures/dispatch-children.js";

/** Polls `check` every 50 ms, at most `polls` times (a count, not a time). */
async function until(check: () => Promise<boolean> | boolean, polls = 1200): Promise<void> {
  for (let i = 0; i < polls; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("condition never held");
}

const texts = (records: HistoryRecord[], role: "user" | "assistant"): string[] =>
  records.flatMap((r) => {
    if (r.kind !== "message" || r.frame !== null || r.message.role !== role) return [];
    const content = r.message.content;
    return typeof content === "string" ? [content] : content.flatMap((p) => (p.type === "text" ? [p.text] : []));
  });

describe("agent-to-agent turns dispatched across real worker processes", { timeout: 240_000 }, () => {
  if (!requireDatabase()) return;
  let bundle: { path: string; remove: () => void };
  const children: Child[] = [];
  const apps: App[] = [];
  beforeAll(async () => {
    bundle = await bundleDispatchWorker();
  }, 60_000);
  afterAll(async () => {
    for (const c of children) c.child.kill("SIGKILL");
    for (const app of apps) {
      await app.store.pool.query(`DROP SCHEMA IF EXISTS "${app.store.schema}" CASCADE`).catch(() => undefined);
      await app.close();
    }
    bundle?.remove();
  });

  /** A front process (enqueues only) on a fresh database layout, and a starter of worker children on it. */
  async function layout(env: Record<string, string> = {}) {
    const schema = freshSchema();
    const bossSchema = `${schema}_boss`;
    const front = await startApp({ databaseUrl: databaseUrl!, schema, bossSchema, worker: false });
    apps.push(front);
    const worker = async (concurrency: number) => {
      const child = startChild(bundle.path, [schema, bossSchema, String(concurrency)], env);
      children.push(child);
      await child.printed("READY");
      return child;
    };
    const sql = async <T extends object>(text: string, values: unknown[] = []) =>
      (await front.store.pool.query<T>(text, values)).rows;
    /** Resolves once no job is queued or running and the job count held still for five polls. */
    const settled = async () => {
      let last = -1;
      let still = 0;
      await until(async () => {
        const [row] = await sql<{ total: string; open: string }>(
          `SELECT count(*) AS total, count(*) FILTER (WHERE state = 'queued') AS open FROM "${schema}".dispatch_jobs`,
        );
        const total = Number(row!.total);
        still = row!.open === "0" && total === last ? still + 1 : 0;
        last = total;
        return still >= 5;
      });
    };
    return { schema, front, worker, sql, settled };
  }

  it("an async agents_message survives the death of the worker that sent it: another worker runs the helper's turn, once", async () => {
    const { schema, front, worker, sql } = await layout();
    // One slot: while the caller's turn waits in slow_effect, the handed-over turn cannot start here.
    const doomed = await worker(1);
    const pending = front.dispatcher.send({ agentId: "main", content: "async x" });
    await doomed.printed("SLOW_STARTED x-2");
    // The hand-off is a job row, stored before the tool's result.
    const [job] = await sql<{ id: string; session_id: string; state: string }>(
      `SELECT id, session_id, state FROM "${schema}".dispatch_jobs WHERE kind = 'agent_turn'`,
    );
    expect(job).toMatchObject({ state: "queued" });
    expect(job!.id).toMatch(/^a2a-[0-9a-f]{40}$/);
    doomed.child.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");

    await worker(2);
    await sql(`INSERT INTO "${schema}".gate (key) VALUES ('x-2'), ('x-h')`);
    const result = await pending;
    expect(result).toMatchObject({ status: "complete", text: "done x" });

    await until(
      async () =>
        (await sql(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [job!.id])).length === 1,
    );
    const helper = await front.store.load(job!.session_id);
    expect(texts(helper, "user")).toEqual(["help gated-x"]);
    expect(texts(helper, "assistant").at(-1)).toBe("helped with help gated-x");
    const turns = helper.filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn");
    expect(turns.map((t) => `${t.phase}:${t.status ?? ""}`)).toEqual(["start:", "end:complete"]);
    expect(turns[0]!.runId).toBe(job!.id);
    expect(
      historyProblems(helper.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []))),
    ).toEqual([]);

    // The job run again (a duplicate wake-up, a retry): its stored outcome, nothing appended, nothing run.
    await sql(`UPDATE "${schema}".dispatch_jobs SET state = 'queued' WHERE id = $1`, [job!.id]);
    await front.boss.send("agentry-turns", { sessionId: job!.session_id });
    await until(
      async () =>
        (await sql(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE id = $1 AND state = 'done'`, [job!.id])).length === 1,
    );
    expect(await front.store.load(job!.session_id)).toHaveLength(helper.length);
    const effects = await sql<{ key: string }>(`SELECT key FROM "${schema}".effects WHERE key = 'x-h'`);
    expect(effects).toHaveLength(1);
  });

  it("send_agent_message ping-pong between two worker processes ends at maxAgentHops", async () => {
    const { schema, front, worker, sql, settled } = await layout({
      AGENTRY_MAX_AGENT_HOPS: "4",
      AGENTRY_MAX_LLM_CALLS: "1000",
      AGENTRY_COUNT_CALLS: "1",
    });
    await worker(2);
    await worker(2);
    const result = await front.dispatcher.send({ agentId: "pinger", content: "ping p" });
    expect(result).toMatchObject({ status: "complete", text: "sent" });
    await settled();
    const jobs = await sql<{ kind: string; payload: { hops?: number } }>(
      `SELECT kind, payload FROM "${schema}".dispatch_jobs ORDER BY ord`,
    );
    // The root send, then hops 1 (the background ponger) to 4; hop 5 was refused.
    expect(jobs.map((j) => (j.kind === "agent_turn" ? j.payload.hops : j.kind))).toEqual(["send", 1, 2, 3, 4]);
    const sessions = await front.store.listSessions();
    const records = (await Promise.all(sessions.map((s) => front.store.load(s.sessionId)))).flat();
    const refusals = records.flatMap((r) =>
      r.kind === "message" && r.message.role === "tool"
        ? r.message.content.filter((p) => p.isError).map((p) => String(p.result))
        : [],
    );
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain("limited to 4 hops; this one would be hop 5");
    const calls = await sql(`SELECT 1 FROM "${schema}".effects WHERE key LIKE 'llm:%'`);
    expect(calls).toHaveLength(2 * 5);
  });

  it("background agents spread over worker processes share the root turn's model calls: never more than its maxTotalLlmCalls", async () => {
    const { schema, front, worker, sql, settled } = await layout({
      AGENTRY_MAX_LLM_CALLS: "10",
      AGENTRY_MAX_AGENT_HOPS: "64",
      AGENTRY_MAX_BACKGROUND_AGENTS: "64",
      AGENTRY_COUNT_CALLS: "1",
    });
    await worker(2);
    await worker(2);
    const result = await front.dispatcher.send({ agentId: "spreader", content: "spread s" });
    expect(["complete", "budget_exceeded"]).toContain(result.status);
    await settled();
    const handed = await sql(`SELECT 1 FROM "${schema}".dispatch_jobs WHERE kind = 'agent_turn'`);
    const calls = await sql<{ pid: number }>(`SELECT pid FROM "${schema}".effects WHERE key = 'llm:spreader'`);
    // It spread (background agents of background agents), and all of them together stayed within 10.
    expect(handed.length).toBeGreaterThan(3);
    expect(calls.length).toBeGreaterThan(4);
    expect(calls.length).toBeLessThanOrEqual(10);
  });
});
