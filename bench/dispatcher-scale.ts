/**
 * Turns/s with 1, 2 and 4 dispatcher worker processes on one Postgres database (the pg-boss
 * dispatcher, `src/postgres/pg-boss-dispatcher.ts`), and where the CPU goes: each turn's CPU time
 * in the workers, in the PostgreSQL server and in the front, next to how busy the machine's cores
 * were. That says whether a run was bound by the model's latency (cores idle), by the workers' CPU
 * or by the database's.
 *
 *   scripts/with-postgres.sh npx tsx bench/dispatcher-scale.ts [--concurrency=1] [--model-ms=50]
 *     [--sessions=48] [--turns=6] [--workers=1,2,4]
 *
 * The front is this process (a dispatcher without a runtime): `--sessions` sessions at once, each
 * sending `--turns` turns one after another, so more work is queued than the workers' slots
 * (`--concurrency` turns at once per worker). Workers are child processes
 * (`bench/dispatch-worker.ts`: a runtime on the Postgres store, the scripted model answering after
 * `--model-ms`). CPU times are read from /proc (Linux; the server on this machine, its processes
 * being the postmaster's children; 10 ms ticks), "cores busy" from /proc/stat over the timed part
 * (every process of the machine, other work included).
 *
 * `--statements` also prints, per worker count, the statements the server spent the most time on
 * (calls and execution ms per turn, from pg_stat_statements): start the cluster with
 * `AGENTRY_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements" scripts/with-postgres.sh ...`.
 * Not a test: nothing asserts a time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import PgBoss from "pg-boss";
import { PostgresSessionStore } from "../src/postgres/postgres-session-store.js";
import { createPgBossDispatcher } from "../src/postgres/pg-boss-dispatcher.js";

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is unset: run through scripts/with-postgres.sh");
const concurrency = Number(option("concurrency", "1"));
const modelMs = Number(option("model-ms", "50"));
const sessions = Number(option("sessions", "48"));
const turns = Number(option("turns", "6"));
const workerCounts = option("workers", "1,2,4").split(",").map(Number);
const statements = process.argv.includes("--statements");
const root = fileURLToPath(new URL("..", import.meta.url));
const workerScript = fileURLToPath(new URL("./dispatch-worker.ts", import.meta.url));

function startWorker(schema: string, bossSchema: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", workerScript, schema, bossSchema, String(concurrency), String(modelMs)],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("READY")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before READY`)));
  });
}

const TICK_MS = 10;

/** utime + stime of a process (ms), and its parent's pid; undefined when it is gone. */
function procStat(pid: number): { cpuMs: number; parent: number } | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return { cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS, parent: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** CPU ms so far of the postmaster and its children (NaN when the server is not on this machine). */
function serverCpuMs(postmaster: number | undefined): number {
  if (postmaster === undefined) return Number.NaN;
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = procStat(pid);
    if (stat && (pid === postmaster || stat.parent === postmaster)) total += stat.cpuMs;
  }
  return total;
}

/** Busy and total jiffies of the machine's CPUs (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = fields[3]! + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

async function postmasterPid(store: PostgresSessionStore): Promise<number | undefined> {
  try {
    const { rows } = await store.pool.query<{ setting: string }>(
      "SELECT setting FROM pg_settings WHERE name = 'data_directory'",
    );
    return Number(readFileSync(join(rows[0]!.setting, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return undefined;
  }
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

interface Row {
  workers: number;
  turnsPerSecond: number;
  p50: number;
  p99: number;
  workerCpu: number;
  serverCpu: number;
  frontCpu: number;
  coresBusy: number;
  load: string;
  /** The top statements by execution time (with `--statements`). */
  top: string[];
}

/** The statements the server spent the most time on since the last reset: calls and execution ms per turn. */
async function topStatements(store: PostgresSessionStore, count: number): Promise<string[]> {
  const { rows } = await store.pool.query<{ query: string; calls: string; ms: number }>(
    `SELECT query, calls, total_exec_time AS ms FROM pg_stat_statements
     WHERE query NOT ILIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 12`,
  );
  return rows.map(
    (row) =>
      `| ${(Number(row.calls) / count).toFixed(2)} | ${(row.ms / count).toFixed(3)} | ` +
      `\`${row.query
        .replace(/\s+/g, " ")
        .replace(/"?bench_scale_\w+?(_boss)?"?\./g, (_m, boss?: string) => (boss ? "boss." : "s."))
        .replace(/\|/g, "\\|")
        .slice(0, 110)}\` |`,
  );
}

async function run(workers: number): Promise<Row> {
  const schema = `bench_scale_${workers}_${Date.now()}`;
  const bossSchema = `${schema}_boss`;
  const store = new PostgresSessionStore({ connectionString: url!, schema, max: 16 });
  const postmaster = await postmasterPid(store);
  const boss = new PgBoss({ connectionString: url!, schema: bossSchema, max: 4, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  const front = createPgBossDispatcher({ boss, store });
  await front.start();
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(schema, bossSchema)));
  // Warm-up: one turn per worker slot.
  await Promise.all(
    Array.from({ length: workers * concurrency }, () =>
      front.send({ agentId: "bench", content: "warm up", session: "create" }),
    ),
  );
  if (statements) {
    await store.pool.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await store.pool.query("SELECT pg_stat_statements_reset()");
  }
  const latencies: number[] = [];
  const loadBefore = loadavg()[0]!;
  const workerCpuBefore = children.map((child) => procStat(child.pid!)?.cpuMs ?? Number.NaN);
  const serverBefore = serverCpuMs(postmaster);
  const frontBefore = process.cpuUsage();
  const ticksBefore = machineTicks();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async () => {
      let sessionId: string | undefined;
      for (let t = 0; t < turns; t++) {
        const t0 = performance.now();
        const result = await front.send({ agentId: "bench", content: `turn ${t}`, session: sessionId ?? "create" });
        latencies.push(performance.now() - t0);
        if (result.status !== "complete") throw new Error(`turn ended ${result.status}`);
        sessionId = result.sessionId;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const ticksAfter = machineTicks();
  const front_ = process.cpuUsage(frontBefore);
  const serverAfter = serverCpuMs(postmaster);
  const workerCpu = children.reduce(
    (sum, child, i) => sum + ((procStat(child.pid!)?.cpuMs ?? Number.NaN) - workerCpuBefore[i]!),
    0,
  );
  const count = latencies.length;
  latencies.sort((a, b) => a - b);
  const row: Row = {
    workers,
    turnsPerSecond: count / seconds,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    workerCpu: workerCpu / count,
    serverCpu: (serverAfter - serverBefore) / count,
    frontCpu: (front_.user + front_.system) / 1000 / count,
    coresBusy: ((ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total)) * cpus().length,
    load: `${loadBefore.toFixed(1)} / ${loadavg()[0]!.toFixed(1)}`,
    top: statements ? await topStatements(store, count) : [],
  };
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => new Promise((resolve) => child.on("exit", resolve))));
  await front.close();
  await boss.stop({ graceful: false, wait: true, close: true });
  await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await store.pool.query(`DROP SCHEMA IF EXISTS "${bossSchema}" CASCADE`);
  await store.close();
  return row;
}

const rows: Row[] = [];
for (const workers of workerCounts) rows.push(await run(workers));
const base = rows.find((row) => row.workers === 1) ?? rows[0]!;
console.log(
  `Dispatcher scale: ${modelMs} ms model, ${concurrency} turn(s) at once per worker, ${sessions} sessions × ${turns} turns, ` +
    `${cpus().length} CPUs, Node ${process.version}\n`,
);
console.log(
  "| worker processes | turns/s | vs 1 worker | p50 turn (ms) | p99 turn (ms) | CPU ms per turn: workers | " +
    "PostgreSQL | front | cores busy (of " +
    `${cpus().length}, whole machine) | load avg before / after |`,
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
for (const row of rows) {
  console.log(
    `| ${row.workers} | ${row.turnsPerSecond.toFixed(1)} | ${(row.turnsPerSecond / base.turnsPerSecond).toFixed(2)}x | ` +
      `${row.p50.toFixed(0)} | ${row.p99.toFixed(0)} | ${row.workerCpu.toFixed(2)} | ${row.serverCpu.toFixed(2)} | ` +
      `${row.frontCpu.toFixed(2)} | ${row.coresBusy.toFixed(2)} | ${row.load} |`,
  );
}
for (const row of rows) {
  if (row.top.length === 0) continue;
  console.log(`\n${row.workers} worker(s): the statements the server spent the most time on\n`);
  console.log("| calls per turn | execution ms per turn | statement |");
  console.log("| ---: | ---: | --- |");
  for (const line of row.top) console.log(line);
}
