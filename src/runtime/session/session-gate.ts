import type { SessionSummary } from "../../contracts/session-store.js";
import type { UserMessage } from "../../contracts/message.js";
import { KeyedSerializer } from "../../internal/keyed-serializer.js";
import type { GuardedSessionStore } from "./guarded-session-store.js";
import { SessionBusyError } from "../../errors/errors.js";
import { acquireSessionLease, tryAcquireSessionLease, type HeldLease } from "./session-lease.js";

/** What a {@link SessionGate} needs. */
export interface SessionGateDeps {
  store: GuardedSessionStore;
  /** The lease's owner (one per runtime), how long it lasts and how long to wait for one held elsewhere. */
  lease: { owner: string; ttlMs: number; waitMs: number };
  /** Told when releasing a session's lease failed (it then expires on its own). */
  onReleaseError: (error: unknown, sessionId: string) => void;
}

/**
 * The way into a session: its work in this process runs one piece at a time, in arrival order
 * (a per-session FIFO), and, with a store that has leases, while holding the session's lease.
 */
export class SessionGate {
  /** Per-session FIFO: work on one session runs one piece at a time, in arrival order. */
  readonly #inbox = new KeyedSerializer();

  constructor(private readonly deps: Readonly<SessionGateDeps>) {}

  /**
   * Runs `task` as the session's next piece of work: after the session's earlier work in this
   * process and, with a store that has leases, while holding its lease. `waitMs` bounds the wait
   * for a lease another runtime holds (`0`: refuse at once with `SessionBusyError`).
   * @default the runtime's `leaseWaitMs`
   */
  withSession<T>(
    sessionId: string,
    task: (lease: HeldLease) => Promise<T>,
    options: { waitMs?: number } = {},
  ): Promise<T> {
    const { store, lease: leaseOptions, onReleaseError } = this.deps;
    return this.#inbox.run(sessionId, async () => {
      const lease = await acquireSessionLease(store, sessionId, {
        ...leaseOptions,
        ...(options.waitMs !== undefined && { waitMs: options.waitMs }),
        onReleaseError: (error) => onReleaseError(error, sessionId),
      });
      try {
        return await task(lease);
      } finally {
        await lease.release();
      }
    });
  }

  /**
   * Runs `task` on the session now, holding its lease, or throws `SessionBusyError` without waiting:
   * when work of the session is queued or running in this process (a turn), or another runtime
   * holds (or waits for) its lease.
   */
  withIdleSession<T>(sessionId: string, task: (lease: HeldLease) => Promise<T>): Promise<T> {
    const { store, lease: leaseOptions, onReleaseError } = this.deps;
    if (this.#inbox.has(sessionId)) return Promise.reject(new SessionBusyError(sessionId));
    return this.#inbox.run(sessionId, async () => {
      const lease = await tryAcquireSessionLease(store, sessionId, {
        ...leaseOptions,
        onReleaseError: (error) => onReleaseError(error, sessionId),
      });
      if (!lease) throw new SessionBusyError(sessionId);
      try {
        return await task(lease);
      } finally {
        await lease.release();
      }
    });
  }

  /** Records a message in a session without running a turn (queued behind the session's turns). */
  record(session: SessionSummary, message: UserMessage): Promise<void> {
    return this.withSession(session.sessionId, async (lease) => {
      await this.deps.store.append(
        session.sessionId,
        [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "message", message }],
        { leaseToken: lease.token },
      );
    });
  }

  /** Resolves once every piece of work queued so far has run. */
  drain(): Promise<void> {
    return this.#inbox.drain();
  }
}
