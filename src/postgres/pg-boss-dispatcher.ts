import type pg from "pg";
import type PgBoss from "pg-boss";
import type { AgentryError } from "../errors/agentry-error.js";
import {
  AgentNotFoundError,
  ApprovalAlreadyResolvedError,
  ApprovalNotFoundError,
  DispatchError,
  InvalidArgumentError,
  LeaseLostError,
  SessionBusyError,
  SessionNotFoundError,
  SessionStoreError,
} from "../errors/errors.js";
import type { ResolveDecision, AgentRuntime, RuntimeEvent, SendInput, TurnResult } from "../contracts/agent-runtime.js";
import type { QuestionAnswer } from "../contracts/plan.js";
import { toJsonSchema } from "../schema/to-json-schema.js";
import { resolveSession } from "../sessions/resolve-session.js";
import { createDispatchTables } from "./dispatch-tables.js";
import { quoteIdent } from "./postgres-migrations.js";

import type { PostgresSessionStore } from "./postgres-session-store.js";

/** Options of {@link createPgBossDispatcher}. */
export interface PgBossDispatcherOptions {
  /** The host's pg-boss instance (10.x), started (`await boss.start()`). */
  boss: PgBoss;
  /** The store every process shares; the dispatcher's tables go into its schema. */
  store: PostgresSessionStore;
  /**
   * The local runtime (on `store`) that runs dispatched work. Without one this process only
   * enqueues and waits for outcomes (a front process).
   * @default none
   */
  runtime?: AgentRuntime;
  /**
   * The pg-boss queue (created with policy `short`: one waiting wake-up per session).
   * @default "agentry-turns"
   */
  queue?: string;
  /**
   * Sessions this process works on at once (pg-boss workers on the queue). Each takes one session
   * and runs its queued work in order, one piece at a time.
   * @default 4
   */
  concurrency?: number;
  /**
   * How often a caller looks for its job's new events when no notification came (LISTEN/NOTIFY
   * is the fast path; this is the fallback).
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * pg-boss's polling of the queue, in seconds (at least 0.5); a NOTIFY wakes an idle worker at
   * once, so this only bounds how long work waits when a notification was lost.
   * @default 2
   */
  pollingIntervalSeconds?: number;
  /**
   * How often a worker process looks for work that waited longer than `sweepAfterMs` with nobody
   * on it (its worker died, or its sender died before the wake-up was sent) and wakes its session
   * again. Takeover after a crash takes at most about this plus the runtime's `leaseTtlMs`.
   * @default 5000
   */
  sweepIntervalMs?: number;
  /** @default 10000 */
  sweepAfterMs?: number;
  /**
   * Finished jobs and their events are deleted this long after they finished.
   * @default 3_600_000 (one hour)
   */
  retainMs?: number;
}

/** What `send` / `stream` take: the runtime's `SendInput` (`session` as a selector or an explicit id). */
export type DispatchInput = Omit<SendInput, "runId"> & {
  /**
   * Idempotency key of this send (an HTTP request id, say): the job's id and the turn's `runId`.
   * A second send with the same `jobId` enqueues nothing and waits for the same turn's outcome
   * (its events from the start). Letters, digits and `-_.:`, 1 to 100 characters.
   * @default a new UUID
   */
  jobId?: string;
};

/** Turns dispatched across processes through pg-boss; see {@link createPgBossDispatcher}. */
export interface PgBossDispatcher {
  /** Creates the tables and the queue and, with a runtime, starts working. Idempotent. */
  start(): Promise<void>;
  /** Enqueues a turn; resolves with its result, wherever it ran. `signal` only stops the waiting. */
  send(input: DispatchInput): Promise<TurnResult>;
  /** Enqueues a turn; yields every event of it in order (ending with `done`), wherever it ran. */
  stream(input: DispatchInput): AsyncIterable<RuntimeEvent>;
  /** `runtime.resolveApproval`, run on a worker: exactly once across processes. */
  resolveApproval(requestId: string, decision: { approved: boolean; reason?: string }): Promise<TurnResult>;
  /** `runtime.answerQuestion`, run on a worker: exactly once across processes. */
  answerQuestion(questionId: string, answer: QuestionAnswer): Promise<TurnResult>;
  /** Jobs this process is running now. */
  readonly running: number;
  /**
   * Stops fetching, lets the running jobs finish and hands the sessions' remaining queued work
   * back to the queue (another process takes it); callers still waiting here reject with
   * `DispatchError`. Close the runtime and stop pg-boss after it.
   */
  close(): Promise<void>;
}

interface JobRow {
  id: string;
  kind: "send" | "resolve" | "answer";
  payload: SendPayload | ResolvePayload | AnswerPayload;
}
interface SendPayload {
  agentId: string;
  content: SendInput["content"];
  scope?: string;
  chatContext?: SendInput["chatContext"];
  outputSchema?: unknown;
  created: boolean;
}
interface ResolvePayload {
  requestId: string;
  decision: { approved: boolean; reason?: string };
}
interface AnswerPayload {
  questionId: string;
  answer: QuestionAnswer;
}
interface EventRow {
  ord: string;
  kind: "event" | "result" | "error";
  body: unknown;
}
interface SerializedError {
  name: string;
  message: string;
  requestId?: string;
  sessionId?: string;
  agentId?: string;
}

const DEFAULT_QUEUE = "agentry-turns";

/**
 * Runs turns across processes through pg-boss (10.x, the host's instance; only its types are
 * imported, so the store alone needs just `pg`), on a {@link PostgresSessionStore} every process shares.
 *
 * - `send` / `stream` / `resolveApproval` / `answerQuestion` in any process store a job row (in
 *   the session's arrival order) and wake the session on the pg-boss queue; whichever worker has
 *   capacity takes the session and runs its queued jobs one at a time, oldest first, on its local
 *   runtime, under the session's lease.
 * - The job id is the turn's `runId` (and a decision's `decisionId`): a job run twice (a retry, a
 *   duplicate wake-up, a worker that died) stores nothing twice and never reorders the session;
 *   a turn whose worker died is repaired and continued by the next worker, reusing the tool
 *   results that were stored.
 * - The caller gets the events and the outcome from the `dispatch_events` table, woken by
 *   LISTEN/NOTIFY, polling as a fallback.
 *
 * @example
 * const boss = new PgBoss(process.env.DATABASE_URL!); await boss.start();
 * const store = new PostgresSessionStore({ connectionString: process.env.DATABASE_URL! });
 * const runtime = createAgentRuntime({ registry, store, providers });
 * const dispatcher = createPgBossDispatcher({ boss, store, runtime, concurrency: 8 });
 * await dispatcher.start();
 * const result = await dispatcher.send({ agentId: "support", content: "Hello" });
 */
export function createPgBossDispatcher(options: PgBossDispatcherOptions): PgBossDispatcher {
  const problems: string[] = [];
  if (!options?.boss || typeof options.boss.send !== "function") problems.push("boss (a PgBoss instance) is required");
  if (!options?.store || typeof options.store.append !== "function" || !options.store.pool) problems.push("store (a PostgresSessionStore) is required");
  const queue = options?.queue ?? DEFAULT_QUEUE;
  if (typeof queue !== "string" || !/^[\w.\-/]{1,100}$/.test(queue)) problems.push("queue must be 1 to 100 letters, digits or _.-/");
  const positive = (key: "concurrency" | "pollIntervalMs" | "sweepIntervalMs" | "sweepAfterMs" | "retainMs", fallback: number): number => {
    const value = options?.[key] ?? fallback;
    if (!Number.isInteger(value) || value <= 0) problems.push(`${key} must be a whole number above 0`);
    return value;
  };
  const concurrency = positive("concurrency", 4);
  const pollIntervalMs = positive("pollIntervalMs", 1000);
  const sweepIntervalMs = positive("sweepIntervalMs", 5000);
  const sweepAfterMs = positive("sweepAfterMs", 10_000);
  const retainMs = positive("retainMs", 3_600_000);
  const pollingIntervalSeconds = options?.pollingIntervalSeconds ?? 2;
  if (typeof pollingIntervalSeconds !== "number" || !(pollingIntervalSeconds >= 0.5)) problems.push("pollingIntervalSeconds must be at least 0.5");
  if (problems.length > 0) throw new InvalidArgumentError(`createPgBossDispatcher: ${problems.join("; ")}`);

  const { boss, store, runtime } = options;
  const pool = store.pool;
  const s = quoteIdent(store.schema);
  const channel = `agentry_dispatch_${store.schema}`.slice(0, 63);
  const wakeMessage = `w:${queue}`;
  let ready: Promise<void> | undefined;
  let started: Promise<void> | undefined;
  let closing = false;
  let running = 0;
  const workIds: string[] = [];
  /** Which of this process's pg-boss workers is running a handler now (by index in `workIds`). */
  const busy: boolean[] = [];
  const handlers = new Set<Promise<unknown>>();
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let listener: pg.PoolClient | undefined;
  /** Callers waiting here, by job id: woken by a notification. */
  const waiting = new Map<string, Set<() => void>>();
  /** Callers' waits to end when the dispatcher closes. */
  const aborts = new Set<(error: Error) => void>();

  const sql = async <R extends pg.QueryResultRow>(text: string, params: unknown[]): Promise<R[]> => {
    try {
      return (await pool.query<R>(text, params)).rows;
    } catch (error) {
      throw new SessionStoreError(`Dispatcher: database call failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };

  const listen = async (): Promise<void> => {
    if (listener) return;
    try {
      const client = await pool.connect();
      client.on("error", () => {
        // The connection dropped: fall back to polling until the next sweep or call reconnects.
        if (listener === client) listener = undefined;
        client.release(true);
      });
      client.on("notification", (message) => {
        const payload = message.payload ?? "";
        if (payload === wakeMessage) {
          // One idle worker of this process fetches at once (a busy one fetches when it is done).
          const idle = workIds.findIndex((_, i) => !busy[i]);
          if (idle >= 0) boss.notifyWorker(workIds[idle]!);
        } else if (payload.startsWith("e:")) {
          for (const wake of waiting.get(payload.slice(2)) ?? []) wake();
        }
      });
      await client.query(`LISTEN ${quoteIdent(channel)}`);
      listener = client;
    } catch {
      // Polling still works.
    }
  };

  const prepare = (): Promise<void> => {
    ready ??= (async () => {
      if (closing) throw new InvalidArgumentError("The dispatcher is closed");
      try {
        await createDispatchTables(pool, s, store.schema);
        await boss.createQueue(queue, { name: queue, policy: "short" });
      } catch (error) {
        throw new SessionStoreError(`Dispatcher: cannot set up its tables or queue: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      await listen();
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  /** Wakes the session on the queue (at most one waiting wake-up per session) and idle workers everywhere. */
  const wake = async (sessionId: string): Promise<void> => {
    await boss.send(queue, { sessionId }, { singletonKey: sessionId, retryLimit: 3, retryDelay: 1, expireInSeconds: 3600 });
    await sql("SELECT pg_notify($1, $2)", [channel, wakeMessage]);
  };

  /** Stores a job in the session's order and wakes the session. */
  async function enqueue(sessionId: string, kind: JobRow["kind"], payload: JobRow["payload"], jobId?: string): Promise<string> {
    const id = jobId ?? globalThis.crypto.randomUUID();
    const inserted = await sql(`INSERT INTO ${s}.dispatch_jobs (id, session_id, kind, payload) VALUES ($1, $2, $3, $4::json) ON CONFLICT (id) DO NOTHING RETURNING 1`, [id, sessionId, kind, JSON.stringify(payload)]);
    // Sent before under this id: that job's outcome is the answer.
    if (inserted.length === 0) return id;
    try {
      await wake(sessionId);
    } catch (error) {
      // Not woken: take the job back (unless a worker already has it: then it runs).
      await sql(`DELETE FROM ${s}.dispatch_jobs WHERE id = $1 AND state = 'queued'`, [id]).catch(() => undefined);
      throw new SessionStoreError(`Dispatcher: cannot enqueue: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return id;
  }

  /** Yields a job's event rows in order until its outcome (`result` or `error`). */
  async function* tail(jobId: string, signal: AbortSignal | undefined): AsyncGenerator<EventRow> {
    let after = "0";
    let dirty = false;
    let resolveWait: (() => void) | undefined;
    let failure: Error | undefined;
    const poke = () => {
      dirty = true;
      resolveWait?.();
    };
    const abort = (error: Error) => {
      failure = error;
      poke();
    };
    const onSignal = () => abort(new DispatchError("The wait for the dispatched work was aborted (the work goes on)", { remoteName: "AbortError" }));
    let set = waiting.get(jobId);
    if (!set) waiting.set(jobId, (set = new Set()));
    set.add(poke);
    aborts.add(abort);
    signal?.addEventListener("abort", onSignal, { once: true });
    if (signal?.aborted) onSignal();
    try {
      for (;;) {
        if (failure) throw failure;
        dirty = false;
        const rows = await sql<EventRow>(`SELECT ord, kind, body FROM ${s}.dispatch_events WHERE job_id = $1 AND ord > $2 ORDER BY ord`, [jobId, after]);
        for (const row of rows) {
          after = row.ord;
          yield row;
          if (row.kind !== "event") return;
        }
        if (!dirty && !failure) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, pollIntervalMs);
            resolveWait = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          resolveWait = undefined;
        }
      }
    } finally {
      set.delete(poke);
      if (set.size === 0) waiting.delete(jobId);
      aborts.delete(abort);
      signal?.removeEventListener("abort", onSignal);
    }
  }

  /** The job's outcome; its events go to `onEvent` on the way. */
  async function outcome(jobId: string, signal: AbortSignal | undefined, onEvent?: (event: RuntimeEvent) => void): Promise<TurnResult> {
    for await (const row of tail(jobId, signal)) {
      if (row.kind === "event") onEvent?.(row.body as RuntimeEvent);
      else if (row.kind === "result") return row.body as TurnResult;
      else throw rebuildError(row.body as SerializedError);
    }
    throw new DispatchError(`Job ${jobId} ended without an outcome`);
  }

  async function enqueueTurn(input: DispatchInput): Promise<string> {
    if (closing) throw new InvalidArgumentError("The dispatcher is closed");
    if (typeof input?.agentId !== "string" || input.agentId === "") throw new InvalidArgumentError("send: agentId must be a non-empty string");
    const content = input.content;
    if (typeof content === "string" ? content.length === 0 : !Array.isArray(content) || content.length === 0) {
      throw new InvalidArgumentError("send: content must be a non-empty string or a non-empty array of parts");
    }
    if (input.scope !== undefined && (typeof input.scope !== "string" || input.scope === "")) throw new InvalidArgumentError("send: scope must be a non-empty string when set");
    const jobId = input.jobId as unknown;
    if (jobId !== undefined && (typeof jobId !== "string" || !/^[A-Za-z0-9_.:-]{1,100}$/.test(jobId))) throw new InvalidArgumentError("send: jobId must be 1 to 100 letters, digits or -_.:");
    await prepare();
    if (jobId !== undefined) {
      // Sent before: the same job, whatever session "create" would make now.
      const known = await sql<{ id: string }>(`SELECT id FROM ${s}.dispatch_jobs WHERE id = $1`, [jobId]);
      if (known.length > 0) return jobId;
    }
    const { session, created } = await resolveSession(store, input.agentId, input.session, input.scope === undefined ? {} : { scope: input.scope });
    const payload: SendPayload = { agentId: input.agentId, content, created };
    if (input.scope !== undefined) payload.scope = input.scope;
    if (input.chatContext !== undefined) payload.chatContext = input.chatContext;
    if (input.outputSchema !== undefined) payload.outputSchema = toJsonSchema(input.outputSchema);
    return enqueue(session.sessionId, "send", payload, input.jobId);
  }

  async function enqueueDecision(kind: "resolve" | "answer", requestId: string, payload: ResolvePayload | AnswerPayload): Promise<string> {
    if (closing) throw new InvalidArgumentError("The dispatcher is closed");
    const operation = kind === "resolve" ? "resolveApproval" : "answerQuestion";
    if (typeof requestId !== "string" || requestId === "") throw new InvalidArgumentError(`${operation}: the id must be a non-empty string`);
    await prepare();
    const found = await store.findApproval(requestId);
    if (!found) throw new ApprovalNotFoundError(requestId);
    return enqueue(found.sessionId, kind, payload);
  }

  // ---- the worker half ----

  /** Writes a job's events and outcome in order, batching what piles up while a write is under way. */
  function eventWriter(jobId: string) {
    let pending: { kind: string; body: string }[] = [];
    let flushing: Promise<void> = Promise.resolve();
    let failed: unknown;
    const flush = () => {
      flushing = flushing.then(async () => {
        if (pending.length === 0 || failed !== undefined) return;
        const batch = pending;
        pending = [];
        try {
          await pool.query(
            `WITH ins AS (
               INSERT INTO ${s}.dispatch_events (job_id, kind, body)
               SELECT $1, k, b FROM unnest($2::text[], $3::json[]) WITH ORDINALITY AS t (k, b, n) ORDER BY n
               RETURNING 1
             ) SELECT pg_notify($4, $5) FROM (SELECT count(*) FROM ins) c`,
            [jobId, batch.map((e) => e.kind), batch.map((e) => e.body), channel, `e:${jobId}`],
          );
        } catch (error) {
          failed = error;
        }
      });
    };
    return {
      push(kind: "event" | "result" | "error", body: unknown) {
        pending.push({ kind, body: safeJson(body) });
        flush();
      },
      async done(): Promise<void> {
        flush();
        await flushing;
        if (failed !== undefined) throw new SessionStoreError(`Dispatcher: cannot store the events of job ${jobId}: ${failed instanceof Error ? failed.message : "unknown error"}`, { cause: failed });
      },
    };
  }

  async function runJob(row: JobRow, sessionId: string): Promise<void> {
    const writer = eventWriter(row.id);
    const local = runtime!;
    try {
      let result: TurnResult;
      if (row.kind === "send") {
        const payload = row.payload as SendPayload;
        const input: SendInput = { agentId: payload.agentId, content: payload.content, session: sessionId, runId: row.id };
        if (payload.scope !== undefined) input.scope = payload.scope;
        if (payload.chatContext !== undefined) input.chatContext = payload.chatContext;
        if (payload.outputSchema !== undefined) input.outputSchema = payload.outputSchema as NonNullable<SendInput["outputSchema"]>;
        let seen: TurnResult | undefined;
        for await (const event of local.stream(input)) {
          if (event.type === "done") {
            // The session was created for this job by its sender.
            seen = payload.created ? { ...(event.result as TurnResult), created: true } : (event.result as TurnResult);
            writer.push("event", { ...event, result: seen });
          } else writer.push("event", event);
        }
        // Nothing ran (the job ran before): the stored outcome.
        result = seen ?? (await local.send(input));
        if (payload.created && !result.created) result = { ...result, created: true };
      } else {
        // The resumed turn's events reach runtime.events; this session's are this job's.
        const forward = (event: RuntimeEvent) => {
          if (event.sessionId === sessionId) writer.push("event", event);
        };
        local.events.on("event", forward);
        try {
          if (row.kind === "resolve") {
            const { requestId, decision } = row.payload as ResolvePayload;
            result = await local.resolveApproval(requestId, { ...decision, decisionId: row.id } satisfies ResolveDecision);
          } else {
            const { questionId, answer } = row.payload as AnswerPayload;
            result = await local.answerQuestion(questionId, { ...answer, decisionId: row.id });
          }
        } finally {
          local.events.off("event", forward);
        }
      }
      writer.push("result", result);
    } catch (error) {
      writer.push("error", serializeError(error));
    }
    await writer.done();
    await sql(`UPDATE ${s}.dispatch_jobs SET state = 'done', finished_at = clock_timestamp() WHERE id = $1`, [row.id]);
  }

  /** Runs the session's queued jobs, oldest first, until none is left (or hands them back when closing). */
  async function drain(sessionId: string): Promise<void> {
    for (;;) {
      const [row] = await sql<JobRow>(`SELECT id, kind, payload FROM ${s}.dispatch_jobs WHERE session_id = $1 AND state = 'queued' ORDER BY ord LIMIT 1`, [sessionId]);
      if (!row) return;
      if (closing) {
        await wake(sessionId);
        return;
      }
      running++;
      try {
        await runJob(row, sessionId);
      } finally {
        running--;
      }
    }
  }

  async function sweep(): Promise<void> {
    if (!listener) await listen();
    const stale = await sql<{ session_id: string }>(
      `SELECT DISTINCT session_id FROM ${s}.dispatch_jobs WHERE state = 'queued' AND created_at < clock_timestamp() - $1 * interval '1 millisecond' LIMIT 100`,
      [sweepAfterMs],
    );
    for (const { session_id } of stale) {
      if (closing) return;
      await wake(session_id);
    }
    await sql(
      `WITH old AS (DELETE FROM ${s}.dispatch_jobs WHERE state <> 'queued' AND finished_at < clock_timestamp() - $1 * interval '1 millisecond' RETURNING id)
       DELETE FROM ${s}.dispatch_events WHERE job_id IN (SELECT id FROM old)`,
      [retainMs],
    );
  }

  return {
    start() {
      started ??= (async () => {
        await prepare();
        if (!runtime || closing) return;
        for (let i = 0; i < concurrency; i++) {
          const slot = i;
          const id = await boss.work<{ sessionId?: unknown }>(queue, { batchSize: 1, pollingIntervalSeconds }, (jobs) => {
            busy[slot] = true;
            const handler = (async () => {
              for (const job of jobs) {
                const sessionId = job.data?.sessionId;
                if (typeof sessionId === "string" && sessionId !== "") await drain(sessionId);
              }
            })();
            handlers.add(handler);
            return handler.finally(() => {
              busy[slot] = false;
              handlers.delete(handler);
            });
          });
          workIds.push(id);
        }
        sweeper = setInterval(() => void sweep().catch(() => undefined), sweepIntervalMs);
        (sweeper as { unref?: () => void }).unref?.();
      })().catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return started;
    },
    async send(input) {
      const jobId = await enqueueTurn(input);
      return outcome(jobId, input.signal);
    },
    stream(input) {
      return {
        async *[Symbol.asyncIterator]() {
          const jobId = await enqueueTurn(input);
          let doneSeen = false;
          for await (const row of tail(jobId, input.signal)) {
            if (row.kind === "event") {
              const event = row.body as RuntimeEvent;
              if (event.type === "done") doneSeen = true;
              yield event;
            } else if (row.kind === "error") {
              throw rebuildError(row.body as SerializedError);
            } else if (!doneSeen) {
              // The turn ran before (a repeated job): its outcome, as the `done` it would have ended with.
              const result = row.body as TurnResult;
              yield { type: "done", result, depth: 0, parentId: null, sessionId: result.sessionId, agentId: result.agentId, runId: result.runId, seq: 0, ts: Date.now() };
            }
          }
        },
      };
    },
    async resolveApproval(requestId, decision) {
      if (typeof decision?.approved !== "boolean") throw new InvalidArgumentError("resolveApproval: decision.approved must be a boolean");
      const kept: ResolvePayload["decision"] = { approved: decision.approved, ...(decision.reason !== undefined && { reason: decision.reason }) };
      return outcome(await enqueueDecision("resolve", requestId, { requestId, decision: kept }), undefined);
    },
    async answerQuestion(questionId, answer) {
      return outcome(await enqueueDecision("answer", questionId, { questionId, answer }), undefined);
    },
    get running() {
      return running;
    },
    async close() {
      if (closing) return;
      closing = true;
      if (sweeper) clearInterval(sweeper);
      await started?.catch(() => undefined);
      for (const id of workIds) await boss.offWork({ id }).catch(() => undefined);
      while (handlers.size > 0) await Promise.allSettled([...handlers]);
      const error = new DispatchError("The dispatcher closed before the outcome arrived (the work goes on in another process)", { remoteName: "Closed" });
      for (const abort of aborts) abort(error);
      const client = listener;
      listener = undefined;
      if (client) {
        await client.query(`UNLISTEN ${quoteIdent(channel)}`).catch(() => undefined);
        client.release();
      }
    },
  };
}

/** JSON text of a value (events carry tool results: anything); what cannot be written says so. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "bigint") return v.toString();
      if (v instanceof Error) return { name: v.name, message: v.message };
      return v;
    }) ?? "null";
  } catch (error) {
    const type = (value as { type?: unknown })?.type;
    return JSON.stringify({ type: typeof type === "string" ? type : "unserializable", unserializable: error instanceof Error ? error.message : String(error) });
  }
}

function serializeError(error: unknown): SerializedError {
  const e = error as { name?: unknown; message?: unknown; requestId?: unknown; sessionId?: unknown; agentId?: unknown };
  const out: SerializedError = { name: typeof e?.name === "string" ? e.name : "Error", message: typeof e?.message === "string" ? e.message : String(error) };
  if (typeof e?.requestId === "string") out.requestId = e.requestId;
  if (typeof e?.sessionId === "string") out.sessionId = e.sessionId;
  if (typeof e?.agentId === "string") out.agentId = e.agentId;
  return out;
}

/** The worker's error as this process's class of it (the typed errors callers branch on), else `DispatchError`. */
function rebuildError(error: SerializedError): AgentryError {
  switch (error.name) {
    case "ApprovalAlreadyResolvedError":
      return new ApprovalAlreadyResolvedError(error.requestId ?? "");
    case "ApprovalNotFoundError":
      return new ApprovalNotFoundError(error.requestId ?? "");
    case "AgentNotFoundError":
      return new AgentNotFoundError(error.agentId ?? "");
    case "SessionNotFoundError":
      return new SessionNotFoundError(error.message, { ...(error.sessionId !== undefined && { sessionId: error.sessionId }) });
    case "InvalidArgumentError":
      return new InvalidArgumentError(error.message);
    case "SessionStoreError":
      return new SessionStoreError(error.message);
    case "SessionBusyError":
      return new SessionBusyError(error.sessionId ?? "", 0);
    case "LeaseLostError":
      return new DispatchError(error.message, { remoteName: LeaseLostError.errorName });
    default:
      return new DispatchError(error.message, { remoteName: error.name });
  }
}
