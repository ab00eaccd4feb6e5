import { SessionStoreError } from "../errors/errors.js";
import type {
  AgentRuntime,
  DispatchedTurn,
  ResolveDecision,
  RuntimeEvent,
  SendInput,
  TurnResult,
} from "../contracts/agent-runtime.js";
import type { DispatchContext } from "./dispatch-context.js";
import type { AnswerPayload, JobRow, ResolvePayload, SendPayload } from "./dispatch-job.js";
import { wakeSession } from "./dispatch-enqueue.js";
import { safeJson, serializeError } from "./dispatch-serialization.js";
import { claimHeld, claimSession, type DrainClaim } from "./dispatch-claim.js";

/**
 * Writes a job's events and outcome in order, batching what piles up while a write is under way;
 * only while `claim` holds the session (a worker whose claim was taken over stores nothing more).
 */
function eventWriter(ctx: DispatchContext, jobId: string, sessionId: string, claim: DrainClaim) {
  let pending: { kind: string; body: string }[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let failed: unknown;
  const flush = () => {
    flushing = flushing.then(async () => {
      if (pending.length === 0 || failed !== undefined) return;
      const batch = pending;
      pending = [];
      try {
        await ctx.pool.query(
          `WITH ins AS (
             INSERT INTO ${ctx.s}.dispatch_events (job_id, kind, body)
             SELECT $1, k, b FROM unnest($2::text[], $3::json[]) WITH ORDINALITY AS t (k, b, n) WHERE ${claimHeld(ctx, 6, 7)} ORDER BY n
             RETURNING 1
           ) SELECT pg_notify($4, $5) FROM (SELECT count(*) FROM ins) c`,
          [
            jobId,
            batch.map((e) => e.kind),
            batch.map((e) => e.body),
            ctx.channel,
            `e:${jobId}`,
            sessionId,
            claim.owner,
          ],
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
      if (failed !== undefined)
        throw new SessionStoreError(
          `Dispatcher: cannot store the events of job ${jobId}: ${failed instanceof Error ? failed.message : "unknown error"}`,
          {
            cause: failed,
          },
        );
    },
  };
}

type EventWriter = ReturnType<typeof eventWriter>;

/**
 * Runs a dispatched turn on the local runtime with `runId` = the sender's `jobId` (else the job id); a repeated job
 * gets the stored outcome.
 */
async function runJobTurn(
  ctx: DispatchContext,
  local: AgentRuntime,
  row: JobRow,
  sessionId: string,
  writer: EventWriter,
): Promise<TurnResult> {
  const payload = row.payload as SendPayload;
  // Its sender's abort reaches it here (a NOTIFY), or before it starts (the stored flag).
  const controller = new AbortController();
  let running = ctx.cancels.get(row.id);
  if (!running) ctx.cancels.set(row.id, (running = new Set()));
  running.add(controller);
  if (row.cancelled) controller.abort(new Error("The sender aborted the dispatched turn"));
  try {
    return await streamTurn(local, row, payload, sessionId, writer, controller.signal);
  } finally {
    running.delete(controller);
    if (running.size === 0) ctx.cancels.delete(row.id);
  }
}

async function streamTurn(
  local: AgentRuntime,
  row: JobRow,
  payload: SendPayload,
  sessionId: string,
  writer: EventWriter,
  signal: AbortSignal,
): Promise<TurnResult> {
  const input: SendInput = {
    agentId: payload.agentId,
    content: payload.content,
    session: sessionId,
    runId: payload.runId ?? row.id,
    signal,
  };
  if (payload.scope !== undefined) input.scope = payload.scope;
  if (payload.chatContext !== undefined) input.chatContext = payload.chatContext;
  if (payload.outputSchema !== undefined)
    input.outputSchema = payload.outputSchema as NonNullable<SendInput["outputSchema"]>;
  if (payload.context !== undefined) input.context = payload.context;
  // A message that waits behind a decision is stored in the session by the runtime (its job ends
  // "queued" at once, never holding a worker slot); the worker that runs the decision runs it.
  if (payload.ifPending !== undefined) input.ifPending = payload.ifPending;
  let seen: TurnResult | undefined;
  for await (const event of local.stream(input)) {
    if (event.type === "done") {
      // The session was created for this job by its sender.
      seen = payload.created ? { ...(event.result as TurnResult), created: true } : (event.result as TurnResult);
      writer.push("event", { ...event, result: seen });
    } else writer.push("event", event);
  }
  // Nothing ran (the job ran before, or the message was stored behind a decision): the stored outcome.
  let result = seen ?? (await local.send(input));
  if (payload.created && !result.created) result = { ...result, created: true };
  return result;
}

/**
 * Runs a dispatched decision with `decisionId` = the job id; the resumed turn's events of this session are the job's.
 */
async function runDecision(
  local: AgentRuntime,
  row: JobRow,
  sessionId: string,
  writer: EventWriter,
): Promise<TurnResult> {
  const forward = (event: RuntimeEvent) => {
    if (event.sessionId === sessionId) writer.push("event", event);
  };
  local.events.on("event", forward);
  try {
    if (row.kind === "resolve") {
      const { requestId, decision } = row.payload as ResolvePayload;
      return await local.resolveApproval(requestId, { ...decision, decisionId: row.id } satisfies ResolveDecision);
    }
    const { questionId, answer } = row.payload as AnswerPayload;
    return await local.answerQuestion(questionId, { ...answer, decisionId: row.id });
  } finally {
    local.events.off("event", forward);
  }
}

/** Runs one job, stores its events and outcome, and marks it done (all fenced by the claim). */
async function runJob(
  ctx: DispatchContext,
  local: AgentRuntime,
  row: JobRow,
  sessionId: string,
  claim: DrainClaim,
): Promise<void> {
  const writer = eventWriter(ctx, row.id, sessionId, claim);
  try {
    const result =
      row.kind === "send"
        ? await runJobTurn(ctx, local, row, sessionId, writer)
        : row.kind === "agent_turn"
          ? // Nobody tails a handed-over turn: only its outcome is kept.
            await local.runDispatchedTurn(row.payload as DispatchedTurn)
          : await runDecision(local, row, sessionId, writer);
    writer.push("result", result);
  } catch (error) {
    writer.push("error", serializeError(error));
  }
  await writer.done();
  await ctx.sql(
    `UPDATE ${ctx.s}.dispatch_jobs SET state = 'done', finished_at = clock_timestamp() WHERE id = $1 AND ${claimHeld(ctx, 2, 3)}`,
    [row.id, sessionId, claim.owner],
  );
}

/**
 * The session's next job: the oldest (a message that finds the session waiting for a decision is
 * stored in the session by the runtime and its job ends, so no job waits behind another).
 */
async function nextJob(ctx: DispatchContext, sessionId: string): Promise<JobRow | undefined> {
  const rows = await ctx.sql<JobRow>(
    `SELECT id, kind, payload, cancelled FROM ${ctx.s}.dispatch_jobs WHERE session_id = $1 AND state = 'queued' ORDER BY ord LIMIT 1`,
    [sessionId],
  );
  return rows[0];
}

/**
 * Drains the session under a claim: a wake-up of a session another worker drains (its claim is
 * fresh) returns at once, so one long turn takes one worker slot however often it is woken. After
 * giving the claim up, looks once more: work that arrived while the claim was being given up (its
 * wake-up found the claim held) is not left for the sweep. Closing, queued work is handed back.
 */
async function drain(ctx: DispatchContext, local: AgentRuntime, sessionId: string): Promise<void> {
  for (;;) {
    const claim = await claimSession(ctx, sessionId);
    if (!claim) return;
    try {
      await drainClaimed(ctx, local, sessionId, claim);
    } finally {
      await claim.release();
    }
    if (claim.lost || !(await nextJob(ctx, sessionId))) return;
    if (ctx.closing) {
      await wakeSession(ctx, sessionId);
      return;
    }
  }
}

/** Runs the session's queued jobs, oldest first, until none is left, the claim is lost or the dispatcher closes. */
async function drainClaimed(
  ctx: DispatchContext,
  local: AgentRuntime,
  sessionId: string,
  claim: DrainClaim,
): Promise<void> {
  while (!claim.lost && !ctx.closing) {
    const row = await nextJob(ctx, sessionId);
    if (!row) return;
    ctx.running++;
    try {
      await runJob(ctx, local, row, sessionId, claim);
    } finally {
      ctx.running--;
    }
  }
}

/** Registers `concurrency` pg-boss workers on the queue; each drains the session of the wake-up it fetched. */
export async function startDispatchWorkers(ctx: DispatchContext, local: AgentRuntime): Promise<void> {
  for (let i = 0; i < ctx.concurrency; i++) {
    const slot = i;
    const id = await ctx.boss.work<{ sessionId?: unknown }>(
      ctx.queue,
      { batchSize: 1, pollingIntervalSeconds: ctx.pollingIntervalSeconds },
      (jobs) => {
        ctx.busy[slot] = true;
        const handler = (async () => {
          for (const job of jobs) {
            const sessionId = job.data?.sessionId;
            if (typeof sessionId === "string" && sessionId !== "") await drain(ctx, local, sessionId);
          }
        })();
        ctx.handlers.add(handler);
        return handler.finally(() => {
          ctx.busy[slot] = false;
          ctx.handlers.delete(handler);
          // Fetch again at once, not after pg-boss's polling interval: work announced while every
          // worker here was busy is waiting (when none is, that fetch finds nothing and polling resumes).
          const own = ctx.workIds[slot];
          if (!ctx.closing && own !== undefined) ctx.boss.notifyWorker(own);
        });
      },
    );
    ctx.workIds.push(id);
  }
}
