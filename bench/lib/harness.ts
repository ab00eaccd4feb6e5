/**
 * Runs one SDK's in-process scenarios in this (fresh) process and prints one `RESULT {json}` line.
 *
 *   node --expose-gc --import tsx lib/harness.ts <sdk> [--quick] [--only=memory,echo-events,...]
 *
 * Memory runs first, on a clean heap. Times are medians over many runs after a warm-up.
 */
import { performance } from "node:perf_hooks";
import { ECHO_STEPS, SESSIONS, STREAM_DELTAS, type BenchSdk } from "./contract.js";

export const SCENARIOS = ["memory", "echo-events", "echo-result", "fan-out", "stream"] as const;
type Scenario = (typeof SCENARIOS)[number];

interface Budget {
  warmupRuns: number;
  minRuns: number;
  minMs: number;
  maxMs: number;
}

const args = process.argv.slice(2);
const sdkName = args[0];
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = new Set<Scenario>(onlyArg ? (onlyArg.slice(7).split(",") as Scenario[]) : SCENARIOS);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds per run: `warmupRuns` untimed, then at least `minRuns` and `minMs`, at most `maxMs` (beyond minRuns). */
async function sample(fn: () => Promise<void>, budget: Budget): Promise<number[]> {
  for (let i = 0; i < budget.warmupRuns; i++) await fn();
  const times: number[] = [];
  const started = performance.now();
  for (;;) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
    const elapsed = performance.now() - started;
    if (times.length >= budget.minRuns && (elapsed >= budget.minMs || elapsed >= budget.maxMs)) break;
    if (elapsed >= budget.maxMs * 4) break; // a pathological SDK still finishes
  }
  return times;
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with node --expose-gc");
  for (let i = 0; i < 4; i++) collect();
}

async function main(): Promise<void> {
  if (!sdkName) throw new Error("usage: harness.ts <sdk> [--quick] [--only=...]");
  const sdk = (await import(`../sdks/${sdkName}.ts`)).default as BenchSdk;
  const scale = quick ? 0.4 : 1;
  const budget = (warmupRuns: number, minRuns: number, minMs: number, maxMs: number): Budget => ({
    warmupRuns: Math.ceil(warmupRuns * scale),
    minRuns: Math.ceil(minRuns * scale),
    minMs: minMs * scale,
    maxMs: maxMs * scale,
  });
  const result: Record<string, number> = {};

  if (only.has("memory")) {
    // Warm the code paths on a small set first, so the delta is data, not compiled code.
    await sdk.buildSessions(20);
    gc();
    const before = process.memoryUsage().heapUsed;
    const holder = await sdk.buildSessions(SESSIONS);
    gc();
    const after = process.memoryUsage().heapUsed;
    result.memoryMB = (after - before) / 1024 / 1024;
    if (holder === undefined) throw new Error("buildSessions returned nothing");
  }
  if (only.has("echo-events")) {
    const times = await sample(() => sdk.echoLoop("events"), budget(20, 40, 1500, 3000));
    result.echoEventsUsPerStep = (median(times) * 1000) / ECHO_STEPS;
  }
  if (only.has("echo-result")) {
    const times = await sample(() => sdk.echoLoop("result"), budget(20, 40, 1500, 3000));
    result.echoResultUsPerStep = (median(times) * 1000) / ECHO_STEPS;
  }
  if (only.has("fan-out")) {
    const times = await sample(() => sdk.fanOut(), budget(5, 25, 500, 1500));
    result.fanOutMs = median(times);
  }
  if (only.has("stream")) {
    const times = await sample(() => sdk.streamDeltas(), budget(3, 7, 1000, 3000));
    result.deltasPerSec = STREAM_DELTAS / (median(times) / 1000);
  }
  const notes = (sdk as { notes?: string[] }).notes ?? [];
  process.stdout.write(`RESULT ${JSON.stringify({ sdk: sdk.name, ...result, notes })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
