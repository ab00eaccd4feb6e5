/**
 * Replay overhead: a whole loop run served by `replayProvider` from a cassette file, against the
 * same run on `createFakeProvider` (with and without its recorded `calls`). Per model call, so
 * the figure holds for any run length; the replay side includes reading and parsing the file
 * (every run needs a fresh replay provider: each recording is served once).
 *
 *   npx tsx bench/replay.ts [--steps=10,50] [--runs=40] [--rounds=5]
 *
 * Not a test: it prints a table and asserts nothing.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop } from "../src/index.ts";
import type { Provider } from "../src/index.ts";
import { createFakeProvider, recordProvider, replayProvider, type FakeScript } from "../src/entries/testing.ts";

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const STEPS = arg("steps", "10,50").split(",").map(Number);
const RUNS = Number(arg("runs", "40"));
const ROUNDS = Number(arg("rounds", "5"));

const echo = defineTool({
  name: "echo",
  description: "Echo the text",
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** The model calls `echo` `steps - 1` times, one call per turn, then answers. */
const script =
  (steps: number): FakeScript =>
  (request) =>
    request.messages.length >= 2 * steps - 1
      ? { text: "done", usage: { inputTokens: 40, outputTokens: 2 } }
      : {
          text: "Echoing.",
          toolCalls: [{ name: "echo", args: { text: `step ${request.messages.length}` } }],
          usage: { inputTokens: 40, outputTokens: 8 },
        };

async function run(provider: Provider): Promise<void> {
  const loop = runUnifiedAgentLoop({
    provider,
    model: "bench",
    systemPrompt: "You echo.",
    history: [{ role: "user", content: "Go." }],
    tools: [echo],
    budget: { maxIterationsPerLevel: 1_000, maxTotalLlmCalls: 1_000, maxTotalToolCalls: 1_000 },
  });
  for await (const _event of loop);
}

/**
 * CPU µs (user + system) per model call over RUNS runs of `steps` calls, each run on a fresh
 * provider. CPU time rather than wall time: the machines here are shared, and nothing in these
 * runs waits on anything but the CPU (the replay's file read aside, which counts as system time).
 */
async function measure(make: () => Provider, steps: number): Promise<number> {
  for (let i = 0; i < 5; i++) await run(make());
  const start = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) await run(make());
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (RUNS * steps);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const rows: string[] = [];
for (const steps of STEPS) {
  const path = join(mkdtempSync(join(tmpdir(), "agentry-bench-replay-")), `echo-${steps}.jsonl`);
  await run(recordProvider(createFakeProvider(script(steps)), { path }));
  const contenders: (() => Provider)[] = [
    () => createFakeProvider(script(steps)),
    () => createFakeProvider(script(steps), { record: false }),
    () => replayProvider({ path }),
  ];
  const samples: number[][] = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order per round so warm-up and GC do not favour one side.
    for (let k = 0; k < contenders.length; k++) {
      const index = (round + k) % contenders.length;
      samples[index]!.push(await measure(contenders[index]!, steps));
    }
  }
  const [fake, bare, replay] = samples.map(median) as [number, number, number];
  rows.push(
    `| ${steps} | ${fake.toFixed(1)} | ${bare.toFixed(1)} | ${replay.toFixed(1)} | ${(replay / fake).toFixed(2)}× | ${(replay / bare).toFixed(2)}× |`,
  );
}
console.log(
  `replayProvider vs createFakeProvider, CPU µs per model call, whole loop runs (median of ${ROUNDS} rounds × ${RUNS} runs), Node ${process.version}`,
);
console.log("");
console.log(
  "| model calls per run | createFakeProvider | createFakeProvider({ record: false }) | replayProvider | replay / fake | replay / fake without record |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
