import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { checkLiveEventsAcrossProcesses } from "./fixtures/live-events-across-processes.js";

describe("live events across processes (SQLite)", { timeout: 60_000 }, () => {
  it("a client of this process's event log gets the events of a turn running in another process while it runs, in order; tenants stay apart", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-live-")), "sessions.db");
    const store = new SqliteSessionStore({ path });
    try {
      await checkLiveEventsAcrossProcesses({
        kind: "sqlite",
        location: path,
        env: {},
        store,
        listening: async () => undefined,
      });
    } finally {
      store.close();
    }
  });
});
