/**
 * Postgres appends/s next to SQLite's, interleaved in ONE process (short slices, stores taking
 * turns, order alternating) so that a loaded machine weighs on both alike: one session appending
 * one record at a time, and 8 sessions appending at once. Medians over rounds, with quartiles.
 *
 *   AGENTRY_PG_FSYNC=on scripts/with-postgres.sh npx tsx bench/postgres-append.ts [--rounds=15] [--ms=300]
 *     [--also=<module path exporting PostgresSessionStore>]   (e.g. an older version, for an A/B)
 *
 * Runs on the sources (../src). Not a test: nothing asserts a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import type { NewRecord, SessionStore } from "../src/contracts/session-store.js";
import { PostgresSessionStore } from "../src/postgres/postgres-session-store.js";
import { SqliteSessionStore } from "../src/sqlite/sqlite-session-store.js";

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option("rounds", "15"));
const sliceMs = Number(option("ms", "300"));
const also = option("also", "");
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is unset: run through scripts/with-postgres.sh");

const dir = mkdtempSync(join(tmpdir(), "agentry-bench-pg-append-"));
let n = 0;
const record = (): NewRecord => ({
  id: `r${n++}`,
  kind: "message",
  frame: null,
  message: { role: "user", content: `User message ${n}: please summarise the open tickets.` },
});

interface Subject {
  name: string;
  store: SessionStore;
  one: string;
  eight: string[];
  close(): Promise<unknown>;
}

async function subject(name: string, store: SessionStore, close: () => Promise<unknown>): Promise<Subject> {
  const one = (await store.createSession({ agentId: "bench" })).sessionId;
  const eight = await Promise.all(
    Array.from({ length: 8 }, async () => (await store.createSession({ agentId: "bench" })).sessionId),
  );
  for (let i = 0; i < 20; i++) await store.append(one, [record()]);
  return { name, store, one, eight, close };
}

/** Appends per second over one slice: every session of `sessions` appending one record at a time, at once. */
async function slice(store: SessionStore, sessions: string[]): Promise<number> {
  const start = performance.now();
  let count = 0;
  await Promise.all(
    sessions.map(async (sessionId) => {
      while (performance.now() - start < sliceMs) {
        await store.append(sessionId, [record()]);
        count++;
      }
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const fmt = (value: number): string => Math.round(value).toLocaleString("en-US");

const subjects: Subject[] = [];
const pgSchema = `bench_append_${process.pid}`;
const pg = new PostgresSessionStore({ connectionString: databaseUrl, schema: pgSchema });
subjects.push(
  await subject("PostgresSessionStore", pg, async () => {
    await pg.pool.query(`DROP SCHEMA "${pgSchema}" CASCADE`);
    await pg.close();
  }),
);
if (also) {
  const { PostgresSessionStore: Other } = (await import(resolve(also))) as {
    PostgresSessionStore: typeof PostgresSessionStore;
  };
  const schema = `bench_append_also_${process.pid}`;
  const other = new Other({ connectionString: databaseUrl, schema });
  subjects.push(
    await subject(`PostgresSessionStore (${also})`, other, async () => {
      await other.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await other.close();
    }),
  );
}
const sqlite = new SqliteSessionStore({ path: join(dir, "bench.db") });
subjects.push(await subject("SqliteSessionStore (file, WAL)", sqlite, async () => sqlite.close()));

const results = new Map(subjects.map((s) => [s.name, { one: [] as number[], eight: [] as number[] }]));
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) results.get(s.name)!.one.push(await slice(s.store, [s.one]));
    for (const s of order) results.get(s.name)!.eight.push(await slice(s.store, s.eight));
  }
  const sqliteRow = results.get("SqliteSessionStore (file, WAL)")!;
  console.log(
    `## Appends/s, one record per append (Node ${process.version}, ${rounds} rounds × ${sliceMs} ms slices, interleaved)\n`,
  );
  console.log(
    "| store | one session, median (quartiles) | vs SQLite | 8 sessions at once, median (quartiles) | vs SQLite |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const s of subjects) {
    const { one, eight } = results.get(s.name)!;
    const cell = (values: number[]): string =>
      `${fmt(quantile(values, 0.5))} (${fmt(quantile(values, 0.25))}-${fmt(quantile(values, 0.75))})`;
    const ratio = (values: number[], base: number[]): string =>
      `${(quantile(values, 0.5) / quantile(base, 0.5)).toFixed(3)}x`;
    console.log(
      `| ${s.name} | ${cell(one)} | ${ratio(one, sqliteRow.one)} | ${cell(eight)} | ${ratio(eight, sqliteRow.eight)} |`,
    );
  }
} finally {
  for (const s of subjects) await s.close();
  rmSync(dir, { recursive: true, force: true });
}
