/**
 * Postgres appends/s next to SQLite's, interleaved in ONE process (short slices, stores taking
 * turns, order alternating) so that a loaded machine weighs on both alike: one session appending
 * one record at a time, and 8 sessions appending at once. Medians over rounds, with quartiles.
 *
 *   AGENTRY_PG_FSYNC=on scripts/with-postgres.sh npx tsx bench/postgres-append.ts [--rounds=15] [--ms=300]
 *     [--also=<module path exporting PostgresSessionStore>]   (e.g. an older version, for an A/B)
 *
 * With `--also`, a column gives each store's rate over the first `--also` store's (the baseline:
 * the five-round-trip store is `src/postgres/postgres-session-store.ts` of commit 08ddf52, checked
 * out with `git worktree add --detach <dir> 08ddf52` and `node_modules` linked into it).
 *
 * CPU per append (median over rounds, µs): this process plus every process of the PostgreSQL server
 * (the postmaster's children, read from /proc: Linux, a server on this machine; 10 ms ticks), over
 * each slice. When the two cores are the limit (8 sessions at once), appends/s follow it, so its
 * ratio is what a busy machine leaves of the rate's ratio.
 *
 * Runs on the sources (../src). Not a test: nothing asserts a time.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
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

/** The server's processes: the postmaster's children (empty when /proc or the data directory cannot tell). */
let serverPids: number[] = [];
async function findServerPids(store: PostgresSessionStore): Promise<void> {
  try {
    const { rows } = await store.pool.query<{ setting: string }>(
      "SELECT setting FROM pg_settings WHERE name = 'data_directory'",
    );
    const postmaster = Number(readFileSync(join(rows[0]!.setting, "postmaster.pid"), "utf8").split("\n")[0]);
    serverPids = [postmaster];
  } catch {
    serverPids = [];
  }
}

/** CPU µs so far of this process and of the server's processes (utime + stime; 10 ms ticks for the server). */
function cpuNow(): { client: number; server: number } {
  const usage = process.cpuUsage();
  let server = Number.NaN;
  if (serverPids.length > 0) {
    server = 0;
    const postmaster = serverPids[0]!;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
        // fields[1] is the parent's pid; utime and stime are fields 14 and 15 of the whole line.
        if (Number(entry) !== postmaster && Number(fields[1]) !== postmaster) continue;
        server += (Number(fields[11]) + Number(fields[12])) * 10_000;
      } catch {
        // the process ended meanwhile
      }
    }
  }
  return { client: usage.user + usage.system, server };
}

/**
 * Appends per second over one slice, and CPU µs per append (this process + the server): every session of
 * `sessions` appending one record at a time, at once.
 */
async function slice(store: SessionStore, sessions: string[]): Promise<[rate: number, cpu: number]> {
  const cpuBefore = cpuNow();
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
  const rate = count / ((performance.now() - start) / 1000);
  const cpuAfter = cpuNow();
  const server = store instanceof SqliteSessionStore ? 0 : cpuAfter.server - cpuBefore.server;
  return [rate, (cpuAfter.client - cpuBefore.client + server) / count];
}

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const fmt = (value: number): string => Math.round(value).toLocaleString("en-US");

const subjects: Subject[] = [];
const pgSchema = `bench_append_${process.pid}`;
const pg = new PostgresSessionStore({ connectionString: databaseUrl, schema: pgSchema });
await findServerPids(pg);
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

interface Samples {
  one: number[];
  eight: number[];
  oneCpu: number[];
  eightCpu: number[];
}
const results = new Map<string, Samples>(
  subjects.map((s) => [s.name, { one: [], eight: [], oneCpu: [], eightCpu: [] }]),
);
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) {
      const [rate, cpu] = await slice(s.store, [s.one]);
      results.get(s.name)!.one.push(rate);
      results.get(s.name)!.oneCpu.push(cpu);
    }
    for (const s of order) {
      const [rate, cpu] = await slice(s.store, s.eight);
      results.get(s.name)!.eight.push(rate);
      results.get(s.name)!.eightCpu.push(cpu);
    }
  }
  const sqliteRow = results.get("SqliteSessionStore (file, WAL)")!;
  const baseline = also ? results.get(subjects[1]!.name) : undefined;
  console.log(
    `## Appends/s, one record per append (Node ${process.version}, ${rounds} rounds × ${sliceMs} ms slices, interleaved; ` +
      `load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(", ")})\n`,
  );
  console.log(
    "| store | one session, median (quartiles) | vs SQLite | vs baseline | CPU µs per append | " +
      "8 sessions at once, median (quartiles) | vs SQLite | vs baseline | CPU µs per append (vs baseline) |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const median = (values: number[]): number => quantile(values, 0.5);
  for (const s of subjects) {
    const { one, eight, oneCpu, eightCpu } = results.get(s.name)!;
    const cell = (values: number[]): string =>
      `${fmt(median(values))} (${fmt(quantile(values, 0.25))}-${fmt(quantile(values, 0.75))})`;
    const ratio = (values: number[], base: number[] | undefined): string =>
      base === undefined ? "–" : `${(median(values) / median(base)).toFixed(2)}x`;
    const cpuCell = (values: number[], base: number[] | undefined): string =>
      Number.isNaN(median(values))
        ? "–"
        : `${fmt(median(values))}${base === undefined ? "" : ` (${(median(base) / median(values)).toFixed(2)}x less)`}`;
    console.log(
      `| ${s.name} | ${cell(one)} | ${ratio(one, sqliteRow.one)} | ${ratio(one, baseline?.one)} | ${cpuCell(oneCpu, undefined)} | ` +
        `${cell(eight)} | ${ratio(eight, sqliteRow.eight)} | ${ratio(eight, baseline?.eight)} | ${cpuCell(eightCpu, baseline?.eightCpu)} |`,
    );
  }
} finally {
  for (const s of subjects) await s.close();
  rmSync(dir, { recursive: true, force: true });
}
