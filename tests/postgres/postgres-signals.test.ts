import { afterEach, describe, expect, it } from "vitest";
import { isSignalingSessionStore } from "../../src/sessions/session-store.js";
import type { StoreSignal } from "../../src/contracts/session-store.js";
import { PostgresSessionStore } from "@agentry/core/postgres";
import { adminClient, databaseUrl, requireDatabase, storeOnFreshSchema } from "./database.js";

const opened: PostgresSessionStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function until(done: () => boolean, what: string, ms = 10_000): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("PostgresSessionStore signals", () => {
  if (!requireDatabase()) return;

  it("is a SignalingSessionStore", () => {
    const store = storeOnFreshSchema();
    opened.push(store);
    expect(isSignalingSessionStore(store)).toBe(true);
  });

  it("a listening connection that drops is opened again: subscribers get a resync, then signals flow again", async () => {
    const store = storeOnFreshSchema();
    const other = new PostgresSessionStore({ connectionString: databaseUrl!, schema: store.schema });
    opened.push(other, store);
    const got: StoreSignal[] = [];
    store.subscribe("t", (signal) => got.push(signal));
    // The first resync says it listens.
    await until(() => got.some((signal) => signal.key === ""), "the first resync");
    const admin = await adminClient();
    try {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()`,
        [`LISTEN %${store.schema}%`],
      );
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    got.length = 0;
    await until(() => got.some((signal) => signal.key === ""), "the resync after the drop");
    await other.notify({ topic: "t", key: "after", data: { n: 1 } });
    await until(() => got.some((signal) => signal.key === "after"), "a signal after the reconnect");
    expect(got.find((signal) => signal.key === "after")).toEqual({ topic: "t", key: "after", data: { n: 1 } });
  });

  it("one listening connection per store object, whatever the subscribers; none before the first subscribe", async () => {
    const store = storeOnFreshSchema();
    opened.push(store);
    await store.listSessions();
    const listening = async () => {
      const admin = await adminClient();
      try {
        const { rows } = await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE $1`,
          [`LISTEN %${store.schema}%`],
        );
        return Number(rows[0]!.n);
      } finally {
        await admin.end();
      }
    };
    expect(await listening()).toBe(0);
    const stops = Array.from({ length: 20 }, (_, i) => store.subscribe(`topic-${i % 4}`, () => undefined));
    let resynced = false;
    stops.push(store.subscribe("x", (signal) => (resynced ||= signal.key === "")));
    await until(() => resynced, "the resync");
    expect(await listening()).toBe(1);
    for (const stop of stops) stop();
    await store.close();
    // The server forgets the connection a moment after it ended.
    for (let i = 0; i < 100 && (await listening()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await listening()).toBe(0);
  });
});
