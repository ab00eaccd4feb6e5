import { SessionBusyError } from "../../errors/errors.js";
import { isLeasableSessionStore } from "../../sessions/session-store.js";
import type { SessionStore } from "../../contracts/session-store.js";

/** A lease the runtime holds while it works on a session (a no-op one for stores without leases). */
export interface HeldLease {
  /** The fencing token to pass to every append; `undefined` for stores without leases. */
  token: number | undefined;
  /** Aborted when the lease was lost (a renewal failed): stop the turn, its appends are refused anyway. */
  lost: AbortSignal;
  release(): Promise<void>;
}

/** Options of {@link acquireSessionLease}. */
export interface SessionLeaseOptions {
  /** Who holds it (one id per runtime instance). */
  owner: string;
  ttlMs: number;
  /** Longest wait for a lease another runtime holds. */
  waitMs: number;
  /** Told when releasing the lease fails (it then expires after `ttlMs`). @default none */
  onReleaseError?: (error: unknown) => void;
}

/**
 * Confirms against the store that `token` is still the session's newest lease token, renewing the
 * lease for `ttlMs` on the way (one store round trip): `false` when another runtime took the
 * session over. Never judged by this process's clock: a paused process cannot tell how long it
 * was paused. A store failure rejects (the lease is then not confirmed).
 */
export async function confirmLease(
  store: SessionStore,
  sessionId: string,
  token: number,
  ttlMs: number,
): Promise<boolean> {
  if (!isLeasableSessionStore(store)) return true;
  const renewed = await store.renewLease(sessionId, token, { ttlMs });
  return renewed !== undefined;
}

/**
 * The lease of a store without leases, made on first use: Cloudflare Workers refuse an
 * `AbortController` made while a module loads (outside a handler), so none is made at import.
 */
let noLeaseHeld: HeldLease | undefined;
const noLease = (): HeldLease =>
  (noLeaseHeld ??= { token: undefined, lost: new AbortController().signal, release: async () => undefined });

/**
 * Takes the session's lease when the store has leases (else a no-op lease: single-process stores
 * rely on the runtime's per-session inbox), waiting with backoff while another runtime holds it
 * (in arrival order, with a ticket), at most `waitMs` (then `SessionBusyError`). The lease is renewed every third of
 * its ttl until
 * released; when a renewal finds it lost, `lost` is aborted.
 */
export async function acquireSessionLease(
  store: SessionStore,
  sessionId: string,
  options: SessionLeaseOptions,
): Promise<HeldLease> {
  if (!isLeasableSessionStore(store)) return noLease();
  const { owner, ttlMs, waitMs } = options;
  const started = Date.now();
  // One ticket per wait: the store serves waiting runtimes in the order they started asking.
  const ticket = globalThis.crypto.randomUUID();
  let delay = 5;
  let lease = await store.acquireLease(sessionId, { owner, ttlMs, ticket });
  while (lease === undefined) {
    if (Date.now() - started >= waitMs) throw new SessionBusyError(sessionId, Date.now() - started);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, Math.max(1, Math.floor(ttlMs / 4)), 250);
    lease = await store.acquireLease(sessionId, { owner, ttlMs, ticket });
  }
  const token = lease.token;
  const lost = new AbortController();
  let released = false;
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      renewing = store.renewLease(sessionId, token, { ttlMs }).then(
        (renewed) => {
          if (renewed === undefined && !released) lost.abort(new Error(`Lost the lease on session "${sessionId}"`));
        },
        () => undefined, // a failed renewal is retried on the next tick; the fencing token still guards appends
      );
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  (timer as { unref?: () => void }).unref?.();
  return {
    token,
    lost: lost.signal,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await renewing;
      await store.releaseLease(sessionId, token).catch((error: unknown) => options.onReleaseError?.(error));
    },
  };
}
