import type { StoreSignal } from "../../contracts/session-store.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";

/** The first fallback look at a watched session when no signal came (lost signals only). */
export const FIRST_RECHECK_MS = 1_000;
/** The longest the fallback waits between two looks (it doubles up to this). */
export const MAX_RECHECK_MS = 60_000;

interface Watched {
  timer: ReturnType<typeof setTimeout> | undefined;
  delay: number;
}

/**
 * The sessions a runtime waits on (messages that wait behind a decision, in this process or
 * stored): each is looked at (`check`) when a store signal says something was stored in it
 * (topic `"session"`, key = session id: a decision, a queued message), and, for signals that
 * never came (a dropped connection, a process that died before it signalled), after an adaptive
 * fallback: {@link FIRST_RECHECK_MS}, doubling up to {@link MAX_RECHECK_MS}; a signal starts it over.
 * One subscription per runtime, held while any session is watched. The timers do not keep the
 * process alive.
 */
export class SessionWatch {
  readonly #watched = new Map<string, Watched>();
  #unsubscribe: (() => void) | undefined;

  constructor(
    private readonly store: GuardedSessionStore,
    private readonly check: (sessionId: string) => void,
  ) {}

  /** Whether `sessionId` is watched. */
  has(sessionId: string): boolean {
    return this.#watched.has(sessionId);
  }

  /** Watches `sessionId` (a no-op when it is watched already). */
  watch(sessionId: string): void {
    if (this.#watched.has(sessionId)) return;
    const entry: Watched = { timer: undefined, delay: FIRST_RECHECK_MS };
    this.#watched.set(sessionId, entry);
    this.#unsubscribe ??= this.store.subscribe("session", (signal) => this.#signalled(signal));
    this.#arm(sessionId, entry);
  }

  /** Stops watching `sessionId`. */
  unwatch(sessionId: string): void {
    const entry = this.#watched.get(sessionId);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#watched.delete(sessionId);
    if (this.#watched.size === 0) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    }
  }

  /** Stops watching every session (the runtime closes). */
  close(): void {
    for (const sessionId of [...this.#watched.keys()]) this.unwatch(sessionId);
  }

  #signalled(signal: StoreSignal): void {
    const entry = this.#watched.get(signal.key);
    if (!entry) return;
    entry.delay = FIRST_RECHECK_MS;
    clearTimeout(entry.timer);
    this.#arm(signal.key, entry);
    this.check(signal.key);
  }

  #arm(sessionId: string, entry: Watched): void {
    entry.timer = setTimeout(() => {
      if (this.#watched.get(sessionId) !== entry) return;
      entry.delay = Math.min(entry.delay * 2, MAX_RECHECK_MS);
      this.#arm(sessionId, entry);
      this.check(sessionId);
    }, entry.delay);
    (entry.timer as { unref?: () => void }).unref?.();
  }
}
