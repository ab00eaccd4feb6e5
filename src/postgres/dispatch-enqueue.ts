import { checkedContext } from "../internal/host-context.js";
import { ApprovalNotFoundError, InvalidArgumentError, SessionStoreError } from "../errors/errors.js";
import { toJsonSchema } from "../schema/to-json-schema.js";
import { resolveSession } from "../sessions/resolve-session.js";
import { migrateOnPool } from "./postgres-migrations.js";
import type { DispatchContext } from "./dispatch-context.js";
import type { AnswerPayload, DispatchInput, JobRow, ResolvePayload, SendPayload } from "./dispatch-job.js";
import type { DispatchedTurn } from "../contracts/agent-runtime.js";
import { listenForDispatch } from "./dispatch-listener.js";
import { sha256Hex } from "../internal/sha256.js";
import { matchesScopeFilter, tenantGuardFilter } from "../internal/scope-filter.js";
import type { TenantGuard } from "../contracts/tenant-guard.js";

/** Creates the tables and the queue and starts listening (once; again after a failure). */
export function prepareDispatch(ctx: DispatchContext, state: { ready?: Promise<void> | undefined }): Promise<void> {
  state.ready ??= (async () => {
    if (ctx.closing) throw new InvalidArgumentError("The dispatcher is closed");
    try {
      // The dispatcher's tables are schema version 3: the migrations create them (or upgrade an old layout).
      await migrateOnPool(ctx.pool, ctx.store.schema);
      await createQueue(ctx);
    } catch (error) {
      throw new SessionStoreError(
        `Dispatcher: cannot set up its tables or queue: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    await listenForDispatch(ctx);
  })().catch((error: unknown) => {
    state.ready = undefined;
    throw error;
  });
  return state.ready;
}

/** Postgres errors worth another try when processes set up together: deadlock, serialization, duplicate key. */
const SETUP_RACES = new Set(["40P01", "40001", "23505"]);

/**
 * Creates the pg-boss queue unless it exists. Processes starting at once can deadlock inside
 * pg-boss's `create_queue` (Postgres then aborts one of them): the loser looks again and retries,
 * up to five times, after a short random pause.
 */
async function createQueue(ctx: DispatchContext): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (await ctx.boss.getQueue(ctx.queue)) return;
      await ctx.boss.createQueue(ctx.queue, { name: ctx.queue, policy: "short" });
      return;
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt >= 5 || typeof code !== "string" || !SETUP_RACES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.floor(Math.random() * 50)));
    }
  }
}

/** Wakes the session on the queue (at most one waiting wake-up per session) and idle workers everywhere. */
export async function wakeSession(ctx: DispatchContext, sessionId: string): Promise<void> {
  await ctx.boss.send(
    ctx.queue,
    { sessionId },
    { singletonKey: sessionId, retryLimit: 3, retryDelay: 1, expireInSeconds: 3600 },
  );
  await ctx.sql("SELECT pg_notify($1, $2)", [ctx.channel, ctx.wakeMessage]);
}

/** Stores a job in the session's order and wakes the session; a job id stored before enqueues nothing. */
async function enqueue(
  ctx: DispatchContext,
  sessionId: string,
  kind: JobRow["kind"],
  payload: JobRow["payload"],
  jobId?: string,
): Promise<string> {
  const id = jobId ?? globalThis.crypto.randomUUID();
  const inserted = await ctx.sql(
    `INSERT INTO ${ctx.s}.dispatch_jobs (id, session_id, kind, payload) VALUES ($1, $2, $3, $4::json) ON CONFLICT (id) DO NOTHING RETURNING 1`,
    [id, sessionId, kind, JSON.stringify(payload)],
  );
  // Sent before under this id: that job's outcome is the answer.
  if (inserted.length === 0) return id;
  try {
    await wakeSession(ctx, sessionId);
  } catch (error) {
    // Not woken: take the job back (unless a worker already has it: then it runs).
    await ctx.sql(`DELETE FROM ${ctx.s}.dispatch_jobs WHERE id = $1 AND state = 'queued'`, [id]).catch(() => undefined);
    throw new SessionStoreError(
      `Dispatcher: cannot enqueue: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return id;
}

/** Checks a send, resolves its session and enqueues the turn; the job's id. */
export async function enqueueTurn(
  ctx: DispatchContext,
  prepare: () => Promise<void>,
  input: DispatchInput,
): Promise<string> {
  if (ctx.closing) throw new InvalidArgumentError("The dispatcher is closed");
  if (typeof input?.agentId !== "string" || input.agentId === "")
    throw new InvalidArgumentError("send: agentId must be a non-empty string");
  const content = input.content;
  if (typeof content === "string" ? content.length === 0 : !Array.isArray(content) || content.length === 0) {
    throw new InvalidArgumentError("send: content must be a non-empty string or a non-empty array of parts");
  }
  const ifPending = input.ifPending as unknown;
  if (ifPending !== undefined && ifPending !== "queue" && ifPending !== "reject" && ifPending !== "supersede")
    throw new InvalidArgumentError('send: ifPending must be "queue", "reject" or "supersede"');
  if (input.scope !== undefined && (typeof input.scope !== "string" || input.scope === ""))
    throw new InvalidArgumentError("send: scope must be a non-empty string when set");
  const jobId = input.jobId as unknown;
  if (jobId !== undefined && (typeof jobId !== "string" || !/^[A-Za-z0-9_.:-]{1,100}$/.test(jobId)))
    throw new InvalidArgumentError("send: jobId must be 1 to 100 letters, digits or -_.:");
  const hostContext = input.context === undefined ? undefined : checkedContext("send", input.context);
  await prepare();
  const id = jobId === undefined ? undefined : sendJobId(input, jobId);
  if (id !== undefined) {
    // Sent before (by this scope, to this agent and selector): the same job, whatever session "create" would make now.
    const known = await ctx.sql<{ id: string }>(`SELECT id FROM ${ctx.s}.dispatch_jobs WHERE id = $1`, [id]);
    if (known.length > 0) return id;
  }
  const { session, created } = await resolveSession(
    ctx.store,
    input.agentId,
    input.session,
    input.scope === undefined ? {} : { scope: input.scope },
  );
  const payload: SendPayload = { agentId: input.agentId, content, created };
  if (input.scope !== undefined) payload.scope = input.scope;
  if (input.chatContext !== undefined) payload.chatContext = input.chatContext;
  if (input.outputSchema !== undefined) payload.outputSchema = toJsonSchema(input.outputSchema);
  if (hostContext !== undefined) payload.context = hostContext;
  if (input.ifPending !== undefined) payload.ifPending = input.ifPending;
  if (jobId !== undefined) payload.runId = jobId;
  return enqueue(ctx, session.sessionId, "send", payload, id);
}

/**
 * The stored id of a send with the host's `jobId`: a digest of the scope, the agent, the session
 * selector and the `jobId`, so a `jobId` names a job only within the tenant (and agent and
 * session) that sent it. Another tenant's same `jobId` is another job: it neither reads nor
 * cancels this one, and cannot tell that it exists.
 */
function sendJobId(input: DispatchInput, jobId: string): string {
  const selector = typeof input.session === "string" ? input.session : null;
  const key = JSON.stringify([input.scope ?? null, input.agentId, selector, jobId]);
  return `send:${sha256Hex(new TextEncoder().encode(key))}`;
}

/**
 * Stores a turn a runtime handed over (`setTurnDispatcher`) as a job of its session, under its run
 * id (the same hand-off again stores nothing), and wakes the session. Accepted while closing: the
 * turn runs in another process.
 */
export async function enqueueAgentTurn(
  ctx: DispatchContext,
  prepare: () => Promise<void>,
  turn: DispatchedTurn,
): Promise<void> {
  await prepare();
  await enqueue(ctx, turn.sessionId, "agent_turn", turn, turn.runId);
}

/**
 * Cancels a dispatched send: flags the job (a turn not started yet starts aborted) and notifies
 * every worker (the one running it aborts it). A finished job is left as it is.
 */
export async function cancelDispatchJob(ctx: DispatchContext, jobId: string): Promise<void> {
  await ctx.sql(
    `WITH flagged AS (UPDATE ${ctx.s}.dispatch_jobs SET cancelled = true WHERE id = $1 AND state = 'queued' RETURNING 1)
     SELECT pg_notify($2, $3) FROM flagged`,
    [jobId, ctx.channel, `x:${jobId}`],
  );
}

/**
 * Enqueues an approval decision or an answer on the session of its request; the job's id. A
 * request outside the caller's tenant guard is not found, as an unknown one (nothing enqueued);
 * the guard travels in the payload and the worker's runtime checks it again.
 */
export async function enqueueDecision(
  ctx: DispatchContext,
  prepare: () => Promise<void>,
  kind: "resolve" | "answer",
  requestId: string,
  payload: ResolvePayload | AnswerPayload,
  guard: TenantGuard | undefined,
): Promise<string> {
  if (ctx.closing) throw new InvalidArgumentError("The dispatcher is closed");
  const operation = kind === "resolve" ? "resolveApproval" : "answerQuestion";
  if (typeof requestId !== "string" || requestId === "")
    throw new InvalidArgumentError(`${operation}: the id must be a non-empty string`);
  const filter = tenantGuardFilter(operation, guard);
  await prepare();
  const found = await ctx.store.findApproval(requestId);
  if (!found || !matchesScopeFilter(found.scope, filter)) throw new ApprovalNotFoundError(requestId);
  return enqueue(ctx, found.sessionId, kind, payload);
}
