/**
 * The loop's per-step overhead as a ratio to pi-agent-core's, measured interleaved in ONE process
 * so that the load of a shared machine falls on both sides alike: each round times a short batch
 * of 50-step echo runs of each SDK back to back (order alternating), and the round's ratio is
 * Agentry's µs/step over pi's. Prints the median ratio and its spread over rounds.
 *
 *   cd bench && node --expose-gc --import tsx loop-ratio.ts [--rounds=41] [--runs=20] [--modes=events,result]
 *
 * Uses the BUILT core (../dist, `npm run build` first), as the comparative bench does.
 */
import { performance } from "node:perf_hooks";
import { ECHO_STEPS, type BenchSdk, type EchoMode } from "./lib/contract.js";
import agentry from "./sdks/agentry.js";
import pi from "./sdks/pi-agent-core.js";

const option = (name: string, fallback: string): string =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(option("rounds", "41"));
const runs = Number(option("runs", "20"));
const modes = option("modes", "events,result").split(",") as EchoMode[];

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** µs per step: the median of `runs` timed runs. */
async function usPerStep(sdk: BenchSdk, mode: EchoMode): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await sdk.echoLoop(mode);
    times.push(performance.now() - start);
  }
  return (quantile(times, 0.5) * 1000) / ECHO_STEPS;
}

for (const mode of modes) {
  for (let i = 0; i < 30; i++) {
    await agentry.echoLoop(mode);
    await pi.echoLoop(mode);
  }
  const ratios: number[] = [];
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const first = round % 2 === 0;
    const a = first ? await usPerStep(agentry, mode) : 0;
    const p = await usPerStep(pi, mode);
    const b = first ? a : await usPerStep(agentry, mode);
    ratios.push(b / p);
    ours.push(b);
    theirs.push(p);
  }
  console.log(
    `echo ${mode}: Agentry / pi-agent-core = ${quantile(ratios, 0.5).toFixed(3)}x (quartiles ${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}; ` +
      `${rounds} rounds × ${runs} runs), medians ${quantile(ours, 0.5).toFixed(2)} vs ${quantile(theirs, 0.5).toFixed(2)} µs/step`,
  );
}
