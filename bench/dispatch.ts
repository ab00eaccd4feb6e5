// Dispatch benchmark: turns/s and p50/p99 turn latency (send → result, as the caller sees it) with
// 1, 2 and 4 worker processes on one Postgres database through pg-boss, equal concurrency per
// worker, a fake model answering after 50 ms (one model call per turn).
//
//   scripts/with-postgres.sh npx tsx bench/dispatch.ts [--quick]
//
// The caller is this process (a front without a runtime): SESSIONS sessions, each sending TURNS
// turns one after another, all sessions at once, so there is always more work queued than the
// workers' slots. Workers are child processes (bench/dispatch-worker.ts through tsx). Not a
// test: nothing asserts a time. Prints a markdown table and the machine's load average.
import { spawn, type ChildProcess } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import PgBoss from "pg-boss";
import { PostgresSessionStore } from "../src/postgres/postgres-session-store.js";
import { createPgBossDispatcher } from "../src/postgres/pg-boss-dispatcher.js";

const quick = process.argv.includes("--quick");
const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is unset: run through scripts/with-postgres.sh");
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const LATENCY_MS = 50;
const SESSIONS = quick ? 32 : 64;
const TURNS = quick ? 4 : 10;
const WORKER_COUNTS = [1, 2, 4];
const root = fileURLToPath(new URL("..", import.meta.url));
const workerScript = fileURLToPath(new URL("./dispatch-worker.ts", import.meta.url));

function startWorker(schema: string, bossSchema: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", workerScript, schema, bossSchema, String(CONCURRENCY), String(LATENCY_MS)],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("READY")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before READY`)));
  });
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const rows: string[] = [];
for (const workers of WORKER_COUNTS) {
  const schema = `bench_dispatch_${workers}_${Date.now()}`;
  const bossSchema = `${schema}_boss`;
  const store = new PostgresSessionStore({ connectionString: url, schema, max: 16 });
  const boss = new PgBoss({ connectionString: url, schema: bossSchema, max: 4, supervise: false, schedule: false });
  boss.on("error", () => undefined);
  await boss.start();
  const front = createPgBossDispatcher({ boss, store });
  await front.start();
  const children = await Promise.all(Array.from({ length: workers }, () => startWorker(schema, bossSchema)));
  // Warm-up: one turn per worker slot.
  await Promise.all(
    Array.from({ length: workers * CONCURRENCY }, () =>
      front.send({ agentId: "bench", content: "warm up", session: "create" }),
    ),
  );
  const latencies: number[] = [];
  const load = loadavg()[0]!;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async () => {
      let sessionId: string | undefined;
      for (let t = 0; t < TURNS; t++) {
        const t0 = performance.now();
        const result = await front.send({ agentId: "bench", content: `turn ${t}`, session: sessionId ?? "create" });
        latencies.push(performance.now() - t0);
        if (result.status !== "complete") throw new Error(`turn ended ${result.status}`);
        sessionId = result.sessionId;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  rows.push(
    `| ${workers} | ${CONCURRENCY} | ${SESSIONS * TURNS} | ${(latencies.length / seconds).toFixed(1)} | ${pct(latencies, 50).toFixed(0)} | ${pct(latencies, 99).toFixed(0)} | ${load.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} |`,
  );
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => new Promise((resolve) => child.on("exit", resolve))));
  await front.close();
  await boss.stop({ graceful: false, wait: true, close: true });
  await store.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await store.pool.query(`DROP SCHEMA IF EXISTS "${bossSchema}" CASCADE`);
  await store.close();
}
console.log(
  `Dispatch through pg-boss: ${LATENCY_MS} ms model, ${SESSIONS} sessions x ${TURNS} turns, ${cpus().length} CPUs, Node ${process.version}\n`,
);
console.log(
  "| worker processes | concurrency per worker | turns | turns/s | p50 turn (ms) | p99 turn (ms) | load avg (1 min) before / after |",
);
console.log("|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
