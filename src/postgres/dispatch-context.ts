import type pg from "pg";
import type PgBoss from "pg-boss";
import { SessionStoreError } from "../errors/errors.js";
import type { AgentRuntime } from "../contracts/agent-runtime.js";
import { quoteIdent } from "./postgres-migrations.js";

import type { PostgresSessionStore } from "./postgres-session-store.js";

/** The dispatcher's settings, checked. */
export interface DispatchSettings {
  boss: PgBoss;
  store: PostgresSessionStore;
  runtime: AgentRuntime | undefined;
  queue: string;
  concurrency: number;
  pollIntervalMs: number;
  pollingIntervalSeconds: number;
  sweepIntervalMs: number;
  sweepAfterMs: number;
  retainMs: number;
  claimTtlMs: number;
}

/** What the parts of one dispatcher share: its settings, its database access and its state. */
export interface DispatchContext extends DispatchSettings {
  pool: pg.Pool;
  /** The store's schema, quoted. */
  s: string;
  /** The LISTEN/NOTIFY channel of the store's schema. */
  channel: string;
  /** The notification that wakes idle workers of the queue. */
  wakeMessage: string;
  closing: boolean;
  /** Jobs this process is running now. */
  running: number;
  /** This process's pg-boss worker ids. */
  workIds: string[];
  /** Which of this process's pg-boss workers is running a handler now (by index in `workIds`). */
  busy: boolean[];
  handlers: Set<Promise<unknown>>;
  listener: pg.PoolClient | undefined;
  /** Listening again after the connection dropped: the timer, and the next wait (backoff). */
  relisten: { timer: ReturnType<typeof setTimeout> | undefined; delayMs: number };
  /** Callers waiting here, by job id: woken by a notification. */
  waiting: Map<string, Set<() => void>>;
  /** Callers' waits to end when the dispatcher closes. */
  aborts: Set<(error: Error) => void>;
  /**
   * Turns this process runs for dispatched sends, by job id (a set: a stalled worker's job taken
   * over may run twice at once, both are aborted): aborted when their sender cancels them.
   */
  cancels: Map<string, Set<AbortController>>;
  /** A query on the store's pool; failures as `SessionStoreError`. */
  sql<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]>;
}

/** A dispatcher's shared context over checked settings. */
export function createDispatchContext(settings: DispatchSettings): DispatchContext {
  const pool = settings.store.pool;
  return {
    ...settings,
    pool,
    s: quoteIdent(settings.store.schema),
    channel: `agentry_dispatch_${settings.store.schema}`.slice(0, 63),
    wakeMessage: `w:${settings.queue}`,
    closing: false,
    running: 0,
    workIds: [],
    busy: [],
    handlers: new Set(),
    listener: undefined,
    relisten: { timer: undefined, delayMs: 50 },
    waiting: new Map(),
    aborts: new Set(),
    cancels: new Map(),
    async sql<R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> {
      try {
        return (await pool.query<R>(text, params)).rows;
      } catch (error) {
        throw new SessionStoreError(
          `Dispatcher: database call failed: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    },
  };
}
