import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe } from "vitest";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { bundleQueueWorker, queuedProcessChecks, type QueueWorker } from "./queued-process-checks.js";

let worker: QueueWorker | undefined;
beforeAll(async () => {
  worker = await bundleQueueWorker();
}, 60_000);
afterAll(() => worker?.remove());

describe("queued messages across processes on one SQLite file", { timeout: 240_000 }, () => {
  queuedProcessChecks(
    () => worker!,
    () => {
      const path = join(mkdtempSync(join(tmpdir(), "agentry-queued-")), "s.db");
      return {
        args: ["sqlite", path],
        env: {},
        store: new SqliteSessionStore({ path }),
        marks: () => readFileSync(`${path}.marks`, "utf8"),
      };
    },
  );
});
