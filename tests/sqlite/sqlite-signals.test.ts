import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { isSignalingSessionStore } from "../../src/sessions/session-store.js";
import type { StoreSignal } from "../../src/contracts/session-store.js";
import { SIGNAL_RETENTION_MS } from "../../src/sqlite/sqlite-signals.js";

const dirs: string[] = [];
const newFile = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), "agentry-signals-"));
  dirs.push(dir);
  return join(dir, "sessions.db");
};
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function until(done: () => boolean, what: string, ms = 5_000): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

describe("SqliteSessionStore signals", () => {
  it("is a SignalingSessionStore", () => {
    const store = new SqliteSessionStore({ path: ":memory:" });
    expect(isSignalingSessionStore(store)).toBe(true);
    store.close();
  });

  it("a signal from another connection arrives by the file's change, long before the idle re-check", async () => {
    const path = await newFile();
    // An idle re-check of a minute: only the push (the folder's watch) can deliver within the test.
    const reader = new SqliteSessionStore({ path, signalIdleCheckMs: 60_000 });
    const writer = new SqliteSessionStore({ path });
    const got: StoreSignal[] = [];
    reader.subscribe("t", (signal) => got.push(signal));
    // Let the fallback's first checks after subscribing pass: it then waits long.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await writer.notify({ topic: "t", key: "k", data: [1, "two"] });
    await until(() => got.length > 0, "the signal", 5_000);
    expect(got).toEqual([{ topic: "t", key: "k", data: [1, "two"] }]);
    reader.close();
    writer.close();
  });

  it("rows older than the retention are pruned by the next notify", async () => {
    const path = await newFile();
    const first = new SqliteSessionStore({ path });
    await first.notify({ topic: "t", key: "old" });
    first.database.prepare("UPDATE agentry_signals SET at = at - ?").run(SIGNAL_RETENTION_MS + 1_000);
    first.close();
    const second = new SqliteSessionStore({ path });
    await second.notify({ topic: "t", key: "new" });
    const keys = second.database.prepare("SELECT key FROM agentry_signals ORDER BY id").pluck().all();
    expect(keys).toEqual(["new"]);
    second.close();
  });

  it("after close, no signal is delivered to the closed store object's subscribers", async () => {
    const path = await newFile();
    const reader = new SqliteSessionStore({ path });
    const writer = new SqliteSessionStore({ path });
    const got: StoreSignal[] = [];
    reader.subscribe("t", (signal) => got.push(signal));
    await writer.notify({ topic: "t", key: "before" });
    await until(() => got.length === 1, "the first signal");
    reader.close();
    await writer.notify({ topic: "t", key: "after" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(got.map((signal) => signal.key)).toEqual(["before"]);
    writer.close();
  });
});
