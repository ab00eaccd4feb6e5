import { SessionBusyError } from "../../errors/errors.js";
import { isLeasableSessionStore, isSignalingSessionStore } from "../../sessions/session-store.js";
import { signalConcerns } from "../../internal/store-signal.js";
import type { LeasableSessionStore, SessionLease, SessionStore } from "../../contracts/session-store.js";

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
 * rely on the runtime's per-session inbox), waiting while another runtime holds it (in arrival
 * order, with a ticket), at most `waitMs` (then `SessionBusyError`; `0` asks once, without a
 * ticket). The wait wakes on the session's signal (topic `"session"`, which `release` sends in
 * every process the store reaches); a backoff from 5 ms to a quarter of the ttl (at most 250 ms)
 * only catches a lost signal. The lease is renewed every third of its ttl until released; when a
 * renewal finds it lost, `lost` is aborted.
 */
export async function acquireSessionLease(
  store: SessionStore,
  sessionId: string,
  options: SessionLeaseOptions,
): Promise<HeldLease> {
  if (!isLeasableSessionStore(store)) return noLease();
  const lease = await waitForLease(store, sessionId, options);
  return holdLease(store, sessionId, lease.token, options);
}

/**
 * Takes the session's lease only when it is free now (no holder, nobody queued for it); else
 * `undefined`, and nothing waits: refusing work while a turn of the session runs in another process.
 * A store without leases always gives its no-op lease.
 */
export async function tryAcquireSessionLease(
  store: SessionStore,
  sessionId: string,
  options: SessionLeaseOptions,
): Promise<HeldLease | undefined> {
  if (!isLeasableSessionStore(store)) return noLease();
  // No ticket: a caller that gives up at once must not hold a place in the queue.
  const lease = await store.acquireLease(sessionId, { owner: options.owner, ttlMs: options.ttlMs });
  return lease && holdLease(store, sessionId, lease.token, options);
}

/** A granted lease, renewed every third of its ttl until released (`lost` aborts when a renewal finds it gone). */
function holdLease(
  store: LeasableSessionStore,
  sessionId: string,
  token: number,
  options: SessionLeaseOptions,
): HeldLease {
  const { ttlMs } = options;
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
      try {
        await store.releaseLease(sessionId, token);
      } catch (error) {
        options.onReleaseError?.(error);
        return;
      }
      // Wakes a runtime waiting for the session, in any process (a hint: its backoff catches a lost one).
      if (isSignalingSessionStore(store))
        await store.notify({ topic: "session", key: sessionId }).catch(() => undefined);
    },
  };
}

/**
 * Whether a runtime (any process) holds the session's lease or waits for it: a lease taken and
 * given back at once under an owner of its own, so no holder's lease is touched. A store without
 * leases cannot tell: `true`.
 */
export async function leaseTaken(store: SessionStore, sessionId: string): Promise<boolean> {
  if (!isLeasableSessionStore(store)) return true;
  const probe = await store.acquireLease(sessionId, { owner: `probe:${globalThis.crypto.randomUUID()}`, ttlMs: 5_000 });
  if (probe === undefined) return true;
  await store.releaseLease(sessionId, probe.token);
  return false;
}

/** Asks for the lease until granted, woken by the session's signals, with a backoff for a lost one. */
async function waitForLease(
  store: LeasableSessionStore,
  sessionId: string,
  { owner, ttlMs, waitMs }: SessionLeaseOptions,
): Promise<SessionLease> {
  const started = Date.now();
  // One ticket per wait: the store serves waiting runtimes in the order they started asking. A
  // caller that does not wait asks without one: it must not leave a place in the queue behind.
  const ticket = waitMs > 0 ? globalThis.crypto.randomUUID() : undefined;
  const ask = { owner, ttlMs, ...(ticket !== undefined && { ticket }) };
  let signalled = false;
  let wake: (() => void) | undefined;
  // Subscribed before the first ask: a release between an ask and the wait still wakes it.
  const unsubscribe = isSignalingSessionStore(store)
    ? store.subscribe("session", (signal) => {
        if (!signalConcerns(signal, sessionId)) return;
        signalled = true;
        wake?.();
      })
    : undefined;
  try {
    let delay = 5;
    let lease = await store.acquireLease(sessionId, ask);
    while (lease === undefined) {
      const waited = Date.now() - started;
      if (waited >= waitMs) throw new SessionBusyError(sessionId, waited);
      if (!signalled) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(delay, waitMs - waited));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      if (signalled) delay = 5;
      else delay = Math.min(delay * 2, Math.max(1, Math.floor(ttlMs / 4)), 250);
      signalled = false;
      lease = await store.acquireLease(sessionId, ask);
    }
    return lease;
  } finally {
    unsubscribe?.();
  }
}
