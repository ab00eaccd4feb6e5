import type { DispatchContext } from "./dispatch-context.js";
import { wakeSession } from "./dispatch-enqueue.js";
import { listenForDispatch } from "./dispatch-listener.js";

/**
 * One sweep: listens again if the connection dropped, aborts running turns whose senders cancelled
 * them (when the notification was lost), wakes sessions whose work waited longer
 * than `sweepAfterMs` with no fresh claim on them (its worker died, or its sender died before the
 * wake-up), and deletes jobs
 * and events finished more than `retainMs` ago.
 */
export async function sweepDispatch(ctx: DispatchContext): Promise<void> {
  if (!ctx.listener) await listenForDispatch(ctx);
  if (ctx.cancels.size > 0) {
    // A cancel whose notification was lost (no LISTEN connection then) still stops its turn.
    const cancelled = await ctx.sql<{ id: string }>(
      `SELECT id FROM ${ctx.s}.dispatch_jobs WHERE id = ANY($1) AND cancelled`,
      [[...ctx.cancels.keys()]],
    );
    for (const { id } of cancelled)
      for (const controller of ctx.cancels.get(id) ?? [])
        controller.abort(new Error("The sender aborted the dispatched turn"));
  }
  // A session a live worker drains (a fresh claim) is left alone: its work is under way.
  const stale = await ctx.sql<{ session_id: string }>(
    `SELECT DISTINCT j.session_id FROM ${ctx.s}.dispatch_jobs j
     WHERE j.state = 'queued' AND j.created_at < clock_timestamp() - $1 * interval '1 millisecond'
       AND NOT EXISTS (SELECT 1 FROM ${ctx.s}.dispatch_claims c
                       WHERE c.session_id = j.session_id AND c.heartbeat_at >= clock_timestamp() - $2 * interval '1 millisecond')
     LIMIT 100`,
    [ctx.sweepAfterMs, ctx.claimTtlMs],
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
