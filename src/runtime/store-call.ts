import { AgentryError } from "../errors/agentry-error.js";
import { SessionStoreError } from "../errors/errors.js";
import { isLeasableSessionStore } from "../sessions/session-store.js";
import type { HistoryRecord, NewRecord, SessionStore } from "../contracts/session-store.js";

/**
 * Appends records, fenced by the lease token when there is one (and the store has leases): a
 * runtime that lost its lease cannot write into the session any more (`LeaseLostError`).
 */
export function appendRecords(store: SessionStore, sessionId: string, records: NewRecord[], leaseToken: number | undefined): Promise<HistoryRecord[]> {
  return storeCall("append", () =>
    leaseToken !== undefined && isLeasableSessionStore(store) ? store.append(sessionId, records, { leaseToken }) : store.append(sessionId, records),
  );
}

/** Runs a store call; a failure becomes a `SessionStoreError` naming the operation (typed errors pass through). */
export async function storeCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (AgentryError.isInstance(error)) throw error;
    throw new SessionStoreError(`Session store failed during ${operation}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
