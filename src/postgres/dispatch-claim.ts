import type { DispatchContext } from "./dispatch-context.js";

/**
 * A worker's claim on draining one session (a row of `dispatch_claims`): while it is fresh, no
 * other wake-up of the session takes a worker slot, and only its holder stores the events and
 * outcomes of the session's jobs.
 */
export interface DrainClaim {
  /** Random per claim: the fence of the holder's writes. */
  readonly owner: string;
  /** A heartbeat found the claim taken over (this worker was paused or cut off longer than the claim's ttl). */
  readonly lost: boolean;
  /** Stops the heartbeat and gives the claim up (a no-op once another worker holds it). */
  release(): Promise<void>;
}

/**
 * Claims the session for this worker when nobody else holds a fresh claim on it (none, a released
 * one, or one whose heartbeat is older than `claimTtlMs`: its worker died or stalls); `undefined`
 * otherwise. One statement on the claim's primary key: of two workers asking at once, one gets it.
 * The holder beats every third of the ttl.
 */
export async function claimSession(ctx: DispatchContext, sessionId: string): Promise<DrainClaim | undefined> {
  const owner = globalThis.crypto.randomUUID();
  const taken = await ctx.sql(
    `INSERT INTO ${ctx.s}.dispatch_claims AS c (session_id, owner, heartbeat_at) VALUES ($1, $2, clock_timestamp())
     ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, heartbeat_at = excluded.heartbeat_at
     WHERE c.heartbeat_at < clock_timestamp() - $3 * interval '1 millisecond'
     RETURNING 1`,
    [sessionId, owner, ctx.claimTtlMs],
  );
  if (taken.length === 0) return undefined;
  let lost = false;
  let beating: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      beating = ctx
        .sql(
          `UPDATE ${ctx.s}.dispatch_claims SET heartbeat_at = clock_timestamp() WHERE session_id = $1 AND owner = $2 RETURNING 1`,
          [sessionId, owner],
        )
        .then(
          (rows) => {
            if (rows.length === 0) lost = true;
          },
          () => undefined, // retried on the next beat; the writes stay fenced by the claim either way
        );
    },
    Math.max(1, Math.floor(ctx.claimTtlMs / 3)),
  );
  (timer as { unref?: () => void }).unref?.();
  let released = false;
  return {
    owner,
    get lost() {
      return lost;
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await beating;
      // Not given up (the database is unreachable): it goes stale after the ttl and is taken over.
      await ctx
        .sql(`DELETE FROM ${ctx.s}.dispatch_claims WHERE session_id = $1 AND owner = $2`, [sessionId, owner])
        .catch(() => undefined);
    },
  };
}

/**
 * SQL condition: `claim` still holds session `$sessionParam` (placeholders by number). The row is
 * read `FOR SHARE`: a takeover waits for the write that checks it, and a write after a takeover
 * sees the new owner and stores nothing.
 */
export function claimHeld(ctx: DispatchContext, sessionParam: number, ownerParam: number): string {
  return `EXISTS (SELECT 1 FROM ${ctx.s}.dispatch_claims WHERE session_id = $${sessionParam} AND owner = $${ownerParam} FOR SHARE)`;
}
