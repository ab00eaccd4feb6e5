/**
 * `@agentry/core/sqlite`: the SQLite session store, the embedded default for apps. Needs
 * `better-sqlite3` installed (an optional peer dependency: only this entry loads it).
 *
 * @example
 * import { SqliteSessionStore } from "@agentry/core/sqlite";
 * const store = new SqliteSessionStore({ path: "agentry.db" });
 *
 * @module \@agentry/core/sqlite
 */

export { SqliteSessionStore } from "../sqlite/sqlite-session-store.js";
export type { SqliteSessionStoreOptions } from "../sqlite/sqlite-session-store.js";
export type { SqliteDatabase, SqliteStatement } from "../sqlite/sqlite-database.js";
