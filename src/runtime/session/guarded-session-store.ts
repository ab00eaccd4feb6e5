import { AgentryError } from "../../errors/agentry-error.js";
import { SessionStoreError } from "../../errors/errors.js";
import { isApprovalIndexStore, isLeasableSessionStore, isPrunableSessionStore } from "../../sessions/session-store.js";
import type {
  AppendOptions,
  ApprovalIndexStore,
  CreateSessionInit,
  HistoryRecord,
  LeasableSessionStore,
  ListSessionsQuery,
  LoadOptions,
  NewRecord,
  PrunableSessionStore,
  SessionStore,
  SessionSummary,
} from "../../contracts/session-store.js";

/**
 * The store as the runtime uses it, wrapped once by `createAgentRuntime`: every method's failure
 * (a rejection or a synchronous throw) becomes a `SessionStoreError` naming the method, so none
 * reaches the host, `onError` or a tool result as a raw driver error; typed Agentry errors
 * (`LeaseLostError`, `SessionNotFoundError`, ...) pass through.
 *
 * An optional capability's methods are defined only when the wrapped store has them, so
 * `isLeasableSessionStore`, `isApprovalIndexStore` and `isPrunableSessionStore` answer for the
 * wrapper as for the wrapped store.
 */
export class GuardedSessionStore implements SessionStore {
  /** Set when the wrapped store has leases (as the two below). */
  readonly acquireLease?: LeasableSessionStore["acquireLease"];
  readonly renewLease?: LeasableSessionStore["renewLease"];
  readonly releaseLease?: LeasableSessionStore["releaseLease"];
  /** Set when the wrapped store indexes approval requests (as the one below). */
  readonly findApproval?: ApprovalIndexStore["findApproval"];
  readonly listPendingApprovals?: ApprovalIndexStore["listPendingApprovals"];
  /** Set when the wrapped store can prune. */
  readonly prune?: PrunableSessionStore["prune"];
  readonly #store: SessionStore;

  constructor(store: SessionStore) {
    this.#store = store;
    if (isLeasableSessionStore(store)) {
      this.acquireLease = (sessionId, options) => guarded("acquireLease", () => store.acquireLease(sessionId, options));
      this.renewLease = (sessionId, token, options) =>
        guarded("renewLease", () => store.renewLease(sessionId, token, options));
      this.releaseLease = (sessionId, token) => guarded("releaseLease", () => store.releaseLease(sessionId, token));
    }
    if (isApprovalIndexStore(store)) {
      this.findApproval = (requestId) => guarded("findApproval", () => store.findApproval(requestId));
      this.listPendingApprovals = (query) => guarded("listPendingApprovals", () => store.listPendingApprovals(query));
    }
    if (isPrunableSessionStore(store)) this.prune = (options) => guarded("prune", () => store.prune(options));
  }

  createSession(init: CreateSessionInit): Promise<SessionSummary> {
    return guarded("createSession", () => this.#store.createSession(init));
  }

  getSession(sessionId: string): Promise<SessionSummary | undefined> {
    return guarded("getSession", () => this.#store.getSession(sessionId));
  }

  listSessions(query?: ListSessionsQuery): Promise<SessionSummary[]> {
    return guarded("listSessions", () => this.#store.listSessions(query));
  }

  updateSession(sessionId: string, patch: Parameters<SessionStore["updateSession"]>[1]): Promise<SessionSummary> {
    return guarded("updateSession", () => this.#store.updateSession(sessionId, patch));
  }

  deleteSession(sessionId: string): Promise<void> {
    return guarded("deleteSession", () => this.#store.deleteSession(sessionId));
  }

  /**
   * Appends `records`, fenced by `options.leaseToken` when one is given and the store has leases:
   * a runtime that lost its lease cannot write into the session any more (`LeaseLostError`). A
   * store without leases is appended to unfenced (it has no lease to lose).
   */
  append(sessionId: string, records: NewRecord[], options?: AppendOptions): Promise<HistoryRecord[]> {
    const store = this.#store;
    const leaseToken = options?.leaseToken;
    return guarded("append", () =>
      leaseToken !== undefined && isLeasableSessionStore(store)
        ? store.append(sessionId, records, { leaseToken })
        : store.append(sessionId, records),
    );
  }

  load(sessionId: string, options?: LoadOptions): Promise<HistoryRecord[]> {
    return guarded("load", () => this.#store.load(sessionId, options));
  }

  clear(sessionId: string): Promise<void> {
    return guarded("clear", () => this.#store.clear(sessionId));
  }
}

/** Runs one call of the store's `method`; a failure becomes a `SessionStoreError` naming it (typed errors pass through). */
async function guarded<T>(method: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (AgentryError.isInstance(error)) throw error;
    throw new SessionStoreError(
      `Session store failed during ${method}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
