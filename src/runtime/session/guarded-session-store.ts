import { AgentryError } from "../../errors/agentry-error.js";
import { InvalidArgumentError, SessionStoreError } from "../../errors/errors.js";
import {
  isApprovalIndexStore,
  isLeasableSessionStore,
  isPrunableSessionStore,
  isSignalingSessionStore,
  MAX_STORE_SIGNAL_BYTES,
} from "../../sessions/session-store.js";
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
  SignalingSessionStore,
  StoreSignal,
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
 *
 * Signals (`notify` / `subscribe`) are always there: through the wrapped store when it carries
 * them between processes, else between the runtimes of this process that share the store object.
 */
export class GuardedSessionStore implements SignalingSessionStore {
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
  readonly #signals: Pick<SignalingSessionStore, "notify" | "subscribe">;

  constructor(store: SessionStore) {
    this.#store = store;
    this.#signals = isSignalingSessionStore(store) ? store : localSignals(store);
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

  /** Sends `signal` to every subscriber of its topic; a signal over {@link MAX_STORE_SIGNAL_BYTES} → `InvalidArgumentError`. */
  notify(signal: StoreSignal): Promise<void> {
    const size = new TextEncoder().encode(JSON.stringify(signal)).length;
    if (size > MAX_STORE_SIGNAL_BYTES)
      return Promise.reject(
        new InvalidArgumentError(`A store signal takes ${size} bytes, over ${MAX_STORE_SIGNAL_BYTES}`),
      );
    return guarded("notify", () => this.#signals.notify(signal));
  }

  /**
   * Tells waiters that something they may care about was stored in session `sessionId` (topic
   * `"session"`): a hint, sent without waiting; a failure to send it is dropped (waiters re-check).
   */
  hintSession(sessionId: string): void {
    this.notify({ topic: "session", key: sessionId }).catch(() => undefined);
  }

  /** Calls `listener` for every signal on `topic` until the returned function is called; a listener's throw is dropped. */
  subscribe(topic: string, listener: (signal: StoreSignal) => void): () => void {
    return this.#signals.subscribe(topic, (signal) => {
      try {
        listener(signal);
      } catch {
        // A signal is a hint: one subscriber's failure must not keep it from the others.
      }
    });
  }
}

type Listener = (signal: StoreSignal) => void;
/** Per wrapped store object: the subscribers of each topic, for stores that carry no signals themselves. */
const localHubs = new WeakMap<SessionStore, Map<string, Set<Listener>>>();

/** Signals between the runtimes of this process that share `store` (delivered on a microtask, like a store's would be). */
function localSignals(store: SessionStore): Pick<SignalingSessionStore, "notify" | "subscribe"> {
  let hub = localHubs.get(store);
  if (!hub) localHubs.set(store, (hub = new Map()));
  const topics = hub;
  return {
    async notify(signal) {
      const copy = structuredClone(signal);
      for (const listener of [...(topics.get(copy.topic) ?? [])]) listener(copy);
    },
    subscribe(topic, listener) {
      let listeners = topics.get(topic);
      if (!listeners) topics.set(topic, (listeners = new Set()));
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && topics.get(topic) === listeners) topics.delete(topic);
      };
    },
  };
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
