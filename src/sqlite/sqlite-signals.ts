import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { StoreSignal } from "../contracts/session-store.js";
import { SignalListeners, checkStoreSignal } from "../internal/store-signal.js";

/** How long a signal's row stays in the table: a process that slept longer may miss it (signals are hints). */
export const SIGNAL_RETENTION_MS = 60_000;
/** The fallback re-check right after activity (a signal read or a file change). */
const FIRST_CHECK_MS = 2;
/** Rows read per query. */
const READ_BATCH = 500;

/** Options of {@link SqliteSignals}. */
export interface SqliteSignalsOptions {
  /** The longest the fallback re-check waits when nothing happens (the change signal is the push). */
  idleCheckMs: number;
}

interface SignalRow {
  id: number;
  topic: string;
  key: string;
  data: string | null;
  origin: string;
}

/** Creates the signals table when missing: one row per signal, oldest pruned by `notify`. */
export function createSignalSchema(db: BetterSqlite3.Database, prefix: string): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS ${prefix}signals (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      topic TEXT NOT NULL,
      key TEXT NOT NULL,
      data TEXT,
      origin TEXT NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ${prefix}signals_by_at ON ${prefix}signals (at);
  `);
}

/** The store objects of this process on each connection: a row one writes the others' `data_version` never shows. */
const onConnection = new WeakMap<BetterSqlite3.Database, Set<SqliteSignals>>();

/**
 * The signals of one `SqliteSessionStore` object (see `SignalingSessionStore`): `notify` writes a
 * row and hands the signal to this object's subscribers at once; a watcher reads the rows other
 * connections (other processes) wrote, from the last one it saw. Its push is a watch on the
 * database's folder (the WAL file changes at every commit), checked cheaply with `PRAGMA
 * data_version`; its fallback for a missed file event re-checks 2 ms after activity, backing off to
 * `idleCheckMs` while nothing happens. Its timers and watch never keep the process alive.
 */
export class SqliteSignals {
  readonly #db: BetterSqlite3.Database;
  readonly #listeners = new SignalListeners();
  readonly #origin = globalThis.crypto.randomUUID();
  readonly #idleCheckMs: number;
  readonly #insert: BetterSqlite3.Statement;
  readonly #prune: BetterSqlite3.Statement;
  readonly #after: BetterSqlite3.Statement;
  readonly #last: BetterSqlite3.Statement;
  #lastId = 0;
  #dataVersion = -1;
  #poked = false;
  #delay = FIRST_CHECK_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #watcher: FSWatcher | undefined;
  #watching = false;
  #lastPrune = 0;
  #closed = false;

  constructor(db: BetterSqlite3.Database, prefix: string, options: SqliteSignalsOptions) {
    this.#db = db;
    this.#idleCheckMs = options.idleCheckMs;
    const table = `${prefix}signals`;
    this.#insert = db.prepare(`INSERT INTO ${table} (topic, key, data, origin, at) VALUES (?, ?, ?, ?, ?)`);
    this.#prune = db.prepare(`DELETE FROM ${table} WHERE at < ?`);
    this.#after = db
      .prepare(`SELECT id, topic, key, data, origin FROM ${table} WHERE id > ? ORDER BY id LIMIT ${READ_BATCH}`)
      .safeIntegers(false);
    this.#last = db.prepare(`SELECT COALESCE(MAX(id), 0) FROM ${table}`).pluck().safeIntegers(false);
    let siblings = onConnection.get(db);
    if (!siblings) onConnection.set(db, (siblings = new Set()));
    siblings.add(this);
  }

  /** Stores the signal for the other connections and hands it to this object's subscribers (on a microtask). */
  notify(signal: StoreSignal): void {
    checkStoreSignal("SqliteSessionStore.notify", signal);
    const now = Date.now();
    const data = signal.data === undefined ? null : JSON.stringify(signal.data);
    this.#db
      .transaction(() => {
        this.#insert.run(signal.topic, signal.key, data, this.#origin, now);
        if (now - this.#lastPrune >= SIGNAL_RETENTION_MS / 10) {
          this.#lastPrune = now;
          this.#prune.run(now - SIGNAL_RETENTION_MS);
        }
      })
      .immediate();
    const copy: StoreSignal = { topic: signal.topic, key: signal.key };
    if (data !== null) copy.data = JSON.parse(data) as StoreSignal["data"];
    queueMicrotask(() => this.#listeners.deliver(copy));
    for (const sibling of onConnection.get(this.#db) ?? []) if (sibling !== this) sibling.#poke();
  }

  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void {
    const unsubscribe = this.#listeners.add(topic, listener);
    if (!this.#closed && this.#timer === undefined && !this.#watching) this.#start();
    return unsubscribe;
  }

  /** Stops the watcher and the timers; later signals are neither stored nor delivered. */
  close(): void {
    this.#closed = true;
    this.#stop();
    this.#listeners.clear();
    onConnection.get(this.#db)?.delete(this);
  }

  /** Starts watching from the newest row: signals stored before the first subscriber are not delivered. */
  #start(): void {
    if (!this.#db.open) return;
    this.#lastId = this.#last.get() as number;
    this.#dataVersion = this.#readDataVersion();
    this.#watching = true;
    const file = this.#db.name;
    if (!this.#db.memory && file !== "") {
      try {
        const name = basename(file);
        // The folder, not the files: the WAL file comes and goes.
        this.#watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
          if (changed === null || changed.startsWith(name)) this.#wake(false);
        });
        this.#watcher.on("error", () => this.#unwatch());
      } catch {
        // No file events here (a file system without them): the fallback re-check still runs.
      }
    }
    this.#schedule(FIRST_CHECK_MS);
  }

  #unwatch(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #stop(): void {
    this.#unwatch();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#watching = false;
  }

  /** A store object on this connection wrote a signal (`data_version` does not show it). */
  #poke(): void {
    this.#wake(true);
  }

  /** Something may have changed: check on the next turn of the event loop (`force`: read the rows whatever `data_version` says). */
  #wake(force: boolean): void {
    if (!this.#watching) return;
    if (force) this.#poked = true;
    this.#delay = FIRST_CHECK_MS;
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#check();
    }, ms);
    this.#timer.unref?.();
  }

  #readDataVersion(): number {
    return this.#db.pragma("data_version", { simple: true }) as number;
  }

  /** Reads and delivers the rows after the last one seen when the file changed; schedules the next fallback check. */
  #check(): void {
    if (this.#closed || !this.#db.open) return this.#stop();
    if (this.#listeners.size === 0) return this.#stop();
    let found = false;
    try {
      const version = this.#readDataVersion();
      if (this.#poked || version !== this.#dataVersion) {
        this.#poked = false;
        this.#dataVersion = version;
        found = this.#readNew();
      }
    } catch {
      // A failed read (the file busy or gone): the next check tries again.
    }
    // In memory, every writer is on this connection and pokes: no fallback to run.
    if (this.#db.memory) return;
    this.#delay = found ? FIRST_CHECK_MS : Math.min(this.#delay * 2, this.#idleCheckMs);
    this.#schedule(this.#delay);
  }

  #readNew(): boolean {
    let found = false;
    for (;;) {
      const rows = this.#after.all(this.#lastId) as SignalRow[];
      if (rows.length === 0) return found;
      found = true;
      for (const row of rows) {
        this.#lastId = row.id;
        if (row.origin === this.#origin) continue;
        const signal: StoreSignal = { topic: row.topic, key: row.key };
        if (row.data !== null) signal.data = JSON.parse(row.data) as StoreSignal["data"];
        this.#listeners.deliver(signal);
      }
      if (rows.length < READ_BATCH) return found;
    }
  }
}
