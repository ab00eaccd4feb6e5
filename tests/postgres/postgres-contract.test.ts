import { describe } from "vitest";
import { runSessionStoreContract } from "@agentry/core/testing";
import { requireDatabase, storeOnFreshSchema } from "./database.js";

describe("PostgresSessionStore contract", () => {
  if (requireDatabase()) runSessionStoreContract("PostgresSessionStore", () => storeOnFreshSchema());
});
