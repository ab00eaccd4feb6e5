import { describe } from "vitest";
import { runSessionStoreContract } from "@agentry/core/testing";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { databaseUrl, requireDatabase, storeOnFreshSchema } from "./database.js";

describe("PostgresSessionStore contract", () => {
  if (requireDatabase())
    runSessionStoreContract("PostgresSessionStore", () => storeOnFreshSchema(), {
      // Another pool and listening connection on the same schema, as another process has.
      sibling: (store) =>
        new PostgresSessionStore({ connectionString: databaseUrl!, schema: (store as PostgresSessionStore).schema }),
    });
});
