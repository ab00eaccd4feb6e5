import { describe, expect, it } from "vitest";
import {
  isApprovalIndexStore,
  isLeasableSessionStore,
  isPrunableSessionStore,
  InvalidArgumentError,
  LeaseLostError,
  MemorySessionStore,
  SessionStoreError,
  type LeasableSessionStore,
  type SessionStore,
} from "@agentry/core";
import { GuardedSessionStore } from "../../src/runtime/session/guarded-session-store.js";
import type { StoreSignal } from "../../src/contracts/session-store.js";
import { MAX_STORE_SIGNAL_BYTES } from "../../src/sessions/session-store.js";

/** The store's required methods only, delegating to a memory store. */
function plainStore(): SessionStore {
  const inner = new MemorySessionStore();
  return {
    createSession: (init) => inner.createSession(init),
    getSession: (sessionId) => inner.getSession(sessionId),
    listSessions: (query) => inner.listSessions(query),
    updateSession: (sessionId, patch) => inner.updateSession(sessionId, patch),
    deleteSession: (sessionId) => inner.deleteSession(sessionId),
    append: (sessionId, records) => inner.append(sessionId, records),
    load: (sessionId, options) => inner.load(sessionId, options),
    clear: (sessionId) => inner.clear(sessionId),
  };
}

describe("GuardedSessionStore", () => {
  it("has exactly the optional capabilities of the store it wraps", () => {
    const guards = (store: SessionStore) => [
      isLeasableSessionStore(store),
      isApprovalIndexStore(store),
      isPrunableSessionStore(store),
    ];
    for (const store of [new MemorySessionStore(), plainStore()])
      expect(guards(new GuardedSessionStore(store))).toEqual(guards(store));
    expect(guards(plainStore())).toEqual([false, false, false]);
  });

  it("a method that throws at once or rejects is a SessionStoreError naming it; typed errors pass through", async () => {
    const store = plainStore();
    store.getSession = () => {
      throw new TypeError("disk on fire");
    };
    store.load = () => Promise.reject(new Error("disk full"));
    const lost = new LeaseLostError("s1", 3);
    store.clear = () => Promise.reject(lost);
    const guarded = new GuardedSessionStore(store);
    await expect(guarded.getSession("s1")).rejects.toSatisfy(
      (error: unknown) =>
        SessionStoreError.isInstance(error) &&
        error.message === "Session store failed during getSession: disk on fire" &&
        error.cause instanceof TypeError,
    );
    await expect(guarded.load("s1")).rejects.toThrow("Session store failed during load: disk full");
    await expect(guarded.clear("s1")).rejects.toBe(lost);
  });

  it("passes the lease token to append only when there is one and the store has leases", async () => {
    const appended: unknown[][] = [];
    const leasable: LeasableSessionStore = {
      ...plainStore(),
      append: (...args) => (appended.push(args.slice(2)), Promise.resolve([])),
      acquireLease: () => Promise.resolve({ token: 7, expiresAt: "" }),
      renewLease: () => Promise.resolve(undefined),
      releaseLease: () => Promise.resolve(),
    };
    const guarded = new GuardedSessionStore(leasable);
    expect(isLeasableSessionStore(guarded)).toBe(true);
    await guarded.append("s1", [], { leaseToken: 7 });
    await guarded.append("s1", [], { leaseToken: undefined });
    await guarded.append("s1", []);
    expect(appended).toEqual([[{ leaseToken: 7 }], [], []]);
    // A store without leases is never handed the option.
    const seen: unknown[][] = [];
    const plain = new GuardedSessionStore({
      ...plainStore(),
      append: (...args) => (seen.push(args), Promise.resolve([])),
    });
    await plain.append("s1", [], { leaseToken: 7 });
    expect(seen).toEqual([["s1", []]]);
  });
});

describe("GuardedSessionStore signals", () => {
  it("carries signals between wrappers of one store object, and not to another store's", async () => {
    const shared = new MemorySessionStore();
    const a = new GuardedSessionStore(shared);
    const b = new GuardedSessionStore(shared);
    const other = new GuardedSessionStore(new MemorySessionStore());
    const seen: string[] = [];
    const stopB = b.subscribe("session", (signal) => seen.push(`b:${signal.key}`));
    other.subscribe("session", (signal) => seen.push(`other:${signal.key}`));
    a.subscribe("session", () => {
      throw new Error("one listener fails");
    });
    a.subscribe("stop", (signal) => seen.push(`stop:${signal.key}`));
    await a.notify({ topic: "session", key: "s1", data: { n: 1 } });
    stopB();
    await a.notify({ topic: "session", key: "s2" });
    await b.notify({ topic: "stop", key: "s3" });
    expect(seen).toEqual(["b:s1", "stop:s3"]);
  });

  it("refuses a signal over the size limit", async () => {
    const store = new GuardedSessionStore(new MemorySessionStore());
    await expect(store.notify({ topic: "event", key: "k", data: "x".repeat(MAX_STORE_SIGNAL_BYTES) })).rejects.toThrow(
      InvalidArgumentError,
    );
  });

  it("uses the wrapped store's own signals when it has them", async () => {
    const sent: StoreSignal[] = [];
    const store = Object.assign(new MemorySessionStore(), {
      notify: async (signal: StoreSignal) => void sent.push(signal),
      subscribe: () => () => undefined,
    });
    await new GuardedSessionStore(store).notify({ topic: "session", key: "s" });
    expect(sent).toEqual([{ topic: "session", key: "s" }]);
  });
});
