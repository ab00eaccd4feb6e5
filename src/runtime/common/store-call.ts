import { AgentryError } from "../../errors/agentry-error.js";
import { SessionStoreError } from "../../errors/errors.js";
import { isLeasableSessionStore } from "../../sessions/session-store.js";
import type { HistoryRecord, NewRecord, SessionStore } from "../../contracts/session-store.js";

/**
 * Appends records, fenced by the lease token when there is one (and the store has leases): a
 * runtime that lost its lease cannot write into the session any more (`LeaseLostError`).
 */
export function appendRecords(
  store: SessionStore,
  sessionId: string,
  records: NewRecord[],
  leaseToken: number | undefined,
): Promise<HistoryRecord[]> {
  return storeCall("append", () =>
    leaseToken !== undefined && isLeasableSessionStore(store)
      ? store.append(sessionId, records, { leaseToken })
      : store.append(sessionId, records),
  );
}

/** Runs a store call; a failure becomes a `SessionStoreError` naming the operation (typed errors pass through). */
export async function storeCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (AgentryError.isInstance(error)) throw error;
    throw new SessionStoreError(
      `Session store failed during ${operation}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/**
 * The store as the runtime uses it: every method's failure (a rejection or a synchronous throw)
 * becomes a `SessionStoreError` naming the method, so none reaches the host, `onError` or a tool
 * result as a raw driver error; typed Agentry errors (`LeaseLostError`, ...) pass through.
 * Properties that are not methods pass through, so the optional capabilities (`isLeasableSessionStore`,
 * ...) see what the host's store has.
 */
export function guardStore<S extends SessionStore>(store: S): S {
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => storeCall(String(key), async () => method.apply(target, args));
    },
  });
}
