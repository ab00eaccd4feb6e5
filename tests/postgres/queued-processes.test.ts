import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { bundleQueueWorker, queuedProcessChecks, type QueueWorker } from "../runtime/queued-process-checks.js";
import { freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";

describe("queued messages across processes on one Postgres database", { timeout: 240_000 }, () => {
  if (!requireDatabase()) return;
  let worker: QueueWorker | undefined;
  const stores: { close(): Promise<void> }[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    worker = await bundleQueueWorker();
  }, 60_000);
  afterAll(async () => {
    worker?.remove();
    for (const store of stores) await store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  queuedProcessChecks(
    () => worker!,
    () => {
      const schema = freshSchema();
      const store = storeOnFreshSchema({ schema });
      stores.push(store);
      const dir = mkdtempSync(join(tmpdir(), "agentry-pg-queued-"));
      dirs.push(dir);
      const path = join(dir, "run");
      return {
        args: ["postgres", path],
        env: { AGENTRY_PG_SCHEMA: schema },
        store,
        marks: () => readFileSync(`${path}.marks`, "utf8"),
      };
    },
  );
});
