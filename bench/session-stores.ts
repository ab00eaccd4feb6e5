// Session store benchmark: appends/s, load time of a long session, "latest" routing among 1,000
// sessions, heap of idle sessions.
//
//   npx tsx --expose-gc bench/session-stores.ts [--quick] [--only=Sqlite,Postgres]
//
// (tsx passes node flags through; without --expose-gc the heap row is skipped.) Runs against the
// sources (../src), in one process, on a temp directory under os.tmpdir(). Prints a markdown
// table. Not a test: nothing asserts a time. With DATABASE_URL set (e.g. through
// `AGENTRY_PG_FSYNC=on scripts/with-postgres.sh npx tsx --expose-gc bench/session-stores.ts`) it
// adds a PostgresSessionStore row (a fresh schema, dropped afterwards).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Message } from "../src/contracts/message.js";
import { JsonlSessionStore } from "../src/node/jsonl-session-store.js";
import { MemorySessionStore } from "../src/sessions/memory-session-store.js";
import type { NewRecord, SessionStore } from "../src/contracts/session-store.js";
import { SqliteSessionStore } from "../src/sqlite/sqlite-session-store.js";
import { PostgresSessionStore } from "../src/postgres/postgres-session-store.js";

const quick = process.argv.includes("--quick");
const root = mkdtempSync(join(tmpdir(), "agentry-bench-stores-"));
let dirs = 0;
const newDir = (): string => join(root, `s${dirs++}`);

// The same texts as bench/lib/contract.ts (the comparative memory scenario).
const sessionText = (session: number, index: number): string =>
  index % 2 === 0
    ? `User message ${index} of session ${session}: please summarise the open tickets.`
    : `Assistant reply ${index} of session ${session}: there are three open tickets.`;
const message = (session: number, index: number): Message =>
  index % 2 === 0
    ? { role: "user", content: sessionText(session, index) }
    : { role: "assistant", content: [{ type: "text", text: sessionText(session, index) }] };
const record = (n: number): NewRecord => ({ id: `r${n}`, kind: "message", frame: null, message: message(0, n) });

interface StoreKind {
  name: string;
  make(): SessionStore;
  close?(store: SessionStore): unknown;
}
const kinds: StoreKind[] = [
  { name: "MemorySessionStore", make: () => new MemorySessionStore() },
  { name: "JsonlSessionStore (fsync)", make: () => new JsonlSessionStore({ root: newDir() }) },
  { name: "JsonlSessionStore (fsync: false)", make: () => new JsonlSessionStore({ root: newDir(), fsync: false }) },
  {
    name: "SqliteSessionStore (file, WAL)",
    make: () => new SqliteSessionStore({ path: `${newDir()}.db` }),
    close: (s) => (s as SqliteSessionStore).close(),
  },
];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  const schema = `bench_${process.pid}`;
  kinds.push({
    name: "PostgresSessionStore (loopback)",
    make: () => new PostgresSessionStore({ connectionString: databaseUrl, schema }),
    close: async (s) => {
      await (s as PostgresSessionStore).pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await (s as PostgresSessionStore).close();
    },
  });
}

/** Runs `step` repeatedly for about `ms` (at least `min` times); returns calls per second. */
async function rate(ms: number, min: number, step: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await step(-1 - i); // warm-up
  const start = performance.now();
  let count = 0;
  while (count < min || performance.now() - start < ms) await step(count++);
  return count / ((performance.now() - start) / 1000);
}

/** `sessions` loops at once, each appending to its own session for about `ms`; returns appends per second in all. */
async function concurrentRate(
  ms: number,
  sessions: string[],
  append: (sessionId: string, i: number) => Promise<unknown>,
): Promise<number> {
  for (const sessionId of sessions) for (let i = 0; i < 5; i++) await append(sessionId, -1 - i); // warm-up
  const start = performance.now();
  let count = 0;
  await Promise.all(
    sessions.map(async (sessionId) => {
      while (performance.now() - start < ms) {
        await append(sessionId, count++);
      }
    }),
  );
  return count / ((performance.now() - start) / 1000);
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(kind: StoreKind): Promise<Record<string, string>> {
  const store = kind.make();
  const budget = quick ? 400 : 1500;
  const single = await store.createSession({ agentId: "bench" });
  let n = 0;
  const singles = await rate(budget, 50, () => store.append(single.sessionId, [record(n++)]));
  const eight = await Promise.all(Array.from({ length: 8 }, () => store.createSession({ agentId: "bench" })));
  const parallel = await concurrentRate(
    budget,
    eight.map((session) => session.sessionId),
    (sessionId) => store.append(sessionId, [record(n++)]),
  );
  const batched = await store.createSession({ agentId: "bench" });
  const batches = await rate(budget, 20, () =>
    store.append(
      batched.sessionId,
      Array.from({ length: 10 }, () => record(n++)),
    ),
  );

  const long = await store.createSession({ agentId: "bench" });
  for (let i = 0; i < 10_000; i += 500)
    await store.append(
      long.sessionId,
      Array.from({ length: 500 }, (_, j) => record(i + j)),
    );
  const loads: number[] = [];
  const tails: number[] = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    let start = performance.now();
    const all = await store.load(long.sessionId);
    loads.push(performance.now() - start);
    if (all.length !== 10_000) throw new Error(`${kind.name}: loaded ${all.length} records`);
    start = performance.now();
    await store.load(long.sessionId, { sinceLastReset: true, afterSeq: 9_980 });
    tails.push(performance.now() - start);
  }
  // "latest" routing: the newest session of one agent among 1,000 sessions of 10 agents.
  for (let i = 0; i < 1000; i++) await store.createSession({ agentId: `agent-${i % 10}` });
  const latest: number[] = [];
  for (let i = 0; i < (quick ? 3 : 7); i++) {
    const start = performance.now();
    await store.listSessions({ agentId: "agent-3", limit: 1 });
    latest.push(performance.now() - start);
  }
  await kind.close?.(store);
  return {
    "single appends/s": Math.round(singles).toLocaleString("en-US"),
    "single appends/s, 8 sessions at once": Math.round(parallel).toLocaleString("en-US"),
    "batches of 10/s (records/s)": `${Math.round(batches).toLocaleString("en-US")} (${Math.round(batches * 10).toLocaleString("en-US")})`,
    "load 10,000 records, ms": median(loads).toFixed(1),
    "load last 20 of 10,000, ms": median(tails).toFixed(2),
    "latest of 1,000 sessions, ms": median(latest).toFixed(2),
  };
}

/** Heap held by 1,000 idle sessions × 20 messages, one append per message (as the comparative bench). */
async function idleHeap(build: () => Promise<unknown>): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return "n/a (run with --expose-gc)";
  // Each sample in its own frame: a value awaited directly stays alive in the suspended frame
  // until the next await, and would be freed during the following measurement.
  const sample = async (): Promise<number> => {
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    const held = await build();
    gc();
    gc();
    const delta = process.memoryUsage().heapUsed - before;
    return held === undefined ? Number.NaN : delta;
  };
  await sample(); // warms the code paths
  const samples: number[] = [];
  for (let round = 0; round < (quick ? 1 : 3); round++) samples.push(await sample());
  return (median(samples) / 2 ** 20).toFixed(2);
}

async function main(): Promise<void> {
  // Heap first, on a clean heap (as bench/lib/harness.ts does).
  const heap = {
    memoryStore: await idleHeap(async () => {
      const store = new MemorySessionStore();
      for (let s = 0; s < 1000; s++) {
        const { sessionId } = await store.createSession({ agentId: "bench" });
        for (let i = 0; i < 20; i++)
          await store.append(sessionId, [{ id: `m${i}`, frame: null, kind: "message", message: message(s, i) }]);
      }
      return store;
    }),
    plainArrays: await idleHeap(
      async () =>
        new Map(
          Array.from({ length: 1000 }, (_, s) => [`session-${s}`, Array.from({ length: 20 }, (_, i) => message(s, i))]),
        ),
    ),
  };
  const rows: Record<string, Record<string, string>> = {};
  // --only=Sqlite,Postgres: the stores whose name contains one of these.
  const only = process.argv
    .find((arg) => arg.startsWith("--only="))
    ?.slice(7)
    .split(",");
  for (const kind of kinds)
    if (!only || only.some((part) => kind.name.includes(part))) rows[kind.name] = await measure(kind);
  const columns = Object.keys(Object.values(rows)[0]!);
  console.log(`## Session stores (Node ${process.version}${quick ? ", quick" : ""})\n`);
  console.log(`| store | ${columns.join(" | ")} |`);
  console.log(`| --- | ${columns.map(() => "---:").join(" | ")} |`);
  for (const [name, row] of Object.entries(rows))
    console.log(`| ${name} | ${columns.map((c) => row[c]).join(" | ")} |`);
  console.log(`\n| heap of 1,000 idle sessions × 20 messages | MB |\n| --- | ---: |`);
  console.log(`| MemorySessionStore (one append per message) | ${heap.memoryStore} |`);
  console.log(`| plain \`Map<string, Message[]>\` (floor) | ${heap.plainArrays} |`);
  console.log(`\nTemp files under ${tmpdir()} (removed). fsync cost depends on the disk.`);
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
