/**
 * Delivery (issue 14): events/s through `createEventBatcher` and `toServerSentEvents` for a
 * 10,000-delta turn, next to how fast the loop produces those deltas.
 *
 *   npx tsx --expose-gc bench/delivery.ts        (from the project root; imports ../src)
 */
import { performance } from "node:perf_hooks";
import {
  createEventBatcher,
  runUnifiedAgentLoop,
  toServerSentEvents,
  type LoopEvent,
  type RuntimeEvent,
} from "../src/index.js";
import { toAgUiEvents, toUIMessageStream } from "../src/entries/ui.js";
import { createFakeProvider } from "../src/entries/testing.js";

const DELTAS = 10_000;
const chunks = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * Times every path once per round, rounds interleaved (so a load change on this shared machine
 * hits every path alike), after a warm-up; returns each path's median and best events/s (the
 * best round is the least disturbed by other processes).
 */
async function rates(
  count: number,
  paths: [string, () => unknown][],
  rounds = 9,
): Promise<{ median: number; best: number }[]> {
  for (const [, fn] of paths) for (let i = 0; i < 3; i++) await fn();
  const samples: number[][] = paths.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, [, fn]] of paths.entries()) {
      (globalThis as { gc?: () => void }).gc?.();
      const t0 = performance.now();
      await fn();
      samples[i]!.push(count / ((performance.now() - t0) / 1000));
    }
  }
  return samples.map((xs) => ({ median: median(xs), best: Math.max(...xs) }));
}

async function loopTurn(collect?: LoopEvent[]) {
  const provider = createFakeProvider([{ chunks }], { record: false });
  for await (const event of runUnifiedAgentLoop({
    provider,
    model: "fake",
    systemPrompt: "bench",
    history: [{ role: "user", content: "go" }],
    tools: [],
  }))
    collect?.push(event);
}

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function drain(stream: ReadableStream<unknown>) {
  const reader = stream.getReader();
  while (!(await reader.read()).done);
}

async function main() {
  // One real turn's events, stamped like the runtime stamps them.
  const loopEvents: LoopEvent[] = [];
  await loopTurn(loopEvents);
  const events = loopEvents.map((event, seq): RuntimeEvent => ({
    ...event,
    sessionId: "s",
    agentId: "a",
    runId: "r",
    seq: seq + 1,
    ts: Date.now(),
  }));
  const n = events.length;
  console.error(`turn: ${n} events (${DELTAS} text deltas)`);

  let delivered = 0;
  const paths: [string, () => unknown][] = [
    ["loop producing a 10,000-delta turn (bare loop, fake provider)", () => loopTurn()],
    [
      "createEventBatcher (push, flushMs 100, flush on close)",
      () => {
        const b = createEventBatcher({ onFlush: (batch) => (delivered += batch.length) });
        for (const event of events) b.push(event);
        b.close();
      },
    ],
    [
      "JSON.stringify of each event alone (the floor under any SSE encoding)",
      () => {
        let bytes = 0;
        for (const event of events) bytes += JSON.stringify(event).length;
        delivered += bytes > 0 ? 0 : 1;
      },
    ],
    ["toServerSentEvents, events one by one from an async source", () => drain(toServerSentEvents(fromArray(events)))],
    [
      "createEventBatcher → toServerSentEvents (flush windows of 100 deltas)",
      async () => {
        const batches: RuntimeEvent[][] = [];
        const b = createEventBatcher({ onFlush: (batch) => batches.push(batch) });
        for (const [i, event] of events.entries()) {
          b.push(event);
          if (i % 100 === 99) b.flush();
        }
        b.close();
        await drain(toServerSentEvents(fromArray(batches)));
      },
    ],
    ["toUIMessageStream (chunk objects, not encoded)", () => drain(toUIMessageStream(fromArray(events)))],
    [
      "toAgUiEvents",
      async () => {
        for await (const _ of toAgUiEvents(fromArray(events))) void _;
      },
    ],
  ];
  const measured = await rates(n, paths);
  if (delivered === 0) throw new Error("nothing delivered");
  const loop = measured[0]!;
  const rows = paths.map(([label], i) => [label, measured[i]!] as const);
  const m = (value: number) => `${(value / 1e6).toFixed(2)} M`;
  console.log(
    `| path (${n} events per turn, 9 interleaved rounds) | median events/s | vs loop | best round | vs loop |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const [label, value] of rows)
    console.log(
      `| ${label} | ${m(value.median)} | ${(value.median / loop.median).toFixed(1)}× | ${m(value.best)} | ${(value.best / loop.best).toFixed(1)}× |`,
    );
}

await main();
