import pg from "pg";
import { it } from "vitest";
import { PostgresSessionStore } from "@agentry/core/postgres";

/** The server the Postgres tests use (scripts/with-postgres.sh sets it up). */
export const databaseUrl = process.env.DATABASE_URL;

/**
 * Without `DATABASE_URL` the Postgres tests cannot run, and that is a failure (a test that says
 * so), never a skip: `npm test` runs them inside `scripts/with-postgres.sh`. Returns whether the
 * tests can run.
 */
export function requireDatabase(): boolean {
  if (databaseUrl !== undefined && databaseUrl !== "") return true;
  it("needs a PostgreSQL server", () => {
    throw new Error(
      "DATABASE_URL is unset: run the tests through scripts/with-postgres.sh (it starts a throwaway PostgreSQL) or point DATABASE_URL at a server",
    );
  });
  return false;
}

/** A fresh schema name per store, so tests share one database without seeing each other's rows. */
export const freshSchema = (): string => `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;

/** A store on its own new schema; `close()` drops the schema and ends the store's pool. */
export function storeOnFreshSchema(options: { schema?: string } = {}): PostgresSessionStore {
  const schema = options.schema ?? freshSchema();
  const store = new PostgresSessionStore({ connectionString: databaseUrl!, schema, max: 4 });
  const close = store.close.bind(store);
  store.close = async () => {
    await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await close();
  };
  return store;
}

/** A plain client on the test database (for what a test does behind the store's back). */
export async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => undefined);
  await client.connect();
  return client;
}
