/**
 * Where one Postgres append's time goes (issue 28): the loopback round-trip floor, the driver, the
 * server's work and the store's own JavaScript, each timed in ONE process, interleaved (short
 * slices taking turns, order alternating), one session appending one record at a time.
 *
 *   scripts/with-postgres.sh npx tsx bench/postgres-append-profile.ts [--rounds=9] [--ms=300] [--explain]
 *     [--src=<a src/ folder of another version>]   (the same rows for that version's store and schema)
 *
 * Rows, per operation: wall µs (median over rounds, with quartiles), this process's CPU µs and the
 * server backend's CPU µs (from /proc, so Linux only, with the server on this machine; 10 ms ticks,
 * so read them to about 10 µs):
 * - `SELECT 1`: a bare round trip on one client (simple protocol), then with a parameter (extended
 *   protocol, unnamed statement: parsed and planned at every call) and as a named prepared statement.
 * - `append_records` called on one client with the arrays ready (no store code), unnamed and named.
 * - the same function on the server alone: a DO block calling it N times with a COMMIT after each
 *   (no network, no client, no parse), and without the COMMIT.
 * - `store.append` whole (its pool holds one connection), and the store's JavaScript alone (the
 *   store on a pool that answers at once).
 * `--explain` first prints the plan of each statement in the function (auto_explain, nested statements).
 *
 * Not a test: nothing asserts a time.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import type { NewRecord } from "../src/contracts/session-store.js";
import type { PostgresSessionStore as Store } from "../src/postgres/postgres-session-store.js";

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option("rounds", "9"));
const sliceMs = Number(option("ms", "300"));
const src = resolve(option("src", new URL("../src", import.meta.url).pathname));
const explain = process.argv.includes("--explain");
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("DATABASE_URL is unset: run through scripts/with-postgres.sh");

const { PostgresSessionStore } = (await import(`${src}/postgres/postgres-session-store.ts`)) as {
  PostgresSessionStore: typeof Store;
};
const { POSTGRES_SCHEMA_VERSION } = (await import(`${src}/postgres/postgres-migrations.ts`)) as {
  POSTGRES_SCHEMA_VERSION: number;
};

let n = 0;
const record = (): NewRecord => ({
  id: `r${n++}`,
  kind: "message",
  frame: null,
  message: { role: "user", content: `User message ${n}: please summarise the open tickets.` },
});
/** `append_records`' arguments for one message record, as the store builds them. */
const args = (sessionId: string): unknown[] => {
  const id = `r${n++}`;
  const content = `User message ${n}: please summarise the open tickets.`;
  const rest = `"frame":null,"kind":"message","message":{"role":"user","content":"${content}"}}`;
  return [sessionId, null, [id], [JSON.stringify(id)], [null], ["message"], [rest], [null], [false]];
};

const schema = `bench_profile_${process.pid}`;
const store = new PostgresSessionStore({ connectionString: databaseUrl, schema, max: 1 });
const sessionId = (await store.createSession({ agentId: "bench" })).sessionId;
const doSession = (await store.createSession({ agentId: "bench" })).sessionId;
for (let i = 0; i < 20; i++) await store.append(sessionId, [record()]);
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();
const backendOf = async (query: (sql: string) => Promise<pg.QueryResult>): Promise<number> =>
  Number((await query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
const clientPid = await backendOf((sql) => client.query(sql));
const storePid = await backendOf((sql) => store.pool.query(sql));
const call = `SELECT status, at, last_seq, existing FROM "${schema}".append_records($1, $2, $3, $4, $5, $6, $7, $8, $9)`;

/** A backend's CPU time so far, µs (utime + stime, in clock ticks of 10 ms); NaN when /proc cannot tell. */
function serverCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** The store's JavaScript alone: a pool whose one client answers every query at once, as `append_records` would. */
function instantPool(): pg.Pool {
  const row = { version: POSTGRES_SCHEMA_VERSION, status: "ok", at: "2026-11-25T00:00:00.000Z", last_seq: "41" };
  const fake = { query: async () => ({ rows: [{ ...row, existing: null }], rowCount: 1 }), release: () => undefined };
  return { connect: async () => ({ ...fake, on: () => fake }) } as unknown as pg.Pool;
}
const jsOnly = new PostgresSessionStore({ pool: instantPool(), schema });

const DO_CALLS = 200;
const doBlock = (commit: boolean): string => `DO $$ DECLARE i int; BEGIN
  FOR i IN 1..${DO_CALLS} LOOP
    PERFORM "${schema}".append_records('${doSession}', NULL, ARRAY['d' || i || '-' || random()],
      ARRAY['"d' || i || '"'], ARRAY[NULL]::text[], ARRAY['message'],
      ARRAY['"frame":null,"kind":"message","message":{"role":"user","content":"User message: please summarise the open tickets."}}'],
      ARRAY[NULL]::text[], ARRAY[false]);
    ${commit ? "COMMIT;" : ""}
  END LOOP; END $$`;

interface Row {
  name: string;
  /** Operations per call of `run`. */
  per: number;
  /** The backend doing the row's server work. */
  pid: number;
  run(): Promise<unknown>;
}
const named = (name: string, text: string, values: unknown[]) => client.query({ name, text, values });
const rows: Row[] = [
  { name: "SELECT 1, one client (simple protocol)", per: 1, pid: clientPid, run: () => client.query("SELECT 1") },
  { name: "SELECT $1, unnamed statement", per: 1, pid: clientPid, run: () => client.query("SELECT $1::int", [1]) },
  { name: "SELECT $1, named prepared", per: 1, pid: clientPid, run: () => named("one", "SELECT $1::int", [1]) },
  {
    name: "append_records on one client, unnamed",
    per: 1,
    pid: clientPid,
    run: () => client.query(call, args(sessionId)),
  },
  {
    name: "append_records on one client, named prepared",
    per: 1,
    pid: clientPid,
    run: () => named("append", call, args(sessionId)),
  },
  {
    name: `server only: DO loop, COMMIT each (÷${DO_CALLS})`,
    per: DO_CALLS,
    pid: clientPid,
    run: () => client.query(doBlock(true)),
  },
  {
    name: `server only: DO loop, no COMMIT (÷${DO_CALLS})`,
    per: DO_CALLS,
    pid: clientPid,
    run: () => client.query(doBlock(false)),
  },
  { name: "store.append", per: 1, pid: storePid, run: () => store.append(sessionId, [record()]) },
  {
    name: "store.append's JavaScript alone (instant pool)",
    per: 1,
    pid: Number.NaN,
    run: () => jsOnly.append(sessionId, [record()]),
  },
];

interface Sample {
  wall: number;
  node: number;
  server: number;
}
async function slice(row: Row): Promise<Sample> {
  const [cpu0, server0, start] = [process.cpuUsage(), serverCpu(row.pid), performance.now()];
  let count = 0;
  while (performance.now() - start < sliceMs) {
    await row.run();
    count += row.per;
  }
  const wall = ((performance.now() - start) * 1000) / count;
  const cpu = process.cpuUsage(cpu0);
  return { wall, node: (cpu.user + cpu.system) / count, server: (serverCpu(row.pid) - server0) / count };
}

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const fmt = (value: number): string => (Number.isNaN(value) ? "-" : value.toFixed(0));

async function printPlans(): Promise<void> {
  await client.query("LOAD 'auto_explain'");
  await client.query(
    "SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on; SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
  );
  client.on("notice", (notice) => console.log(notice.message, "\n"));
  for (let i = 0; i < 7; i++) await client.query(call, args(sessionId));
  await client.query("SET client_min_messages = notice; SET auto_explain.log_min_duration = -1");
  client.removeAllListeners("notice");
}

try {
  if (explain) await printPlans();
  const results = new Map(rows.map((row) => [row.name, [] as Sample[]]));
  for (const row of rows) await slice(row); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const row of round % 2 === 0 ? rows : [...rows].reverse()) results.get(row.name)!.push(await slice(row));
  }
  console.log(
    `## One append's time (${src}, Node ${process.version}, ${rounds} rounds × ${sliceMs} ms, interleaved)\n`,
  );
  console.log("| what | wall µs per operation, median (quartiles) | this process's CPU µs | server CPU µs |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, samples] of results) {
    const of = (key: keyof Sample) => samples.map((sample) => sample[key]);
    const wall = of("wall");
    console.log(
      `| ${name} | ${fmt(quantile(wall, 0.5))} (${fmt(quantile(wall, 0.25))}-${fmt(quantile(wall, 0.75))}) | ${fmt(quantile(of("node"), 0.5))} | ${fmt(quantile(of("server"), 0.5))} |`,
    );
  }
} finally {
  await client.query(`DROP SCHEMA "${schema}" CASCADE`);
  await client.end();
  await store.close();
}
