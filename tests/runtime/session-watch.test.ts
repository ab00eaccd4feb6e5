import { afterEach, describe, expect, it, vi } from "vitest";
import { MemorySessionStore } from "@agentry/core";
import { GuardedSessionStore } from "../../src/runtime/session/guarded-session-store.js";
import { FIRST_RECHECK_MS, MAX_RECHECK_MS, SessionWatch } from "../../src/runtime/queue/session-watch.js";

afterEach(() => vi.useRealTimers());

/** A watch over a store, and another runtime's wrapper of the same store object (its signals reach the watch). */
function setup() {
  vi.useFakeTimers();
  const store = new MemorySessionStore();
  const checked: string[] = [];
  const watch = new SessionWatch(new GuardedSessionStore(store), (sessionId) => checked.push(sessionId));
  return { watch, checked, other: new GuardedSessionStore(store) };
}

describe("SessionWatch: a session waiting on a decision is looked at on store signals, not on a fixed poll", () => {
  it("a signal for a watched session is looked at at once; other sessions' signals are not", async () => {
    const { watch, checked, other } = setup();
    watch.watch("s1");
    await other.notify({ topic: "session", key: "s2" });
    await other.notify({ topic: "stop", key: "s1" });
    expect(checked).toEqual([]);
    await other.notify({ topic: "session", key: "s1" });
    expect(checked).toEqual(["s1"]);
  });

  it("without signals, looks again after a fallback that backs off (doubling up to the cap); a signal starts it over", async () => {
    const { watch, checked, other } = setup();
    watch.watch("s1");
    vi.advanceTimersByTime(FIRST_RECHECK_MS - 1);
    expect(checked).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(checked).toHaveLength(1);
    vi.advanceTimersByTime(2 * FIRST_RECHECK_MS - 1);
    expect(checked).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(checked).toHaveLength(2);
    vi.advanceTimersByTime(4 * FIRST_RECHECK_MS);
    expect(checked).toHaveLength(3);
    // Never further apart than the cap.
    vi.advanceTimersByTime(10 * MAX_RECHECK_MS);
    const capped = checked.length;
    vi.advanceTimersByTime(MAX_RECHECK_MS);
    expect(checked.length).toBe(capped + 1);
    await other.notify({ topic: "session", key: "s1" });
    expect(checked.length).toBe(capped + 2);
    vi.advanceTimersByTime(FIRST_RECHECK_MS);
    expect(checked.length).toBe(capped + 3);
  });

  it("an unwatched session is never looked at again", async () => {
    const { watch, checked, other } = setup();
    watch.watch("s1");
    watch.unwatch("s1");
    await other.notify({ topic: "session", key: "s1" });
    vi.advanceTimersByTime(10 * MAX_RECHECK_MS);
    expect(checked).toEqual([]);
    expect(watch.has("s1")).toBe(false);
  });
});
