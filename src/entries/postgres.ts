/**
 * `@agentry/core/postgres`: the PostgreSQL session store, for runtimes in many processes on many
 * machines sharing one database. Needs `pg` installed (an optional peer dependency: only this
 * entry loads it).
 *
 * @example
 * import { PostgresSessionStore } from "@agentry/core/postgres";
 * const store = new PostgresSessionStore({ connectionString: process.env.DATABASE_URL! });
 *
 * @module \@agentry/core/postgres
 */

export { PostgresSessionStore } from "../postgres/postgres-session-store.js";
export type { PostgresSessionStoreOptions } from "../postgres/postgres-session-store.js";
export { POSTGRES_SCHEMA_VERSION } from "../postgres/postgres-migrations.js";
export { createPgBossDispatcher } from "../postgres/pg-boss-dispatcher.js";
export type {
  DispatchDecision,
  DispatchInput,
  PgBossDispatcher,
  PgBossDispatcherOptions,
} from "../postgres/pg-boss-dispatcher.js";
