/**
 * The delegation hop: from `resolveApproval` of a request asked by the last agent of a sync
 * `agents_message` chain of 1, 2 or 3 agents to the conversation's answer at the root (the root
 * turn's result), on a SQLite file store (WAL) with the scripted provider answering at once. Each
 * extra agent is one hop: the answer stored in the caller's session under its lease, the caller's
 * turn resumed and ended.
 *
 * Where a run's wall time goes, from Linux's per-thread scheduler statistics of the main thread:
 * on a CPU (the runtime's own work), waiting for a CPU (runnable but not running: the machine is
 * busy with other processes) and sleeping (blocked: disk I/O such as SQLite's WAL checkpoints,
 * waits for V8's GC helper threads). On a busy machine the second column is what grows.
 *
 *   npx tsx bench/delegation-hop.ts [--runs=50] [--memory] [--no-autocheckpoint] [--idle=<ms>] [--trace]
 *
 * `--memory` adds the memory store's rows; `--no-autocheckpoint` adds a SQLite store with
 * `wal_autocheckpoint = 0` (no checkpoint inside an append); `--idle=20` waits 20 ms before each
 * decision (a process idle until a decision arrives); `--trace` prints one 3-agent run's store calls
 * with their times. Profile with `node --cpu-prof --cpu-prof-dir=prof --import tsx bench/delegation-hop.ts`.
 * Prints markdown tables; not a test.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  MemorySessionStore,
  type ModelRequest,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
const runs = Number(flag("runs") ?? 50);
const warmup = 10;
const idleMs = Number(flag("idle") ?? 0);
const names = ["a0", "a1", "a2"];

/** Timestamps of the store calls, when tracing: [label, start ms, end ms]. */
type Span = [label: string, start: number, end: number];

/** The store with every call timed (a plain wrapper: the runtime sees the same capabilities). */
function timed(store: SessionStore, spans: Span[] | undefined): SessionStore {
  if (spans === undefined) return store;
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        const start = performance.now();
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        const label = `${key}(${typeof args[0] === "string" ? args[0].slice(0, 8) : ""})`;
        if (result instanceof Promise) return result.finally(() => spans.push([label, start, performance.now()]));
        spans.push([label, start, performance.now()]);
        return result;
      };
    },
  });
}

function chainRuntime(store: SessionStore, depth: number) {
  const refund = defineTool({
    name: "refund",
    description: "refund",
    permissionClass: "safe",
    input: z.object({}),
    requiresApproval: true,
    execute: () => "refunded",
  });
  const script = (request: ModelRequest): FakeTurn => {
    const index = Number(/You are agent a(\d)\./.exec(request.system)?.[1] ?? 0);
    const last = request.messages.at(-1)!;
    if (last.role === "tool") return { text: `a${index} done` };
    if (index < depth - 1)
      return { toolCalls: [{ name: "agents_message", args: { agentId: `a${index + 1}`, content: "go" } }] };
    return { toolCalls: [{ name: "refund", args: {} }] };
  };
  return createAgentRuntime({
    registry: createAgentRegistry(
      names.map((agentId, i) => ({
        agentId,
        displayName: agentId,
        systemPrompt: `You are agent ${agentId}.`,
        agentAllowlist: i + 1 < names.length ? [names[i + 1]!] : [],
      })),
    ),
    store,
    providers: { fake: createFakeProvider(script, { record: false }) },
    defaultModel: "fake",
    tools: [refund],
  });
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/**
 * The main thread's time on a CPU and waiting for one (runnable, not running: preempted, or woken
 * and not yet scheduled), ms, from Linux's `/proc/thread-self/schedstat`; zeros elsewhere.
 */
function schedstat(): [onCpu: number, waitingForCpu: number] {
  try {
    const [run, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ").map(Number);
    return [run! / 1e6, wait! / 1e6];
  } catch {
    return [0, 0];
  }
}

interface Measured {
  times: number[];
  /** The main thread's time per run on a CPU, waiting for one, and neither (sleeping: I/O, a timer), ms. */
  onCpu: number[];
  waitingForCpu: number[];
  sleeping: number[];
  /** Context switches per run: the process gave up the CPU (slept) / was preempted. */
  voluntary: number[];
  involuntary: number[];
  /** The last run's store calls (when tracing). */
  spans: Span[];
  /** Store calls by method over every measured run (when tracing): an `acquireLease` above one per session is a wait. */
  calls: Map<string, number>;
}

async function measure(makeStore: () => SessionStore, depth: number, trace: boolean): Promise<Measured> {
  let spans: Span[] = [];
  const calls = new Map<string, number>();
  const holder: Span[] | undefined = trace ? [] : undefined;
  const runtime = chainRuntime(timed(makeStore(), holder), depth);
  const times: number[] = [];
  const onCpu: number[] = [];
  const waitingForCpu: number[] = [];
  const sleeping: number[] = [];
  const voluntary: number[] = [];
  const involuntary: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const suspended = await runtime.send({ agentId: "a0", content: "refund", session: "create" });
    const requestId = suspended.pendingApprovals![0]!.requestId;
    holder?.splice(0);
    // A decision comes from outside (a person, a request): the process was idle before it.
    if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
    const usage = process.resourceUsage();
    const [runBefore, waitBefore] = schedstat();
    const started = performance.now();
    const resumed = await runtime.resolveApproval(requestId, { approved: true });
    const ended = performance.now();
    const [runAfter, waitAfter] = schedstat();
    const after = process.resourceUsage();
    if (i >= warmup) {
      times.push(ended - started);
      onCpu.push(runAfter - runBefore);
      waitingForCpu.push(waitAfter - waitBefore);
      sleeping.push(Math.max(0, ended - started - (runAfter - runBefore) - (waitAfter - waitBefore)));
      voluntary.push(after.voluntaryContextSwitches - usage.voluntaryContextSwitches);
      involuntary.push(after.involuntaryContextSwitches - usage.involuntaryContextSwitches);
    }
    if (holder) spans = holder.map(([label, s, e]) => [label, s - started, e - started]);
    if (holder && i >= warmup)
      for (const [label] of holder) calls.set(label.split("(")[0]!, (calls.get(label.split("(")[0]!) ?? 0) + 1);
    if (resumed.status !== "complete" || resumed.agentId !== "a0")
      throw new Error(`unexpected ${resumed.status} from ${resumed.agentId}`);
  }
  await runtime.close();
  return { times, onCpu, waitingForCpu, sleeping, voluntary, involuntary, spans, calls };
}

const dir = mkdtempSync(join(tmpdir(), "agentry-bench-hop-"));
const stores: [string, () => SessionStore][] = [
  ["SQLite (file, WAL)", () => new SqliteSessionStore({ path: join(dir, `${globalThis.crypto.randomUUID()}.db`) })],
];
if (process.argv.includes("--no-autocheckpoint"))
  stores.push([
    "SQLite, no automatic checkpoint",
    () => {
      const store = new SqliteSessionStore({ path: join(dir, `${globalThis.crypto.randomUUID()}.db`) });
      store.database.pragma("wal_autocheckpoint = 0");
      return store;
    },
  ]);
if (process.argv.includes("--memory")) stores.push(["memory", () => new MemorySessionStore()]);
const trace = process.argv.includes("--trace");

console.log(
  `load average at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}; ${runs} runs after ${warmup}`,
);
console.log();
console.log(
  "| store | agents | decision → root's answer, p50 ms | p99 ms | each extra hop, p50 ms | " +
    "of a run (mean ms): on a CPU | waiting for a CPU | sleeping | context switches per run: slept / preempted |",
);
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
const traces: [string, Span[], Map<string, number>][] = [];
for (const [name, make] of stores) {
  let base = 0;
  for (const depth of [1, 2, 3]) {
    const { times, onCpu, waitingForCpu, sleeping, voluntary, involuntary, spans, calls } = await measure(
      make,
      depth,
      trace && depth === 3,
    );
    const p50 = quantile(times, 0.5);
    if (depth === 1) base = p50;
    const perHop = depth === 1 ? "–" : ((p50 - base) / (depth - 1)).toFixed(2);
    const mean = (values: number[], digits = 1) => (values.reduce((a, b) => a + b, 0) / values.length).toFixed(digits);
    console.log(
      `| ${name} | ${depth} | ${p50.toFixed(2)} | ${quantile(times, 0.99).toFixed(2)} | ${perHop} | ` +
        `${mean(onCpu, 2)} | ${mean(waitingForCpu, 2)} | ${mean(sleeping, 2)} | ` +
        `${mean(voluntary)} / ${mean(involuntary)} |`,
    );
    if (spans.length > 0) traces.push([name, spans, calls]);
  }
}
for (const [name, spans, calls] of traces) {
  console.log();
  const perRun = [...calls].map(([method, count]) => `${method} ${(count / runs).toFixed(2)}`).join(", ");
  console.log(`${name}, 3 agents, store calls per run (mean over ${runs}): ${perRun}`);
  console.log();
  console.log(`${name}, 3 agents, one run's store calls (ms from resolveApproval):`);
  console.log();
  console.log("| call | start | end | gap before |");
  console.log("| --- | ---: | ---: | ---: |");
  let previous = 0;
  for (const [label, start, end] of spans.sort((a, b) => a[1] - b[1])) {
    console.log(`| ${label} | ${start.toFixed(2)} | ${end.toFixed(2)} | ${(start - previous).toFixed(2)} |`);
    previous = Math.max(previous, end);
  }
}
rmSync(dir, { recursive: true, force: true });
