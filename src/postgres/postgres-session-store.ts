import { createHash } from "node:crypto";
import pg from "pg";
import { AgentryError } from "../errors/agentry-error.js";
import { InvalidArgumentError, LeaseLostError, SessionStoreError } from "../errors/errors.js";
import {
  checkListQuery,
  checkPendingApprovalsQuery,
  checkSessionId,
  newSessionSummary,
  parseOlderThan,
  patchSessionSummary,
  sessionNotFound,
  type CreateSessionInit,
  type ListSessionsQuery,
  type SessionPatch,
} from "../internal/session-arguments.js";
import { checkLoadOptions, checkNewRecords } from "../internal/session-records.js";
import type {
  AcquireLeaseOptions,
  AppendOptions,
  ApprovalIndexStore,
  ApprovalRecord,
  HistoryRecord,
  IndexedApproval,
  LeasableSessionStore,
  ListPendingApprovalsQuery,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionLease,
  SessionSummary,
  SignalingSessionStore,
  StoreSignal,
} from "../contracts/session-store.js";
import { migrate, quoteIdent } from "./postgres-migrations.js";
import { orderKey, scopeWhere } from "./postgres-scope-filter.js";
import { PostgresSignals } from "./postgres-signals.js";
import { fromPgJson, fromPgText, toPgJson, toPgText as t, toPgTextOrNull } from "./postgres-text.js";

/** Options of {@link PostgresSessionStore}: a connection string (the store opens its own pool) or a pool of yours. */
export type PostgresSessionStoreOptions = ({ connectionString: string } | { pool: pg.Pool }) & {
  /**
   * The Postgres schema holding the store's tables (created on first use). Letters, digits and
   * `_`, at most 63 characters.
   * @default "agentry"
   */
  schema?: string;
  /**
   * With `{ connectionString }`: how long to wait for a connection before failing with
   * `SessionStoreError` (an unreachable server fails fast instead of hanging a turn).
   * @default 10000
   */
  connectionTimeoutMillis?: number;
  /**
   * With `{ connectionString }`: the most connections the store's pool opens.
   * @default 10
   */
  max?: number;
};

interface SessionRow {
  id: string;
  agent_id: string;
  scope: string | null;
  name: string | null;
  pinned_at: string | null;
  created_at: Date;
  updated_at: Date;
  last_snippet: string | null;
  /** jsonb as text (`attributes::text`), escaped (postgres-text.ts). */
  attributes: string | null;
}

interface ApprovalRow {
  request_id: string;
  session_id: string;
  agent_id: string;
  scope: string | null;
  decided: boolean;
  body: ApprovalRecord;
}

const SESSION_COLUMNS =
  "id, agent_id, scope, name, pinned_at, created_at, updated_at, last_snippet, attributes::text AS attributes";
const NOW = "date_trunc('milliseconds', clock_timestamp())";

/**
 * A `SessionStore` (from `@agentry/core`) in PostgreSQL through `pg` (an optional peer dependency,
 * loaded only by `@agentry/core/postgres`), for runtimes in many processes on many machines
 * sharing one database.
 *
 * - Tables live in one schema (`schema`, default `agentry`), created and migrated on first use in
 *   one transaction under an advisory lock; a schema written by a newer version is refused
 *   with `SessionStoreError` naming both versions.
 * - Each append is one round trip (one statement calling a server-side function) holding the
 *   session's row lock: the fence checked, `seq` the session's last + 1, records, session row and
 *   approval index written together, idempotent by record id, all or nothing. The statement is
 *   prepared once per connection; a connection that lost it (`DISCARD ALL`, a pooler) gets the
 *   append once more, unprepared. Its cost does not grow with the session.
 * - Timestamps and lease expiry come from the database clock, never from the client's, so the
 *   machines' clocks need not agree. Sessions touched in one millisecond list in touch order
 *   (a sequence).
 * - Session leases ({@link LeasableSessionStore}) with a fencing token on the session row;
 *   the approval index ({@link ApprovalIndexStore}) kept by `append` in the same transaction;
 *   `prune`. Each is indexed SQL: its cost does not grow with the number of sessions.
 * - Any string is stored as given, U+0000 included (which Postgres text and jsonb cannot hold):
 *   text columns and the strings of `attributes` are stored with an exact escape (U+0000 and
 *   U+0001 as U+0001 followed by "0" or "1"), record bodies as `json` (which keeps `\u0000`).
 *   Tools that read the tables directly see the escaped form.
 * - Scope prefixes (`scopePrefix`) are ranges of a `"C"`-collated scope index, whatever the
 *   database's collation.
 * - Signals ({@link SignalingSessionStore}) with `LISTEN/NOTIFY` on one channel per schema: one
 *   listening connection per store object (its own, beside the pool), opened by the first
 *   `subscribe` and opened again with backoff when it drops (subscribers then get a resync signal,
 *   key `""`); `notify` sends with `pg_notify` on the pool, in order.
 * - Failures of the database (unreachable, connection lost, SQL error) → `SessionStoreError`
 *   with the driver's error as `cause`.
 * - Given `{ connectionString }`, the store owns its pool and `close()` ends it; given `{ pool }`,
 *   the caller owns it (and should listen to its `error` event) and `close()` leaves it open.
 *
 * @example
 * const store = new PostgresSessionStore({ connectionString: process.env.DATABASE_URL! });
 * // ...
 * await store.close();
 */
export class PostgresSessionStore
  implements PrunableSessionStore, LeasableSessionStore, ApprovalIndexStore, SignalingSessionStore
{
  /** The connection pool. */
  readonly pool: pg.Pool;
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #owned: boolean;
  readonly #s: string;
  /** The `append_records` call, prepared once per connection under {@link statementName}. */
  readonly #appendCall: { name: string; text: string };
  #ready: Promise<void> | undefined;
  #closed = false;
  readonly #signals: PostgresSignals;
  /** Clients given an `error` listener already (a connection dropped while checked out must not crash the process). */
  readonly #guarded = new WeakSet<pg.PoolClient>();

  constructor(options: PostgresSessionStoreOptions) {
    if (typeof options !== "object" || options === null)
      throw new InvalidArgumentError("PostgresSessionStore: pass { connectionString } or { pool }");
    const schema = options.schema ?? "agentry";
    if (typeof schema !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new InvalidArgumentError(
        "PostgresSessionStore: schema must be letters, digits and _ (at most 63, not starting with a digit)",
      );
    }
    this.schema = schema;
    this.#s = quoteIdent(schema);
    this.#appendCall = {
      name: statementName("append", schema),
      text: `SELECT status, at, last_seq, existing FROM ${this.#s}.append_records($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    };
    if ("pool" in options && options.pool !== undefined) {
      this.pool = options.pool;
      this.#owned = false;
    } else {
      const { connectionString } = options as { connectionString?: unknown };
      if (typeof connectionString !== "string" || connectionString === "")
        throw new InvalidArgumentError("PostgresSessionStore: connectionString must be a non-empty string");
      this.pool = new pg.Pool({
        connectionString,
        connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
        max: options.max ?? 10,
      });
      // An idle connection the server dropped must not crash the process; the pool replaces it.
      this.pool.on("error", () => undefined);
      this.#owned = true;
    }
    this.#signals = new PostgresSignals({
      pool: this.pool,
      channel: signalChannel(schema),
      query: (sql, params) => this.#query("notify", sql, params),
    });
  }

  async createSession(init: CreateSessionInit): Promise<SessionSummary> {
    const summary = newSessionSummary(init, () => crypto.randomUUID(), "");
    const { rows } = await this.#query<{ created_at: Date }>(
      "createSession",
      `INSERT INTO ${this.#s}.sessions (id, agent_id, scope, name, attributes, created_at, updated_at, touch)
       SELECT $1, $2, $3, $4, $5::jsonb, t, t, nextval('${this.#s}.touch_seq') FROM (SELECT ${NOW} AS t) now
       ON CONFLICT (id) DO NOTHING RETURNING created_at`,
      [
        t(summary.sessionId),
        t(summary.agentId),
        toPgTextOrNull(summary.scope),
        toPgTextOrNull(summary.name),
        jsonOrNull(summary.attributes),
      ],
    );
    if (rows.length === 0)
      throw new InvalidArgumentError(`createSession: session "${summary.sessionId}" already exists`);
    summary.createdAt = summary.updatedAt = rows[0]!.created_at.toISOString();
    return summary;
  }

  async getSession(sessionId: string): Promise<SessionSummary | undefined> {
    checkSessionId(sessionId);
    const { rows } = await this.#query<SessionRow>(
      "getSession",
      `SELECT ${SESSION_COLUMNS} FROM ${this.#s}.sessions WHERE id = $1`,
      [t(sessionId)],
    );
    return rows[0] && summaryOf(rows[0]);
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    const { agentId, limit, scope } = checkListQuery(query);
    const params: unknown[] = [];
    const where = scopeWhere(scope, params);
    if (agentId !== undefined) where.push(`agent_id = $${params.push(t(agentId))}`);
    const limitSql = Number.isFinite(limit) ? ` LIMIT $${params.push(limit)}` : "";
    const { rows } = await this.#query<SessionRow>(
      "listSessions",
      `SELECT ${SESSION_COLUMNS} FROM ${this.#s}.sessions${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""}
       ORDER BY ${orderKey("touch", scope)} DESC${limitSql}`,
      params,
    );
    return rows.map(summaryOf);
  }

  async updateSession(sessionId: string, patch: SessionPatch): Promise<SessionSummary> {
    checkSessionId(sessionId);
    return this.#transaction("updateSession", async (client) => {
      const { rows } = await client.query<SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM ${this.#s}.sessions WHERE id = $1 FOR UPDATE`,
        [t(sessionId)],
      );
      if (rows[0] === undefined) throw sessionNotFound(sessionId);
      const summary = patchSessionSummary(summaryOf(rows[0]), patch);
      const updated = await client.query<{ updated_at: Date }>(
        `UPDATE ${this.#s}.sessions SET name = $2, pinned_at = $3, attributes = $4::jsonb, last_snippet = $5,
           updated_at = ${NOW}, touch = nextval('${this.#s}.touch_seq') WHERE id = $1 RETURNING updated_at`,
        [
          t(sessionId),
          toPgTextOrNull(summary.name),
          toPgTextOrNull(summary.pinnedAt),
          jsonOrNull(summary.attributes),
          toPgTextOrNull(summary.lastSnippet),
        ],
      );
      summary.updatedAt = updated.rows[0]!.updated_at.toISOString();
      return summary;
    });
  }

  async deleteSession(sessionId: string): Promise<void> {
    checkSessionId(sessionId);
    // Records, approval entries and lease waiters go with it (delete_sessions, postgres-migrations.ts).
    await this.#query("deleteSession", `SELECT ${this.#s}.delete_sessions($1::text[], NULL)`, [[t(sessionId)]]);
  }

  async append(sessionId: string, records: NewRecord[], options: AppendOptions = {}): Promise<HistoryRecord[]> {
    checkNewRecords(records);
    checkSessionId(sessionId);
    const { leaseToken } = options ?? {};
    if (leaseToken !== undefined && !Number.isSafeInteger(leaseToken))
      throw new InvalidArgumentError("append: leaseToken must be an integer");
    const parts = appendParts(records);
    const columns = [parts.ids, parts.idJson, parts.frames, parts.kinds, parts.rest];
    const indexColumns = [parts.requests, parts.decided];
    const values = [t(sessionId), leaseToken ?? null, ...columns, ...indexColumns];
    // A prepared statement: parsed and planned once per connection, not at every append.
    const { rows } = await this.#query<AppendRow>("append", this.#appendCall.text, values, this.#appendCall.name).catch(
      (error: unknown) => {
        // The connection lost it (`DISCARD ALL`, a pooler that moved the client to another server connection):
        // nothing ran, and the client was discarded; once more, unprepared, on another.
        if (!statementLost(error)) throw error;
        return this.#query<AppendRow>("append", this.#appendCall.text, values);
      },
    );
    const result = rows[0]!;
    if (result.status === "not_found") throw sessionNotFound(sessionId);
    // Fencing: a newer lease was granted since this token, so its holder lost the session.
    if (result.status === "lease_lost") throw new LeaseLostError(sessionId, leaseToken!);
    const seen = new Map((result.existing ?? []).map((row) => [fromPgText(row.id), row.body]));
    const at = JSON.stringify(result.at);
    let lastSeq = Number(result.last_seq);
    // The bodies as the function built them (see postgres-migrations.ts), parsed into plain copies.
    return records.map((record) => {
      let kept = seen.get(record.id);
      if (kept === undefined) {
        const index = parts.first.get(record.id)!;
        const json = `{"id":${parts.idJson[index]},"seq":${++lastSeq},"at":${at},${parts.rest[index]}`;
        kept = JSON.parse(json) as HistoryRecord;
        seen.set(record.id, kept);
      }
      return kept;
    });
  }

  async load(sessionId: string, options: LoadOptions = {}): Promise<HistoryRecord[]> {
    checkLoadOptions(options);
    checkSessionId(sessionId);
    const { frame } = options;
    const params: unknown[] = [t(sessionId), options.afterSeq ?? 0];
    const frameSql =
      frame === undefined ? "" : frame === null ? " AND frame IS NULL" : ` AND frame = $${params.push(t(frame))}`;
    const resetSql = options.sinceLastReset
      ? `GREATEST($2, COALESCE((SELECT max(seq) FROM ${this.#s}.records WHERE session_id = $1 AND kind = 'reset'${frameSql}), 0))`
      : "$2";
    const { rows } = await this.#query<{ body: HistoryRecord }>(
      "load",
      `SELECT body FROM ${this.#s}.records WHERE session_id = $1 AND seq > ${resetSql}${frameSql} ORDER BY seq`,
      params,
    );
    if (rows.length === 0) {
      const found = await this.#query("load", `SELECT 1 FROM ${this.#s}.sessions WHERE id = $1`, [t(sessionId)]);
      if (found.rows.length === 0) throw sessionNotFound(sessionId);
    }
    return rows.map((row) => row.body);
  }

  async clear(sessionId: string): Promise<void> {
    await this.append(sessionId, [{ id: crypto.randomUUID(), kind: "reset", frame: null }]);
  }

  /** Deletes every session whose `updatedAt` is before `olderThan` (with its records); returns how many. */
  async prune(options: { olderThan: string }): Promise<number> {
    const olderThan = new Date(parseOlderThan(options)).toISOString();
    const { rows } = await this.#query<{ deleted: string }>(
      "prune",
      `SELECT ${this.#s}.delete_sessions(NULL, $1::timestamptz) AS deleted`,
      [olderThan],
    );
    return Number(rows[0]!.deleted);
  }

  async acquireLease(sessionId: string, options: AcquireLeaseOptions): Promise<SessionLease | undefined> {
    checkSessionId(sessionId);
    const { owner, ttlMs } = checkLeaseOptions(options);
    const ticket = options.ticket;
    if (ticket !== undefined && (typeof ticket !== "string" || ticket === ""))
      throw new InvalidArgumentError("acquireLease: ticket must be a non-empty string when set");
    const { rows } = await this.#query<{
      status: "granted" | "busy" | "not_found";
      lease_token: string;
      lease_expires_at: Date;
    }>("acquireLease", `SELECT status, lease_token, lease_expires_at FROM ${this.#s}.acquire_lease($1, $2, $3, $4)`, [
      t(sessionId),
      t(owner),
      ttlMs,
      ticket === undefined ? null : t(ticket),
    ]);
    const result = rows[0]!;
    if (result.status === "not_found") throw sessionNotFound(sessionId);
    return result.status === "granted" ? leaseOf(result) : undefined;
  }

  async renewLease(sessionId: string, token: number, options: { ttlMs: number }): Promise<SessionLease | undefined> {
    checkSessionId(sessionId);
    const { ttlMs } = checkLeaseOptions({ owner: "-", ...options });
    if (!Number.isSafeInteger(token)) throw new InvalidArgumentError("renewLease: token must be an integer");
    const { rows } = await this.#query<{ lease_token: string; lease_expires_at: Date }>(
      "renewLease",
      `UPDATE ${this.#s}.sessions SET lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE id = $1 AND lease_token = $2 AND lease_token > 0 RETURNING lease_token, lease_expires_at`,
      [t(sessionId), token, ttlMs],
    );
    return rows[0] && leaseOf(rows[0]);
  }

  async releaseLease(sessionId: string, token: number): Promise<void> {
    checkSessionId(sessionId);
    if (!Number.isSafeInteger(token)) throw new InvalidArgumentError("releaseLease: token must be an integer");
    await this.#query(
      "releaseLease",
      `UPDATE ${this.#s}.sessions SET lease_expires_at = NULL WHERE id = $1 AND lease_token = $2`,
      [t(sessionId), token],
    );
  }

  async findApproval(requestId: string): Promise<IndexedApproval | undefined> {
    if (typeof requestId !== "string" || requestId === "")
      throw new InvalidArgumentError("findApproval: requestId must be a non-empty string");
    const { rows } = await this.#query<ApprovalRow>(
      "findApproval",
      `SELECT * FROM ${this.#s}.approvals WHERE request_id = $1`,
      [t(requestId)],
    );
    return rows[0] && approvalOf(rows[0]);
  }

  async listPendingApprovals(query?: ListPendingApprovalsQuery): Promise<IndexedApproval[]> {
    const { scope, sessionId, limit } = checkPendingApprovalsQuery(query);
    const params: unknown[] = [];
    const where = ["NOT decided", ...scopeWhere(scope, params)];
    if (sessionId !== undefined) where.push(`session_id = $${params.push(t(sessionId))}`);
    const limitSql = Number.isFinite(limit) ? ` LIMIT $${params.push(limit)}` : "";
    const { rows } = await this.#query<ApprovalRow>(
      "listPendingApprovals",
      `SELECT * FROM ${this.#s}.approvals WHERE ${where.join(" AND ")} ORDER BY ${orderKey("ord", scope)}${limitSql}`,
      params,
    );
    return rows.map(approvalOf);
  }

  /**
   * Sends `signal` to the subscribers of every store object on this schema, in every process; a
   * signal over `MAX_STORE_SIGNAL_BYTES` (or malformed) → `InvalidArgumentError`.
   */
  notify(signal: StoreSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new SessionStoreError("PostgresSessionStore: the store is closed"));
    try {
      return this.#signals.notify(signal);
    } catch (error) {
      return Promise.reject(wrap("notify", error));
    }
  }

  /** Calls `listener` for every signal on `topic` sent on this schema, until the returned function is called. */
  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void {
    return this.#signals.subscribe(topic, listener);
  }

  /**
   * Stops listening for signals, and ends the pool when the store opened it (`{ connectionString }`);
   * a no-op when closed.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#signals.close();
    if (this.#owned) await this.pool.end();
  }

  /** Migrates once per store (again after a failure, so a server that came back is used). */
  #migrated(): Promise<void> {
    this.#ready ??= (async () => {
      const client = await this.#connect();
      try {
        await migrate(client, this.schema);
        client.release();
      } catch (error) {
        client.release(true);
        throw error;
      }
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw wrap("migrate", error);
    });
    return this.#ready;
  }

  async #connect(): Promise<pg.PoolClient> {
    if (this.#closed) throw new SessionStoreError("PostgresSessionStore: the store is closed");
    try {
      const client = await this.pool.connect();
      if (!this.#guarded.has(client)) {
        // The failed query rejects with the same error; this only keeps the event from being unhandled.
        client.on("error", () => undefined);
        this.#guarded.add(client);
      }
      return client;
    } catch (error) {
      throw new SessionStoreError(`PostgresSessionStore: cannot connect to the database: ${messageOf(error)}`, {
        cause: error,
      });
    }
  }

  /** One statement on a pooled client; `name`: prepared under that name (once per connection). */
  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    operation: string,
    sql: string,
    params: unknown[],
    name?: string,
  ): Promise<pg.QueryResult<R>> {
    await this.#migrated();
    const client = await this.#connect();
    try {
      const result = await (name === undefined
        ? client.query<R>(sql, params)
        : client.query<R>({ name, text: sql }, params));
      client.release();
      return result;
    } catch (error) {
      client.release(true);
      throw wrap(operation, error);
    }
  }

  async #transaction<T>(operation: string, task: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.#migrated();
    const client = await this.#connect();
    try {
      await client.query("BEGIN");
      const result = await task(client);
      await client.query("COMMIT");
      client.release();
      return result;
    } catch (error) {
      let healthy = true;
      await client.query("ROLLBACK").catch(() => (healthy = false));
      client.release(healthy ? undefined : true);
      throw wrap(operation, error);
    }
  }
}

function wrap(operation: string, error: unknown): Error {
  if (AgentryError.isInstance(error)) return error;
  return new SessionStoreError(`PostgresSessionStore.${operation} failed: ${messageOf(error)}`, { cause: error });
}

/**
 * The name of a statement prepared on the store's connections: one per schema (two stores on one
 * pool prepare their own), at most 63 bytes (Postgres cuts longer names).
 */
function statementName(what: string, schema: string): string {
  const name = `agentry_${what}_${schema}`;
  if (name.length <= 63) return name;
  return `agentry_${what}_${schema.slice(0, 24)}_${createHash("sha256").update(schema).digest("hex").slice(0, 20)}`;
}

/** The NOTIFY channel of the signals of `schema` (at most 63 bytes, as {@link statementName}). */
function signalChannel(schema: string): string {
  return statementName("signals", schema);
}

/** Whether `error` says the connection had no such prepared statement (SQLSTATE 26000). */
function statementLost(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === "26000";
}

function messageOf(error: unknown): string {
  const base = (error as Error)?.message || (error as { code?: string })?.code || String(error);
  // AggregateError (every address refused) carries its reasons in `errors`.
  const inner = (error as { errors?: unknown[] })?.errors;
  return Array.isArray(inner) && inner.length > 0
    ? `${base} ${inner.map((e) => (e as Error)?.message).join("; ")}`.trim()
    : base;
}

function checkLeaseOptions(options: { owner: string; ttlMs: number }): { owner: string; ttlMs: number } {
  const owner = options?.owner;
  const ttlMs = options?.ttlMs;
  if (typeof owner !== "string" || owner === "")
    throw new InvalidArgumentError("lease: owner must be a non-empty string");
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new InvalidArgumentError("lease: ttlMs must be a positive number");
  return { owner, ttlMs };
}

function leaseOf(row: { lease_token: string; lease_expires_at: Date }): SessionLease {
  return { token: Number(row.lease_token), expiresAt: row.lease_expires_at.toISOString() };
}

/** A jsonb parameter (escaped, see postgres-text.ts), or null. */
function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : toPgJson(value);
}

function toJson(record: object, index: number): string {
  try {
    return JSON.stringify(record);
  } catch (error) {
    throw new InvalidArgumentError(`append: records[${index}] is not plain JSON (nothing was stored)`, {
      cause: error,
    });
  }
}

interface AppendRow {
  status: "ok" | "not_found" | "lease_lost";
  at: string | null;
  last_seq: string | null;
  existing: StoredRow[] | null;
}

interface StoredRow {
  id: string;
  body: HistoryRecord;
}

/** The arrays `append_records` takes: each id once (the first record under it), in order. */
interface AppendParts {
  ids: string[];
  idJson: string[];
  frames: (string | null)[];
  kinds: string[];
  rest: string[];
  requests: (string | null)[];
  decided: boolean[];
  /** Index in the arrays of each (unescaped) id. */
  first: Map<string, number>;
}

function appendParts(records: NewRecord[]): AppendParts {
  const parts: AppendParts = {
    ids: [],
    idJson: [],
    frames: [],
    kinds: [],
    rest: [],
    requests: [],
    decided: [],
    first: new Map(),
  };
  records.forEach((record, index) => {
    if (parts.first.has(record.id)) return;
    parts.first.set(record.id, parts.ids.length);
    // The stored body without id, seq and at: `{"frame":...,...}`, sent without its `{`.
    const { id, frame, seq: _seq, at: _at, ...rest } = record as NewRecord & { seq?: unknown; at?: unknown };
    parts.ids.push(t(id));
    parts.idJson.push(JSON.stringify(id));
    parts.frames.push(toPgTextOrNull(frame));
    parts.kinds.push(record.kind);
    const json = toJson({ frame, ...rest }, index);
    // A `toJSON` among the record's fields could make it anything but an object.
    if (!json.startsWith("{"))
      throw new InvalidArgumentError(`append: records[${index}] is not a plain JSON object (nothing was stored)`);
    parts.rest.push(json.slice(1));
    parts.requests.push(record.kind === "approval" ? t(record.request.requestId) : null);
    parts.decided.push(record.kind === "approval" && record.decision !== undefined);
  });
  return parts;
}

function approvalOf(row: ApprovalRow): IndexedApproval {
  const entry: IndexedApproval = {
    requestId: fromPgText(row.request_id),
    sessionId: fromPgText(row.session_id),
    agentId: fromPgText(row.agent_id),
    request: row.body,
    decided: row.decided,
  };
  if (row.scope !== null) entry.scope = fromPgText(row.scope);
  return entry;
}

function summaryOf(row: SessionRow): SessionSummary {
  const summary: SessionSummary = {
    sessionId: fromPgText(row.id),
    agentId: fromPgText(row.agent_id),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (row.scope !== null) summary.scope = fromPgText(row.scope);
  if (row.name !== null) summary.name = fromPgText(row.name);
  if (row.pinned_at !== null) summary.pinnedAt = fromPgText(row.pinned_at);
  if (row.last_snippet !== null) summary.lastSnippet = fromPgText(row.last_snippet);
  if (row.attributes !== null) summary.attributes = fromPgJson(row.attributes) as Record<string, unknown>;
  return summary;
}
