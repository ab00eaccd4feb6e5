import type pg from "pg";
import { quoteIdent } from "./postgres-migrations.js";
import type { DispatchContext } from "./dispatch-context.js";

/** The longest wait before listening again after the connection dropped (from 50 ms, doubling). */
const MAX_RELISTEN_MS = 5_000;

/**
 * Holds one connection LISTENing on the dispatcher's channel (idempotent): a wake-up notification
 * makes one idle worker of this process fetch at once; an event notification wakes the callers
 * tailing that job; a cancel notification aborts that job's turn if it runs here. When the
 * connection drops it listens again with backoff (50 ms doubling to 5 s), then wakes every caller
 * tailing a job (what was notified meanwhile is lost). Without the connection polling still
 * works, and a cancelled turn not started yet starts aborted (the flag is stored).
 */
export async function listenForDispatch(ctx: DispatchContext): Promise<void> {
  if (ctx.listener || ctx.closing) return;
  let client: pg.PoolClient | undefined;
  let released = false;
  const release = (listening: pg.PoolClient) => {
    if (released) return;
    released = true;
    try {
      listening.release(true);
    } catch {
      // Released already (unlistenForDispatch): nothing left to do.
    }
  };
  try {
    const listening = (client = await ctx.pool.connect());
    const drop = () => {
      if (ctx.listener === listening) {
        ctx.listener = undefined;
        relistenLater(ctx);
      }
      release(listening);
    };
    listening.on("error", drop);
    listening.on("end", drop);
    listening.on("notification", (message) => onNotification(ctx, message.payload ?? ""));
    await listening.query(`LISTEN ${quoteIdent(ctx.channel)}`);
    // Another call listens already (or the dispatcher closed): this connection goes.
    if (ctx.closing || ctx.listener) return release(listening);
    ctx.listener = listening;
    ctx.relisten.delayMs = 50;
    // Notifications sent while nobody listened are lost: every tail reads again.
    for (const wakes of ctx.waiting.values()) for (const wake of wakes) wake();
  } catch {
    if (client) release(client);
    // Polling still works; listen again later.
    relistenLater(ctx);
  }
}

function onNotification(ctx: DispatchContext, payload: string): void {
  if (payload === ctx.wakeMessage) {
    // One idle worker of this process fetches at once (a busy one fetches when it is done).
    const idle = ctx.workIds.findIndex((_, i) => !ctx.busy[i]);
    if (idle >= 0) ctx.boss.notifyWorker(ctx.workIds[idle]!);
  } else if (payload.startsWith("e:")) {
    for (const wake of ctx.waiting.get(payload.slice(2)) ?? []) wake();
  } else if (payload.startsWith("x:")) {
    // Its sender aborted it: the turn stops wherever it runs (here, if here).
    for (const controller of ctx.cancels.get(payload.slice(2)) ?? [])
      controller.abort(new Error("The sender aborted the dispatched turn"));
  }
}

/** Listens again after the backoff's wait (once; the timer never keeps the process alive). */
function relistenLater(ctx: DispatchContext): void {
  if (ctx.closing || ctx.relisten.timer !== undefined) return;
  const delay = ctx.relisten.delayMs;
  ctx.relisten.delayMs = Math.min(delay * 2, MAX_RELISTEN_MS);
  ctx.relisten.timer = setTimeout(() => {
    ctx.relisten.timer = undefined;
    void listenForDispatch(ctx);
  }, delay);
  ctx.relisten.timer.unref?.();
}

/** Releases the LISTEN connection, if any. */
export async function unlistenForDispatch(ctx: DispatchContext): Promise<void> {
  if (ctx.relisten.timer !== undefined) clearTimeout(ctx.relisten.timer);
  ctx.relisten.timer = undefined;
  const client = ctx.listener;
  ctx.listener = undefined;
  if (client) {
    await client.query(`UNLISTEN ${quoteIdent(ctx.channel)}`).catch(() => undefined);
    client.release();
  }
}
