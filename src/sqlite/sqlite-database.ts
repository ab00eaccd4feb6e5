import type BetterSqlite3 from "better-sqlite3";

/**
 * A better-sqlite3 database, as the store's options and `database` property name it: only the
 * members the store uses, so a host's declarations compile with the `better-sqlite3` package alone
 * (its types live in `@types/better-sqlite3`, which the package does not need). A `Database` from
 * `better-sqlite3` is one.
 */
export interface SqliteDatabase {
  readonly open: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction(fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
}

/** A prepared statement of a {@link SqliteDatabase} (better-sqlite3's `Statement`), for a host's own queries. */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as their first column's value. */
  pluck(toggle?: boolean): SqliteStatement;
}

/** The database as the store drives it (every `SqliteDatabase` the store is given is a better-sqlite3 `Database`). */
export function betterSqlite(database: SqliteDatabase): BetterSqlite3.Database {
  return database as BetterSqlite3.Database;
}
