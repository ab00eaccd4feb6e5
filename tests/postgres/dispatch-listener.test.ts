import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@agentry/core";
import { adminClient, requireDatabase } from "./database.js";
import { useDispatchLayouts } from "./fixtures/dispatch-layout.js";

describe("the dispatcher's notifications", { timeout: 30_000 }, () => {
  if (!requireDatabase()) return;
  const layout = useDispatchLayouts();

  it("a listening connection that drops is opened again, and callers get their job's events without waiting for the fallback", async () => {
    const { schema, start } = layout();
    // A fallback read once a minute: within the test, only notifications can bring the outcome.
    await start(true, { pollIntervalMs: 60_000 });
    const front = await start(false, { pollIntervalMs: 60_000 });
    // Warm up: both listen.
    expect((await front.dispatcher.send({ agentId: "main", content: "first" })).status).toBe("complete");
    const admin = await adminClient();
    try {
      const { rows } = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`,
        [`LISTEN "agentry_dispatch_${schema}%`],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (const { pid } of rows) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      // Both listen again.
      for (let i = 0; i < 500; i++) {
        const again = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE query LIKE $1`, [
          `LISTEN "agentry_dispatch_${schema}%`,
        ]);
        if (again.rows.length >= rows.length) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await admin.end();
    }
    const events: RuntimeEvent[] = [];
    for await (const event of front.dispatcher.stream({ agentId: "main", content: "second" })) events.push(event);
    expect(events.at(-1)?.type).toBe("done");
  });
});
