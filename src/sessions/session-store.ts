import type {
  ApprovalIndexStore,
  LeasableSessionStore,
  PrunableSessionStore,
  SessionStore,
  SignalingSessionStore,
} from "../contracts/session-store.js";

/** True when the store implements `prune`. */
export function isPrunableSessionStore(store: SessionStore): store is PrunableSessionStore {
  return typeof (store as Partial<PrunableSessionStore>).prune === "function";
}

/** True when the store implements session leases. */
export function isLeasableSessionStore(store: SessionStore): store is LeasableSessionStore {
  const candidate = store as Partial<LeasableSessionStore>;
  return (
    typeof candidate.acquireLease === "function" &&
    typeof candidate.renewLease === "function" &&
    typeof candidate.releaseLease === "function"
  );
}

/** True when the store indexes approval requests. */
export function isApprovalIndexStore(store: SessionStore): store is ApprovalIndexStore {
  const candidate = store as Partial<ApprovalIndexStore>;
  return typeof candidate.findApproval === "function" && typeof candidate.listPendingApprovals === "function";
}

export { MAX_STORE_SIGNAL_BYTES } from "../internal/store-signal.js";

/** True when the store carries signals between processes. */
export function isSignalingSessionStore(store: SessionStore): store is SignalingSessionStore {
  const candidate = store as Partial<SignalingSessionStore>;
  return typeof candidate.notify === "function" && typeof candidate.subscribe === "function";
}
