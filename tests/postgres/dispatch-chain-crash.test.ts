import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { historyProblems } from "@agentry/core/testing";
import { databaseUrl, freshSchema, requireDatabase } from "./database.js";
import { startApp, type App } from "./fixtures/dispatch-app.js";
import { bundleDispatchWorker, startChild, type Child } from "./fixtures/dispatch-children.js";

/** Where the worker that runs the decision dies (see `AppOptions.dieAt`), in the order the resume goes. */
const POINTS = ["decision", "helper-end", "answer", "main-start"] as const;

describe("a dispatched chain resume survives the SIGKILL of the worker running it", { timeout: 240_000 }, () => {
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

  it.each(POINTS)(
    "killed at %s: the other worker finishes the chain, the front's resolveApproval returns the conversation's outcome, the payment ran once",
    async (at) => {
      const schema = freshSchema();
      const bossSchema = `${schema}_boss`;
      const front = await startApp({ databaseUrl: databaseUrl!, schema, bossSchema, worker: false });
      apps.push(front);
      // Both workers would die at the point: the first to get there does (a row decides), the other finishes.
      const workers = [0, 1].map(() => startChild(bundle.path, [schema, bossSchema, "2"], { AGENTRY_DIE_AT: at }));
      children.push(...workers);
      await Promise.all(workers.map((w) => w.printed("READY")));

      const asked = await front.dispatcher.send({ agentId: "main", content: "delegate pay-x" });
      expect(asked.status).toBe("suspended");
      const request = asked.pendingApprovals![0]!;
      expect(request.name).toBe("pay");
      const started = Date.now();
      const decided = await front.dispatcher.resolveApproval(request.requestId, { approved: true });
      const recoveryMs = Date.now() - started;

      const died = await Promise.race(workers.map((w) => w.exited.then((how) => [w, how] as const)));
      expect(died[1]).toBe("SIGKILL");
      expect(died[0].stdout()).toContain(`DYING ${at}`);
      // The top-level conversation's outcome: main's resumed turn, never the helper's.
      expect(decided).toMatchObject({ status: "complete", text: "delegated pay-x", sessionId: asked.sessionId });
      const { rows } = await front.store.pool.query<{ key: string }>(
        `SELECT key FROM "${schema}".effects WHERE key LIKE 'pay-%'`,
      );
      expect(rows.map((r) => r.key)).toEqual(["pay-x"]);
      const main = await front.store.load(asked.sessionId);
      const turns = main.filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn");
      expect(turns.at(-1)).toMatchObject({ phase: "end", status: "complete" });
      expect(
        historyProblems(main.flatMap((r) => (r.kind === "message" && r.frame === null ? [r.message] : []))),
      ).toEqual([]);
      expect(
        await front.dispatcher.send({ agentId: "main", content: "hello", session: asked.sessionId }),
      ).toMatchObject({ status: "complete", text: "echo hello" });
      console.log(`dispatch chain crash at ${at}: resolveApproval answered after ${recoveryMs} ms`);
    },
  );
});
