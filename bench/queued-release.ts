/**
 * Queued messages released by a decision: how long from `resolveApproval` in process B to the
 * model request of the message that waited behind the decision, in B. The message was sent (and
 * stored, `send` answered "queued") by a runtime in process A that is gone by then, the case the
 * durable queue is for. Next to it, the same in one process (the runtime that queued it decides).
 * The model answers at once (the scripted provider): the figures are the runtime's own cost
 * (storing the decision, resuming the turn, finding and starting the queued message's turn).
 *
 *   npx tsx bench/queued-release.ts [--runs=50]                      # SQLite
 *   scripts/with-postgres.sh npx tsx bench/queued-release.ts         # SQLite and Postgres
 *
 * Prints a markdown table (p50 and p99 in ms); not a test.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  type AgentRuntime,
  type ModelRequest,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const runsArgument = process.argv.find((arg) => arg.startsWith("--runs="));
const runs = runsArgument === undefined ? 50 : Number(runsArgument.slice("--runs=".length));
const self = fileURLToPath(import.meta.url);

type Kind = "sqlite" | "postgres";

async function openStore(kind: Kind, where: string): Promise<SessionStore & { close(): Promise<void> | void }> {
  if (kind === "sqlite") return new SqliteSessionStore({ path: where });
  const { PostgresSessionStore } = await import("../src/entries/postgres.js");
  return new PostgresSessionStore({ connectionString: process.env.DATABASE_URL!, schema: where, max: 4 });
}

/** A runtime whose `write please` asks for an approval; `onQueued` hears of each queued message's model request. */
function makeRuntime(store: SessionStore, onQueued: () => void): AgentRuntime {
  const write = defineTool({
    name: "write",
    description: "write",
    input: z.object({}),
    requiresApproval: true,
    execute: () => "written",
  });
  const script = (request: ModelRequest): FakeTurn => {
    const last = request.messages.at(-1)!;
    if (last.role === "tool") return { text: "written it" };
    const text = typeof last.content === "string" ? last.content : "";
    if (text === "write please") return { toolCalls: [{ name: "write", args: {} }] };
    if (text === "queued") onQueued();
    return { text: `re: ${text}` };
  };
  return createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "a", displayName: "A" }]),
    store,
    providers: { fake: createFakeProvider(script) },
    defaultModel: "fake",
    tools: [write],
  });
}

/** Process B: resolves each request id read from stdin; prints the ms to the queued message's model request. */
async function child(kind: Kind, where: string): Promise<void> {
  const store = await openStore(kind, where);
  let reached: (() => void) | undefined;
  const runtime = makeRuntime(store, () => reached?.());
  process.stdout.write("READY\n");
  for await (const requestId of createInterface({ input: process.stdin })) {
    const requested = new Promise<number>((resolve) => (reached = () => resolve(performance.now())));
    const started = performance.now();
    await runtime.resolveApproval(requestId, { approved: true });
    const answered = performance.now();
    process.stdout.write(`${(await requested) - started} ${answered - started}\n`);
  }
  await runtime.close();
  await store.close();
}

/** Suspends a new session on an approval and queues one message behind it (in a runtime that then closes). */
async function queueBehindDecision(store: SessionStore): Promise<string> {
  const runtime = makeRuntime(store, () => undefined);
  const suspended = await runtime.send({ agentId: "a", content: "write please", session: "create" });
  const queued = await runtime.send({ agentId: "a", content: "queued", session: suspended.sessionId });
  if (queued.status !== "queued") throw new Error(`expected "queued", got ${queued.status}`);
  await runtime.close();
  return suspended.pendingApprovals![0]!.requestId;
}

/** The same process: the runtime that queued the message decides. */
async function sameProcess(store: SessionStore): Promise<Timings> {
  let reached: (() => void) | undefined;
  const runtime = makeRuntime(store, () => reached?.());
  const times: Timings = { queued: [], resumed: [] };
  for (let i = 0; i < runs; i++) {
    const suspended = await runtime.send({ agentId: "a", content: "write please", session: "create" });
    await runtime.send({ agentId: "a", content: "queued", session: suspended.sessionId });
    const requested = new Promise<number>((resolve) => (reached = () => resolve(performance.now())));
    const started = performance.now();
    await runtime.resolveApproval(suspended.pendingApprovals![0]!.requestId, { approved: true });
    times.resumed.push(performance.now() - started);
    times.queued.push((await requested) - started);
  }
  await runtime.close();
  return times;
}

/** Per run: decision → the queued message's model request, and decision → `resolveApproval` answered (the resumed turn). */
interface Timings {
  queued: number[];
  resumed: number[];
}

/** Across processes: queued here (runtime A, closed), decided in a child process B. */
async function crossProcess(kind: Kind, where: string, store: SessionStore): Promise<Timings> {
  const b = spawn(process.execPath, ["--import", "tsx", self, "--child", kind, where], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: b.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const line = await lines.next();
    if (line.done) throw new Error("process B ended early");
    return line.value;
  };
  if ((await next()) !== "READY") throw new Error("process B did not start");
  const times: Timings = { queued: [], resumed: [] };
  for (let i = 0; i < runs; i++) {
    const requestId = await queueBehindDecision(store);
    b.stdin.write(`${requestId}\n`);
    const [queued, resumed] = (await next()).split(" ").map(Number);
    times.queued.push(queued!);
    times.resumed.push(resumed!);
  }
  b.stdin.end();
  await new Promise((resolve) => b.on("exit", resolve));
  return times;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const cell = (values: number[]) => `${percentile(values, 0.5).toFixed(1)} / ${percentile(values, 0.99).toFixed(1)}`;

async function main(): Promise<void> {
  const kinds: Kind[] = process.env.DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];
  const rows: string[] = [];
  for (const kind of kinds) {
    const dir = mkdtempSync(join(tmpdir(), "agentry-queued-bench-"));
    const where = kind === "sqlite" ? join(dir, "s.db") : `bench_q_${process.pid}`;
    const store = await openStore(kind, where);
    try {
      const same = await sameProcess(store);
      const cross = await crossProcess(kind, where, store);
      rows.push(
        `| ${kind} | ${cell(same.queued)} (${cell(same.resumed)}) | ${cell(cross.queued)} (${cell(cross.resumed)}) |`,
      );
    } finally {
      if (kind === "postgres")
        await (store as unknown as { pool: { query(sql: string): Promise<unknown> } }).pool
          .query(`DROP SCHEMA IF EXISTS "${where}" CASCADE`)
          .catch(() => undefined);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    `Decision → the queued message's model request (in brackets: → resolveApproval answered with the resumed turn), ${runs} runs, ms (p50 / p99)\n`,
  );
  console.log("| store | same process | decision in process B, queued by process A (gone) |");
  console.log("| --- | --- | --- |");
  for (const row of rows) console.log(row);
  if (kinds.length === 1) console.log("\n(Postgres: run through scripts/with-postgres.sh)");
}

const childAt = process.argv.indexOf("--child");
if (childAt >= 0) await child(process.argv[childAt + 1] as Kind, process.argv[childAt + 2]!);
else await main();
