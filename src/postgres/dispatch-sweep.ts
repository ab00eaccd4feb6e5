import type { DispatchContext } from "./dispatch-context.js";
import { wakeSession } from "./dispatch-enqueue.js";
import { listenForDispatch } from "./dispatch-listener.js";

/**
 * One sweep: listens again if the connection dropped, wakes sessions whose work waited longer
 * than `sweepAfterMs` (its worker died, or its sender died before the wake-up), and deletes jobs
 * and events finished more than `retainMs` ago.
 */
export async function sweepDispatch(ctx: DispatchContext): Promise<void> {
  if (!ctx.listener) await listenForDispatch(ctx);
  const stale = await ctx.sql<{ session_id: string }>(
    `SELECT DISTINCT session_id FROM ${ctx.s}.dispatch_jobs WHERE state = 'queued' AND created_at < clock_timestamp() - $1 * interval '1 millisecond' LIMIT 100`,
    [ctx.sweepAfterMs],
  );
  for (const { session_id } of stale) {
    if (ctx.closing) return;
    await wakeSession(ctx, session_id);
  }
  await ctx.sql(
    `WITH old AS (DELETE FROM ${ctx.s}.dispatch_jobs WHERE state <> 'queued' AND finished_at < clock_timestamp() - $1 * interval '1 millisecond' RETURNING id)
     DELETE FROM ${ctx.s}.dispatch_events WHERE job_id IN (SELECT id FROM old)`,
    [ctx.retainMs],
  );
}
