import { afterAll, describe, it } from "vitest";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { restartScenario } from "../delivery/stored-events-scenario.js";
import { databaseUrl, freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";

const stores: PostgresSessionStore[] = [];
afterAll(async () => {
  // The first store drops the schema; the others only end their pools.
  for (const store of stores.reverse()) await store.close();
});

describe("createEventLog({ persist: true }) on Postgres", () => {
  if (!requireDatabase()) return;
  it("after a restart (new runtime, log and store on the same database) replays the missed events in order", async () => {
    const schema = freshSchema();
    await restartScenario(() => {
      const store =
        stores.length === 0
          ? storeOnFreshSchema({ schema })
          : new PostgresSessionStore({ connectionString: databaseUrl!, schema, max: 4 });
      stores.push(store);
      return store;
    });
  });
});
