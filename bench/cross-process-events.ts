// Cross-process live events: an event emitted by a runtime in process A, received by a client of
// process B's event log (`createEventLog(...).resume`), through the store's signals (SQLite: a
// signals table read on the file's change; Postgres: LISTEN/NOTIFY). Next to it the same-process
// figure: a client of the event log of the runtime that runs the turn.
//
//   scripts/with-postgres.sh npx tsx bench/cross-process-events.ts [--runs=50]
//
// Each run is one turn on a fresh session (a fake model streaming a short answer), after a quiet
// moment; measured per run: the turn's first event and its `done`, from the emitting runtime's
// `events` listener (in A) to the client's iterator (in B), on one machine's clock
// (`performance.timeOrigin + performance.now()`). Without DATABASE_URL only SQLite runs. Not a
// test: nothing asserts a time. Prints a markdown table.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createAgentRegistry } from "../src/agents/create-agent-registry.js";
import type { AgentRuntime, RuntimeEvent } from "../src/contracts/agent-runtime.js";
import type { SessionStore } from "../src/contracts/session-store.js";
import { createEventLog } from "../src/delivery/create-event-log.js";
import { createAgentRuntime } from "../src/runtime/create-agent-runtime.js";
import { createFakeProvider } from "../src/testing/create-fake-provider.js";

const now = () => performance.timeOrigin + performance.now();
const runsArg = process.argv.find((arg) => arg.startsWith("--runs="));
const RUNS = runsArg ? Number(runsArg.slice("--runs=".length)) : 50;
const WARMUP = 5;
/** The quiet moment before each run (the receivers' fallbacks back off meanwhile). */
const QUIET_MS = 30;

type Kind = "sqlite" | "postgres";
type Closable = SessionStore & { close?: () => unknown };

async function openStore(kind: Kind, location: string): Promise<Closable> {
  if (kind === "postgres") {
    const { PostgresSessionStore } = await import("../src/postgres/postgres-session-store.js");
    return new PostgresSessionStore({ connectionString: process.env.DATABASE_URL!, schema: location });
  }
  const { SqliteSessionStore } = await import("../src/sqlite/sqlite-session-store.js");
  return new SqliteSessionStore({ path: location });
}

function benchRuntime(store: SessionStore): AgentRuntime {
  return createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "bench", displayName: "Bench" }]),
    store,
    providers: { fake: createFakeProvider(() => ({ text: "a short streamed answer of a few words" })) },
    defaultModel: "fake",
  });
}

/** Runs a turn in `sessionId`; resolves with the emit times of its first event and its `done`. */
async function timedTurn(runtime: AgentRuntime, sessionId: string): Promise<{ first: number; done: number }> {
  const times: { first?: number; done?: number } = {};
  const listener = (event: RuntimeEvent) => {
    if (event.sessionId !== sessionId) return;
    times.first ??= now();
    if (event.type === "done") times.done = now();
  };
  runtime.events.on("event", listener);
  try {
    await runtime.send({ agentId: "bench", session: sessionId, content: "go" });
  } finally {
    runtime.events.off("event", listener);
  }
  return { first: times.first!, done: times.done! };
}

/** Process A: runs a turn per "RUN <sessionId>" line, prints "EMIT <sessionId> <first> <done>". */
async function child(kind: Kind, location: string): Promise<void> {
  const store = await openStore(kind, location);
  const runtime = benchRuntime(store);
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("READY\n");
  for await (const line of lines) {
    const [command, sessionId] = line.trim().split(" ");
    if (command === "QUIT") break;
    const { first, done } = await timedTurn(runtime, sessionId!);
    process.stdout.write(`EMIT ${sessionId} ${first} ${done}\n`);
  }
  await runtime.close();
  await store.close?.();
  process.exit(0);
}

interface Sample {
  first: number;
  done: number;
}

/** Reads the client's events of one turn; resolves with the receive times of the first and of `done`. */
async function receive(iterator: AsyncIterator<unknown>): Promise<Sample> {
  let first: number | undefined;
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error("the resume ended");
    const event = next.value as { type: string };
    if (event.type === "session_snapshot") continue;
    first ??= now();
    if (event.type === "done") return { first, done: now() };
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One client per run on `log`; `run(sessionId)` starts the turn and resolves with its emit times. */
async function measure(
  store: SessionStore,
  log: ReturnType<typeof createEventLog>,
  run: (sessionId: string) => Promise<Sample>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const { sessionId } = await store.createSession({ agentId: "bench" });
    const iterator = log.resume({ sessionId, follow: "session" })[Symbol.asyncIterator]();
    await iterator.next(); // the snapshot
    await pause(QUIET_MS);
    const [received, emitted] = await Promise.all([receive(iterator), run(sessionId)]);
    await iterator.return?.();
    if (i >= WARMUP) samples.push({ first: received.first - emitted.first, done: received.done - emitted.done });
  }
  return samples;
}

function startChild(kind: Kind, location: string) {
  const script = fileURLToPath(import.meta.url);
  const proc: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ["--import", "tsx", script, "child", kind, location],
    {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: process.env,
    },
  );
  proc.stderr.pipe(process.stderr);
  const waiting = new Map<string, (line: string) => void>();
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  createInterface({ input: proc.stdout }).on("line", (line) => {
    if (line === "READY") return ready();
    const [, sessionId] = line.split(" ");
    waiting.get(sessionId!)?.(line);
  });
  return {
    ready: isReady,
    run(sessionId: string): Promise<Sample> {
      return new Promise((resolve) => {
        waiting.set(sessionId, (line) => {
          waiting.delete(sessionId);
          const [, , first, done] = line.split(" ");
          resolve({ first: Number(first), done: Number(done) });
        });
        proc.stdin.write(`RUN ${sessionId}\n`);
      });
    },
    quit: () =>
      new Promise<void>((resolve) => {
        proc.on("exit", () => resolve());
        proc.stdin.write("QUIT\n");
      }),
  };
}

const pct = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (value: number) => value.toFixed(2);

async function bench(kind: Kind, location: string): Promise<string[]> {
  const rows: string[] = [];
  const row = (path: string, samples: Sample[]) =>
    rows.push(
      `| ${kind === "sqlite" ? "SQLite" : "Postgres"} | ${path} | ${ms(
        pct(
          samples.map((s) => s.first),
          50,
        ),
      )} | ${ms(
        pct(
          samples.map((s) => s.first),
          99,
        ),
      )} | ${ms(
        pct(
          samples.map((s) => s.done),
          50,
        ),
      )} | ${ms(
        pct(
          samples.map((s) => s.done),
          99,
        ),
      )} | ${samples.length} |`,
    );
  const store = await openStore(kind, location);
  // Same process: a client of the event log of the runtime that runs the turn.
  const local = benchRuntime(store);
  const localLog = createEventLog({ runtime: local });
  row("same process", await measure(store, localLog, (sessionId) => timedTurn(local, sessionId)));
  localLog.close();
  await local.close();
  // Across processes: the turn runs in the child, the client reads this process's log.
  const here = benchRuntime(store);
  const log = createEventLog({ runtime: here });
  const other = startChild(kind, location);
  await other.ready;
  row("process A → client of process B", await measure(store, log, (sessionId) => other.run(sessionId)));
  await other.quit();
  log.close();
  await here.close();
  await store.close?.();
  return rows;
}

if (process.argv[2] === "child") {
  await child(process.argv[3] as Kind, process.argv[4]!);
} else {
  const rows: string[] = [];
  rows.push(...(await bench("sqlite", join(mkdtempSync(join(tmpdir(), "agentry-bench-events-")), "events.db"))));
  if (process.env.DATABASE_URL) rows.push(...(await bench("postgres", `bench_events_${Date.now()}`)));
  else rows.push("| Postgres | (DATABASE_URL unset: not run) | | | | | |");
  console.log(`\nLive events, emitted → received by an event log client (ms; ${RUNS} runs each)\n`);
  console.log("| store | path | first event p50 | first event p99 | done p50 | done p99 | runs |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const line of rows) console.log(line);
}
