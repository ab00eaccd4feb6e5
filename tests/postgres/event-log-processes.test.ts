import { describe, it } from "vitest";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { checkLiveEventsAcrossProcesses } from "../delivery/fixtures/live-events-across-processes.js";
import { databaseUrl, requireDatabase, storeOnFreshSchema } from "./database.js";

describe("live events across processes (Postgres)", { timeout: 60_000 }, () => {
  if (!requireDatabase()) return;

  it("a client of this process's event log gets the events of a turn running in another process while it runs, in order; tenants stay apart", async () => {
    const store = storeOnFreshSchema();
    const prober = new PostgresSessionStore({ connectionString: databaseUrl!, schema: store.schema });
    try {
      await checkLiveEventsAcrossProcesses({
        kind: "postgres",
        location: "-",
        env: { AGENTRY_PG_SCHEMA: store.schema },
        store,
        // The store listens once a signal from another store object reaches it.
        async listening() {
          let heard = false;
          const stop = store.subscribe("probe", (signal) => (heard ||= signal.key === "probe"));
          while (!heard) {
            await prober.notify({ topic: "probe", key: "probe" });
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          stop();
        },
      });
    } finally {
      await prober.close();
      await store.close();
    }
  });
});
