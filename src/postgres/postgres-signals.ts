import pg from "pg";
import type { StoreSignal } from "../contracts/session-store.js";
import { SignalListeners, checkStoreSignal, resyncSignal } from "../internal/store-signal.js";
import { quoteIdent } from "./postgres-migrations.js";

/** The first wait before listening again after the connection dropped (doubling up to {@link MAX_RECONNECT_MS}). */
const FIRST_RECONNECT_MS = 50;
const MAX_RECONNECT_MS = 5_000;

/** What {@link PostgresSignals} needs of its store. */
export interface PostgresSignalsDeps {
  pool: pg.Pool;
  /** The NOTIFY channel (one per schema). */
  channel: string;
  /** Runs one statement on the store's pool (its failure a `SessionStoreError`). */
  query: (sql: string, params: unknown[]) => Promise<unknown>;
}

/** A signal as it travels: who sent it (a store object) and its number there, so no two payloads are equal. */
interface Payload {
  o: string;
  n: number;
  t: string;
  k: string;
  d?: StoreSignal["data"];
}

/**
 * The signals of one `PostgresSessionStore` object (see `SignalingSessionStore`), on one channel
 * per schema with the topic, key and data in the JSON payload.
 *
 * - `notify` hands the signal to this object's subscribers at once and sends it with `pg_notify`
 *   on the pool; signals sent while one statement runs go together in the next, in order (one
 *   transaction each, so another process gets them in the order they were sent).
 * - One listening connection per store object, its own (not one of the pool), opened by the first
 *   `subscribe`. When it drops it is opened again with backoff (50 ms doubling to 5 s); each time
 *   it is (again) listening, every subscriber gets a resync signal (key `""`): what was sent
 *   meanwhile is lost, so re-read. Its socket never keeps the process alive.
 */
export class PostgresSignals {
  readonly #deps: PostgresSignalsDeps;
  readonly #listeners = new SignalListeners();
  readonly #origin = globalThis.crypto.randomUUID();
  #sent = 0;
  /** Signals waiting for the statement in flight, with the promise of the statement that sends them. */
  #next: { payloads: string[]; done: Promise<void>; settle: (error?: Error) => void } | undefined;
  #sending = false;
  #client: pg.Client | undefined;
  #connecting = false;
  #reconnectDelay = FIRST_RECONNECT_MS;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(deps: PostgresSignalsDeps) {
    this.#deps = deps;
  }

  notify(signal: StoreSignal): Promise<void> {
    checkStoreSignal("PostgresSessionStore.notify", signal);
    const payload: Payload = { o: this.#origin, n: ++this.#sent, t: signal.topic, k: signal.key };
    if (signal.data !== undefined) payload.d = signal.data;
    const text = JSON.stringify(payload);
    const copy: StoreSignal = { topic: signal.topic, key: signal.key };
    if (payload.d !== undefined) copy.data = JSON.parse(JSON.stringify(payload.d)) as StoreSignal["data"];
    queueMicrotask(() => this.#listeners.deliver(copy));
    if (!this.#next) {
      let settle!: (error?: Error) => void;
      const done = new Promise<void>((resolve, reject) => {
        settle = (error) => (error === undefined ? resolve() : reject(error));
      });
      this.#next = { payloads: [], done, settle };
    }
    this.#next.payloads.push(text);
    const { done } = this.#next;
    if (!this.#sending) void this.#pump();
    return done;
  }

  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void {
    const unsubscribe = this.#listeners.add(topic, listener);
    if (!this.#client && !this.#connecting && this.#reconnectTimer === undefined) void this.#listen();
    return unsubscribe;
  }

  /** Stops listening; later signals are neither sent nor delivered. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    if (this.#reconnectTimer !== undefined) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** Sends the waiting signals, one statement at a time, until none wait. */
  async #pump(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#next) {
        const batch = this.#next;
        this.#next = undefined;
        try {
          await this.#deps.query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", [
            this.#deps.channel,
            batch.payloads,
          ]);
          batch.settle();
        } catch (error) {
          batch.settle(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      this.#sending = false;
    }
  }

  /** Opens the listening connection; on failure, tries again with backoff. */
  async #listen(): Promise<void> {
    if (this.#closed || this.#client || this.#connecting) return;
    this.#connecting = true;
    const client = new pg.Client(this.#deps.pool.options);
    client.on("error", () => this.#dropped(client));
    client.on("end", () => this.#dropped(client));
    client.on("notification", (message) => {
      if (message.channel === this.#deps.channel) this.#receive(message.payload);
    });
    try {
      await client.connect();
      // The listening connection waits for notifications only: it never keeps the process alive.
      unrefSocket(client.connection.stream);
      await client.query(`LISTEN ${quoteIdent(this.#deps.channel)}`);
    } catch {
      this.#connecting = false;
      await client.end().catch(() => undefined);
      this.#retry();
      return;
    }
    this.#connecting = false;
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#reconnectDelay = FIRST_RECONNECT_MS;
    // Signals sent before it listened (or while it was down) are lost: every subscriber re-reads.
    for (const topic of this.#listeners.topics()) this.#listeners.deliver(resyncSignal(topic));
  }

  #dropped(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.end().catch(() => undefined);
    this.#retry();
  }

  #retry(): void {
    if (this.#closed || this.#reconnectTimer !== undefined) return;
    const delay = this.#reconnectDelay;
    this.#reconnectDelay = Math.min(delay * 2, MAX_RECONNECT_MS);
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#listen();
    }, delay);
    this.#reconnectTimer.unref?.();
  }

  #receive(text: string | undefined): void {
    let payload: Partial<Payload>;
    try {
      payload = JSON.parse(text ?? "") as Partial<Payload>;
    } catch {
      return; // not one of ours
    }
    if (typeof payload !== "object" || payload === null || payload.o === this.#origin) return;
    if (typeof payload.t !== "string" || typeof payload.k !== "string") return;
    const signal: StoreSignal = { topic: payload.t, key: payload.k };
    if (payload.d !== undefined) signal.data = payload.d;
    this.#listeners.deliver(signal);
  }
}

/** Lets the process exit while `stream` (a `net.Socket` for TCP and Unix sockets) is open. */
function unrefSocket(stream: object): void {
  if ("unref" in stream && typeof stream.unref === "function") stream.unref();
}
