import { quoteIdent } from "./postgres-migrations.js";
import type { DispatchContext } from "./dispatch-context.js";

/**
 * Holds one connection LISTENing on the dispatcher's channel (idempotent): a wake-up notification
 * makes one idle worker of this process fetch at once; an event notification wakes the callers
 * tailing that job; a cancel notification aborts that job's turn if it runs here. Without the
 * connection (it failed or dropped) polling still works, and a cancelled turn not started yet
 * starts aborted (the flag is stored).
 */
export async function listenForDispatch(ctx: DispatchContext): Promise<void> {
  if (ctx.listener) return;
  try {
    const client = await ctx.pool.connect();
    client.on("error", () => {
      // The connection dropped: fall back to polling until the next sweep or call reconnects.
      if (ctx.listener === client) ctx.listener = undefined;
      client.release(true);
    });
    client.on("notification", (message) => {
      const payload = message.payload ?? "";
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
    });
    await client.query(`LISTEN ${quoteIdent(ctx.channel)}`);
    ctx.listener = client;
  } catch {
    // Polling still works.
  }
}

/** Releases the LISTEN connection, if any. */
export async function unlistenForDispatch(ctx: DispatchContext): Promise<void> {
  const client = ctx.listener;
  ctx.listener = undefined;
  if (client) {
    await client.query(`UNLISTEN ${quoteIdent(ctx.channel)}`).catch(() => undefined);
    client.release();
  }
}
