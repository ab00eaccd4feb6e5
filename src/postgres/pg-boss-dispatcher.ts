import type PgBoss from "pg-boss";
import { DispatchError, InvalidArgumentError } from "../errors/errors.js";
import type { AgentRuntime, RuntimeEvent, TurnResult } from "../contracts/agent-runtime.js";
import type { QuestionAnswer } from "../contracts/plan.js";
import type { TenantGuard } from "../contracts/tenant-guard.js";
import { createDispatchContext, type DispatchContext, type DispatchSettings } from "./dispatch-context.js";
import {
  cancelDispatchJob,
  enqueueAgentTurn,
  enqueueDecision,
  enqueueTurn,
  prepareDispatch,
} from "./dispatch-enqueue.js";
import type { DispatchInput, ResolvePayload, SerializedError } from "./dispatch-job.js";
import { unlistenForDispatch } from "./dispatch-listener.js";
import { rebuildError } from "./dispatch-serialization.js";
import { sweepDispatch } from "./dispatch-sweep.js";
import { dispatchOutcome, tailDispatchJob } from "./dispatch-tail.js";
import { startDispatchWorkers } from "./dispatch-worker.js";

export type { DispatchInput } from "./dispatch-job.js";
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
   * The longest a caller waits before it looks for its job's new events when no notification
   * came. LISTEN/NOTIFY is the path; this fallback for a lost notification looks again 5 ms after
   * events came, then less often, doubling up to this. The listening connection is opened again
   * (with backoff) when it drops, and every caller then looks at once.
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
   * The one takeover knob: how long the work of a worker that died (or froze) waits before another
   * worker takes it over, a chain resume it left half done included (the job runs again there and
   * finishes it). Give the workers' runtimes the same `takeoverMs`: their session leases run out
   * within it too. `claimTtlMs` is half of it, `sweepAfterMs` a third, `sweepIntervalMs` a sixth
   * (rounded up), so a dead worker's claim is stale and swept before its lease runs out. The knobs
   * below override; a combination whose takeover cannot fit in `takeoverMs` (`claimTtlMs` or
   * `sweepAfterMs`, plus `sweepIntervalMs`, above it) is refused at creation.
   * @default 30000
   */
  takeoverMs?: number;
  /**
   * Overrides how often a worker process looks for work that waited longer than `sweepAfterMs`
   * with nobody on it (its worker died, or its sender died before the wake-up was sent) and wakes
   * its session again.
   * @default takeoverMs / 6 (5000)
   */
  sweepIntervalMs?: number;
  /** Overrides how long queued work waits before the sweep looks at it. @default takeoverMs / 3 (10000) */
  sweepAfterMs?: number;
  /**
   * Overrides how long a worker's claim on the session it drains lasts without a heartbeat (it
   * beats every third of this). While a claim is fresh, another wake-up of that session takes no
   * worker slot and the sweep leaves the session alone; a claim older than this (its worker died
   * or stalls) is taken over by the next wake-up.
   * @default takeoverMs / 2 (15000)
   */
  claimTtlMs?: number;
  /**
   * Finished jobs and their events are deleted this long after they finished.
   * @default 3_600_000 (one hour)
   */
  retainMs?: number;
}

/** A decision on an approval request sent through the dispatcher, with the caller's optional tenant guard. */
export interface DispatchDecision extends TenantGuard {
  approved: boolean;
  reason?: string;
}

/** Turns dispatched across processes through pg-boss; see {@link createPgBossDispatcher}. */
export interface PgBossDispatcher {
  /** Creates the tables and the queue and, with a runtime, starts working. Idempotent. */
  start(): Promise<void>;
  /**
   * Enqueues a turn; resolves with its result, wherever it ran. Aborting `signal` stops the turn
   * wherever it runs (it ends `aborted`; one not started yet starts aborted) and ends this wait at
   * once with a `DispatchError` (`remoteName: "AbortError"`).
   */
  send(input: DispatchInput): Promise<TurnResult>;
  /**
   * Enqueues a turn; yields every event of it in order (ending with `done`, or with
   * `message_queued` when the session waits for a decision), wherever it ran.
   * Breaking out of the loop only stops reading; aborting `signal` stops the turn as for `send`.
   */
  stream(input: DispatchInput): AsyncIterable<RuntimeEvent>;
  /**
   * `runtime.resolveApproval`, run on a worker: exactly once across processes. With a tenant guard
   * (`decision.scope` or `decision.scopePrefix`), a request of a session outside it is "not found"
   * (`ApprovalNotFoundError`, as an unknown id; nothing enqueued); the worker's runtime gets the
   * guard too.
   */
  resolveApproval(requestId: string, decision: DispatchDecision): Promise<TurnResult>;
  /**
   * `runtime.answerQuestion`, run on a worker: exactly once across processes. Tenant guard as for `resolveApproval`.
   */
  answerQuestion(questionId: string, answer: QuestionAnswer & TenantGuard): Promise<TurnResult>;
  /** Jobs this process is running now. */
  readonly running: number;
  /**
   * Stops fetching, lets the running jobs finish and hands the sessions' remaining queued work
   * back to the queue (another process takes it); callers still waiting here reject with
   * `DispatchError`. Close the runtime and stop pg-boss after it.
   */
  close(): Promise<void>;
}

const DEFAULT_QUEUE = "agentry-turns";
/** `takeoverMs` unless given (the runtime's default too). */
const DEFAULT_TAKEOVER_MS = 30_000;

/** The options checked (every problem named at once), with their defaults. */
export function checkOptions(options: PgBossDispatcherOptions): DispatchSettings {
  const problems: string[] = [];
  if (!options?.boss || typeof options.boss.send !== "function") problems.push("boss (a PgBoss instance) is required");
  if (!options?.store || typeof options.store.append !== "function" || !options.store.pool)
    problems.push("store (a PostgresSessionStore) is required");
  const queue = options?.queue ?? DEFAULT_QUEUE;
  if (typeof queue !== "string" || !/^[\w.\-/]{1,100}$/.test(queue))
    problems.push("queue must be 1 to 100 letters, digits or _.-/");
  const positive = (
    key:
      "concurrency" | "pollIntervalMs" | "takeoverMs" | "sweepIntervalMs" | "sweepAfterMs" | "retainMs" | "claimTtlMs",
    fallback: number,
  ): number => {
    const value = options?.[key] ?? fallback;
    if (!Number.isInteger(value) || value <= 0) problems.push(`${key} must be a whole number above 0`);
    return value;
  };
  const concurrency = positive("concurrency", 4);
  const pollIntervalMs = positive("pollIntervalMs", 1000);
  const takeoverMs = positive("takeoverMs", DEFAULT_TAKEOVER_MS);
  const share = (divisor: number) => Math.max(1, Math.ceil((Number.isInteger(takeoverMs) ? takeoverMs : 0) / divisor));
  const sweepIntervalMs = positive("sweepIntervalMs", share(6));
  const sweepAfterMs = positive("sweepAfterMs", share(3));
  const retainMs = positive("retainMs", 3_600_000);
  const claimTtlMs = positive("claimTtlMs", share(2));
  // Takeover: the dead worker's claim goes stale (or queued work waits for the sweep), then the next sweep wakes it.
  const takeover = Math.max(claimTtlMs, sweepAfterMs) + sweepIntervalMs;
  if (options?.takeoverMs !== undefined && takeover > takeoverMs)
    problems.push(
      `takeoverMs (${takeoverMs}) cannot hold with claimTtlMs ${claimTtlMs}, sweepAfterMs ${sweepAfterMs} and sweepIntervalMs ${sweepIntervalMs}: a dead worker's work would wait up to ${takeover} ms`,
    );
  const pollingIntervalSeconds = options?.pollingIntervalSeconds ?? 2;
  if (typeof pollingIntervalSeconds !== "number" || !(pollingIntervalSeconds >= 0.5))
    problems.push("pollingIntervalSeconds must be at least 0.5");
  if (problems.length > 0) throw new InvalidArgumentError(`createPgBossDispatcher: ${problems.join("; ")}`);
  return {
    boss: options.boss,
    store: options.store,
    runtime: options.runtime,
    queue,
    concurrency,
    pollIntervalMs,
    pollingIntervalSeconds,
    sweepIntervalMs,
    sweepAfterMs,
    retainMs,
    claimTtlMs,
  };
}

/** The tenant guard fields of a decision or an answer (checked by `enqueueDecision`). */
function guardOf(value: TenantGuard | undefined): TenantGuard {
  const guard: TenantGuard = {};
  if (value?.scope !== undefined) guard.scope = value.scope;
  if (value?.scopePrefix !== undefined) guard.scopePrefix = value.scopePrefix;
  return guard;
}

/**
 * A job's events as the caller's stream: its error rethrown; a repeated job's stored outcome as the `done` it would
 * have ended with.
 */
async function* jobEvents(
  ctx: DispatchContext,
  jobId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<RuntimeEvent> {
  let doneSeen = false;
  for await (const row of tailDispatchJob(ctx, jobId, signal)) {
    if (row.kind === "event") {
      const event = row.body as RuntimeEvent;
      if (event.type === "done") doneSeen = true;
      yield event;
    } else if (row.kind === "error") {
      throw rebuildError(row.body as SerializedError);
    } else if (!doneSeen) {
      const result = row.body as TurnResult;
      // A message stored behind a pending decision: its stream ends after `message_queued`.
      const { status } = result;
      if (status === "queued") return;
      yield {
        type: "done",
        result: { ...result, status },
        depth: 0,
        parentId: null,
        sessionId: result.sessionId,
        agentId: result.agentId,
        runId: result.runId,
        seq: 0,
        ts: Date.now(),
      };
    }
  }
}

/**
 * While `signal` is not aborted, an abort cancels job `jobId` (see `cancelDispatchJob`); returns the function that
 * stops listening.
 */
function cancelOnAbort(ctx: DispatchContext, jobId: string, signal: AbortSignal | undefined): () => void {
  if (!signal) return () => undefined;
  const cancel = () => void cancelDispatchJob(ctx, jobId).catch(() => undefined);
  if (signal.aborted) {
    cancel();
    return () => undefined;
  }
  signal.addEventListener("abort", cancel, { once: true });
  return () => signal.removeEventListener("abort", cancel);
}

/** Runs `wait` with `signal`'s abort cancelling job `jobId`. */
async function withCancel<T>(
  ctx: DispatchContext,
  jobId: string,
  signal: AbortSignal | undefined,
  wait: () => Promise<T>,
): Promise<T> {
  const stop = cancelOnAbort(ctx, jobId, signal);
  try {
    return await wait();
  } finally {
    stop();
  }
}

/**
 * Stops the sweep and the workers, waits for running handlers (they hand queued work back), ends local waits,
 * unlistens.
 */
async function closeDispatch(
  ctx: DispatchContext,
  started: Promise<void> | undefined,
  sweeper: ReturnType<typeof setInterval> | undefined,
): Promise<void> {
  if (sweeper) clearInterval(sweeper);
  await started?.catch(() => undefined);
  for (const id of ctx.workIds) await ctx.boss.offWork({ id }).catch(() => undefined);
  while (ctx.handlers.size > 0) await Promise.allSettled([...ctx.handlers]);
  const error = new DispatchError(
    "The dispatcher closed before the outcome arrived (the work goes on in another process)",
    { remoteName: "Closed" },
  );
  for (const abort of ctx.aborts) abort(error);
  await unlistenForDispatch(ctx);
}

/**
 * Runs turns across processes through pg-boss (10.x, the host's instance; only its types are
 * imported, so the store alone needs just `pg`), on a {@link PostgresSessionStore} every process shares.
 *
 * - `send` / `stream` / `resolveApproval` / `answerQuestion` in any process store a job row (in
 *   the session's arrival order) and wake the session on the pg-boss queue; whichever worker has
 *   capacity claims the session and runs its queued jobs one at a time, oldest first, on its local
 *   runtime, under the session's lease. Another wake-up of a claimed session takes no worker slot:
 *   a fleet of N worker slots runs N sessions, however long their turns.
 * - The job is the turn's `runId` (and a decision's `decisionId`): a job run twice (a retry, a
 *   worker that died) stores nothing twice and never reorders the session;
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
  const ctx = createDispatchContext(checkOptions(options));
  const readiness: { ready?: Promise<void> | undefined } = {};
  const prepare = () => prepareDispatch(ctx, readiness);
  let started: Promise<void> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  return {
    start() {
      started ??= (async () => {
        await prepare();
        if (!ctx.runtime || ctx.closing) return;
        await startDispatchWorkers(ctx, ctx.runtime);
        // close() may have run while the workers were registering: then no sweep starts.
        if (ctx.closing) return;
        // Turns the runtime starts on its own (async messages, background agents) become jobs too.
        ctx.runtime.setTurnDispatcher((turn) => enqueueAgentTurn(ctx, prepare, turn));
        sweeper = setInterval(() => void sweepDispatch(ctx).catch(() => undefined), ctx.sweepIntervalMs);
        (sweeper as { unref?: () => void }).unref?.();
      })().catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return started;
    },
    async send(input) {
      const jobId = await enqueueTurn(ctx, prepare, input);
      return withCancel(ctx, jobId, input.signal, () => dispatchOutcome(ctx, jobId, input.signal));
    },
    stream(input) {
      return {
        async *[Symbol.asyncIterator]() {
          const jobId = await enqueueTurn(ctx, prepare, input);
          const stop = cancelOnAbort(ctx, jobId, input.signal);
          try {
            yield* jobEvents(ctx, jobId, input.signal);
          } finally {
            stop();
          }
        },
      };
    },
    async resolveApproval(requestId, decision) {
      if (typeof decision?.approved !== "boolean")
        throw new InvalidArgumentError("resolveApproval: decision.approved must be a boolean");
      const guard = guardOf(decision);
      const kept: ResolvePayload["decision"] = {
        approved: decision.approved,
        ...(decision.reason !== undefined && { reason: decision.reason }),
        ...guard,
      };
      return dispatchOutcome(
        ctx,
        await enqueueDecision(ctx, prepare, "resolve", requestId, { requestId, decision: kept }, guard),
        undefined,
      );
    },
    async answerQuestion(questionId, answer) {
      return dispatchOutcome(
        ctx,
        await enqueueDecision(ctx, prepare, "answer", questionId, { questionId, answer }, guardOf(answer)),
        undefined,
      );
    },
    get running() {
      return ctx.running;
    },
    async close() {
      if (ctx.closing) return;
      ctx.closing = true;
      await closeDispatch(ctx, started, sweeper);
      // Running turns handed theirs over until here; from now on the runtime runs them itself.
      ctx.runtime?.setTurnDispatcher(undefined);
    },
  };
}
