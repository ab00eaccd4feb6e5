/**
 * Nested tenants (issue 22): `store.listSessions({ scopePrefix })` and
 * `runtime.pendingApprovals({ scopePrefix })` for one tenant (`acme/`: 10 sessions in 10 scopes,
 * 4 of them with a pending approval) with 20 and with 20,000 sessions in the store. The tenant's
 * sessions are the oldest, so a store that walks every session newest first until it has found
 * them pays for all the others. The other sessions belong to 1,000 other tenants (one in ten to
 * `acme2/...`, whose ids `acme/` must not match), one in ten of them with a pending approval, and
 * one in twenty is unscoped. Target: each call within 1.5x between 20 and 20,000 sessions.
 *
 *   npx tsx bench/scope-prefix.ts [--quick]                                  (memory, SQLite)
 *   scripts/with-postgres.sh npx tsx bench/scope-prefix.ts [--quick]         (+ Postgres)
 *
 * Runs against the sources (../src). With DATABASE_URL set it adds Postgres (a fresh schema per
 * size, vacuumed and analysed after filling, dropped afterwards). Both sizes of a store are filled
 * first, then measured alternately over several rounds (the median of each round's median), so
 * load from other work on the machine hits both alike. `--only=<text>` runs the stores whose name
 * contains it. Prints a markdown table; not a test, nothing asserts a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import {
  createAgentRegistry,
  createAgentRuntime,
  MemorySessionStore,
  type AgentRuntime,
  type NewRecord,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { PostgresSessionStore } from "../src/entries/postgres.js";
import { createFakeProvider } from "../src/entries/testing.js";

const quick = process.argv.includes("--quick");
const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);
const ROUNDS = quick ? 3 : 7;
const TENANT = 10;
const TENANT_PENDING = 4;
const SIZES = [20, 20_000];
const root = mkdtempSync(join(tmpdir(), "agentry-scope-prefix-bench-"));

interface StoreKind {
  name: string;
  make(size: number): SessionStore;
  close(store: SessionStore): Promise<void>;
}

const kinds: StoreKind[] = [
  { name: "MemorySessionStore", make: () => new MemorySessionStore(), close: async () => undefined },
  {
    name: "SqliteSessionStore (file, WAL)",
    make: (size) => {
      const database = new Database(join(root, `sessions-${size}.db`));
      database.pragma("journal_mode = WAL");
      database.pragma("synchronous = OFF"); // filling 20,000 sessions; the measured calls only read
      return new SqliteSessionStore({ database });
    },
    close: async (store) => void (store as SqliteSessionStore).database.close(),
  },
];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  kinds.push({
    name: "PostgresSessionStore (loopback)",
    make: (size) =>
      new PostgresSessionStore({ connectionString: databaseUrl, schema: `bench_scope_${process.pid}_${size}` }),
    close: async (store) => {
      const postgres = store as PostgresSessionStore;
      await postgres.pool.query(`DROP SCHEMA "${postgres.schema}" CASCADE`);
      await postgres.close();
    },
  });
}

const asked = (requestId: string): NewRecord => ({
  id: requestId,
  kind: "approval",
  frame: null,
  runId: `run-${requestId}`,
  request: {
    requestId,
    toolCallId: `call-${requestId}`,
    name: "guarded",
    args: {},
    depth: 0,
    parentId: null,
    reason: "tool requires approval",
  },
});

/** The tenant's sessions first (the oldest), then the others, 50 at a time. */
async function fill(store: SessionStore, size: number): Promise<void> {
  for (let n = 0; n < TENANT; n++) {
    const { sessionId } = await store.createSession({ agentId: "bench", scope: `acme/u${n}` });
    if (n < TENANT_PENDING) await store.append(sessionId, [asked(`acme-${n}`)]);
  }
  const others = size - TENANT;
  for (let start = 0; start < others; start += 50) {
    const batch = Array.from({ length: Math.min(50, others - start) }, (_, k) => start + k);
    await Promise.all(
      batch.map(async (n) => {
        const scope = n % 20 === 0 ? undefined : n % 10 === 1 ? `acme2/u${n}` : `t${n % 1000}/u${n}`;
        const { sessionId } = await store.createSession({ agentId: "bench", ...(scope !== undefined && { scope }) });
        if (n % 10 === 3) await store.append(sessionId, [asked(`other-${n}`)]);
      }),
    );
  }
}

/** Median ms of `rounds` calls after a warm-up. */
async function time(rounds: number, call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

interface Filled {
  store: SessionStore;
  runtime: AgentRuntime;
}

async function prepare(kind: StoreKind, size: number): Promise<Filled> {
  const store = kind.make(size);
  await fill(store, size);
  if (store instanceof PostgresSessionStore)
    await store.pool.query(`VACUUM ANALYZE "${store.schema}".sessions, "${store.schema}".approvals`);
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "bench", displayName: "Bench" }]),
    store,
    providers: { fake: createFakeProvider(() => ({ text: "unused" }), { record: false }) },
    defaultModel: "fake",
  });
  const listed = await store.listSessions({ scopePrefix: "acme/", limit: 50 });
  const pending = await runtime.pendingApprovals({ scopePrefix: "acme/" });
  if (listed.length !== TENANT || pending.length !== TENANT_PENDING) {
    throw new Error(`${kind.name}, ${size}: listed ${listed.length} sessions and ${pending.length} approvals`);
  }
  return { store, runtime };
}

/** Each size's median per round, sizes alternating, then the median over rounds. */
async function measure(kind: StoreKind, filled: Filled[]): Promise<{ list: number; pending: number }[]> {
  const calls = kind.name.startsWith("Postgres") ? (quick ? 30 : 200) : quick ? 100 : 1000;
  const samples = filled.map(() => ({ list: [] as number[], pending: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, { store, runtime }] of filled.entries()) {
      samples[index]!.list.push(await time(calls, () => store.listSessions({ scopePrefix: "acme/", limit: 50 })));
      samples[index]!.pending.push(await time(calls, () => runtime.pendingApprovals({ scopePrefix: "acme/" })));
    }
  }
  return samples.map(({ list, pending }) => ({ list: median(list), pending: median(pending) }));
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

const ms = (value: number) => (value < 0.1 ? value.toFixed(4) : value.toFixed(3));

async function main(): Promise<void> {
  console.log(
    "| store | sessions | `listSessions({ scopePrefix, limit: 50 })`, ms | `pendingApprovals({ scopePrefix })`, ms |",
  );
  console.log("| --- | ---: | ---: | ---: |");
  const ratios: string[] = [];
  for (const kind of kinds.filter((candidate) => only === undefined || candidate.name.includes(only))) {
    const filled: Filled[] = [];
    try {
      for (const size of SIZES) {
        console.error(`filling ${kind.name} with ${size.toLocaleString("en-US")} sessions...`);
        filled.push(await prepare(kind, size));
      }
      console.error(`measuring ${kind.name}...`);
      const results = await measure(kind, filled);
      for (const [index, size] of SIZES.entries()) {
        console.log(
          `| ${kind.name} | ${size.toLocaleString("en-US")} | ${ms(results[index]!.list)} | ${ms(results[index]!.pending)} |`,
        );
      }
      const [small, large] = results as [{ list: number; pending: number }, { list: number; pending: number }];
      ratios.push(
        `| ${kind.name} | ${(large.list / small.list).toFixed(2)}x | ${(large.pending / small.pending).toFixed(2)}x |`,
      );
    } finally {
      for (const { store, runtime } of filled) {
        await runtime.close();
        await kind.close(store);
      }
    }
  }
  console.log("\n| store | listSessions 20,000 / 20 | pendingApprovals 20,000 / 20 |\n| --- | ---: | ---: |");
  for (const row of ratios) console.log(row);
}

try {
  await main();
} finally {
  rmSync(root, { recursive: true, force: true });
}
