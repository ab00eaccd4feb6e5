import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { historyProblems } from "@agentry/core/testing";
import { databaseUrl, freshSchema, requireDatabase } from "./database.js";
import { startApp, type App } from "./fixtures/dispatch-app.js";
import { bundleDispatchWorker, startChild, type Child } from "./fixtures/dispatch-children.js";

describe("dispatch across real worker processes", { timeout: 180_000 }, () => {
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

  it("a worker SIGKILLed mid-turn: another worker takes the session over once its lease expires, reuses the stored tool result, runs nothing twice, and the caller gets the continued turn's result", async () => {
    const schema = freshSchema();
    const bossSchema = `${schema}_boss`;
    const front = await startApp({ databaseUrl: databaseUrl!, schema, bossSchema, worker: false });
    apps.push(front);
    const doomed = startChild(bundle.path, [schema, bossSchema, "2"]);
    children.push(doomed);
    await doomed.printed("READY");
    const pending = front.dispatcher.send({ agentId: "main", content: "slow k" });
    await doomed.printed("SLOW_STARTED k-2");
    doomed.child.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");
    const heir = startChild(bundle.path, [schema, bossSchema, "2"]);
    children.push(heir);
    await heir.printed("READY");
    await front.store.pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('k-2')`);
    const result = await pending;
    expect(result.status).toBe("complete");
    expect(result.runId).toMatch(/:retry-1$/);
    expect(result.text).toBe("done k");
    const records: HistoryRecord[] = await front.store.load(result.sessionId);
    const turns = records
      .filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn")
      .map((t) => `${t.phase}:${t.status ?? ""}`);
    expect(turns).toEqual(["start:", "end:error", "start:", "end:complete"]);
    // The first call's result was stored before the crash: reused; the second never finished: never re-run.
    const effects = await front.store.pool.query<{ key: string }>(`SELECT key FROM "${schema}".effects ORDER BY key`);
    expect(effects.rows.map((r) => r.key)).toEqual(["k-1"]);
    const users = records.filter((r) => r.kind === "message" && r.message.role === "user");
    expect(users.length).toBe(1);
    expect(
      historyProblems(records.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []))),
    ).toEqual([]);
  });

  it("SIGTERM closes a worker gracefully: its running turn finishes before it exits", async () => {
    const schema = freshSchema();
    const bossSchema = `${schema}_boss`;
    const front = await startApp({ databaseUrl: databaseUrl!, schema, bossSchema, worker: false });
    apps.push(front);
    const worker = startChild(bundle.path, [schema, bossSchema, "2"]);
    children.push(worker);
    await worker.printed("READY");
    const pending = front.dispatcher.send({ agentId: "main", content: "slow g" });
    await worker.printed("SLOW_STARTED g-2");
    worker.child.kill("SIGTERM");
    await front.store.pool.query(`INSERT INTO "${schema}".gate (key) VALUES ('g-2')`);
    const result = await pending;
    expect(result).toMatchObject({ status: "complete", text: "done g" });
    expect(result.runId).not.toMatch(/retry/);
    expect(await worker.exited).toBe("0");
    expect(worker.stdout()).toContain('CLOSED {"problems":[]}');
  });
});
