import { DispatchError } from "../errors/errors.js";
import type { RuntimeEvent, TurnResult } from "../contracts/agent-runtime.js";
import type { DispatchContext } from "./dispatch-context.js";
import type { EventRow, SerializedError } from "./dispatch-job.js";
import { rebuildError } from "./dispatch-serialization.js";

/** The fallback's first wait after rows came (doubling to `pollIntervalMs` while none come). */
const FIRST_RECHECK_MS = 5;

/**
 * Yields a job's event rows in order until its outcome (`result` or `error`): read by `ord`, woken
 * by a notification. The fallback for a lost notification reads again 5 ms after rows came, then
 * less often, doubling up to `pollIntervalMs`. `signal` (and the dispatcher closing) end the wait
 * with `DispatchError`; the work goes on.
 */
export async function* tailDispatchJob(
  ctx: DispatchContext,
  jobId: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<EventRow> {
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
  const onSignal = () =>
    abort(
      new DispatchError("The wait for the dispatched work was aborted (the work goes on)", {
        remoteName: "AbortError",
      }),
    );
  let set = ctx.waiting.get(jobId);
  if (!set) ctx.waiting.set(jobId, (set = new Set()));
  set.add(poke);
  ctx.aborts.add(abort);
  signal?.addEventListener("abort", onSignal, { once: true });
  if (signal?.aborted) onSignal();
  let recheckMs = FIRST_RECHECK_MS;
  try {
    for (;;) {
      if (failure) throw failure;
      const woken = dirty;
      dirty = false;
      const rows = await ctx.sql<EventRow>(
        `SELECT ord, kind, body FROM ${ctx.s}.dispatch_events WHERE job_id = $1 AND ord > $2 ORDER BY ord`,
        [jobId, after],
      );
      for (const row of rows) {
        after = row.ord;
        yield row;
        if (row.kind !== "event") return;
      }
      if (rows.length > 0 || woken) recheckMs = FIRST_RECHECK_MS;
      if (!dirty && !failure) {
        const wait = Math.min(recheckMs, ctx.pollIntervalMs);
        recheckMs = Math.min(recheckMs * 2, ctx.pollIntervalMs);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
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
    if (set.size === 0) ctx.waiting.delete(jobId);
    ctx.aborts.delete(abort);
    signal?.removeEventListener("abort", onSignal);
  }
}

/** The job's outcome (its error rethrown as its class); its events go to `onEvent` on the way. */
export async function dispatchOutcome(
  ctx: DispatchContext,
  jobId: string,
  signal: AbortSignal | undefined,
  onEvent?: (event: RuntimeEvent) => void,
): Promise<TurnResult> {
  for await (const row of tailDispatchJob(ctx, jobId, signal)) {
    if (row.kind === "event") onEvent?.(row.body as RuntimeEvent);
    else if (row.kind === "result") return row.body as TurnResult;
    else throw rebuildError(row.body as SerializedError);
  }
  throw new DispatchError(`Job ${jobId} ended without an outcome`);
}
