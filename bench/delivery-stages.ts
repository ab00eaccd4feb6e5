/**
 * Where the time of SSE encoding goes (issue 14): the stages `toServerSentEvents` runs for each
 * event of a 10,000-delta turn, measured without the stream plumbing, next to the loop that
 * produces those deltas. Each row adds one stage to the row above.
 *
 *   npx tsx --expose-gc bench/delivery-stages.ts        (from the project root; imports ../src)
 */
import { performance } from "node:perf_hooks";
import { runUnifiedAgentLoop, type LoopEvent } from "../src/index.js";
import { createFakeProvider } from "../src/entries/testing.js";

const DELTAS = 10_000;
const WRITE_CHARS = 64 * 1024;
const chunks = Array.from({ length: DELTAS }, (_, i) => `w${i} `);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

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

async function main() {
  const loopEvents: LoopEvent[] = [];
  await loopTurn(loopEvents);
  const events = loopEvents.map((event, seq) => ({
    ...event,
    sessionId: "s",
    agentId: "a",
    runId: "r",
    seq: seq + 1,
    ts: Date.now(),
  }));
  const encoder = new TextEncoder();
  let sink = 0;
  const paths: [string, () => unknown][] = [
    ["loop producing the turn (bare loop, fake provider)", () => loopTurn()],
    [
      "JSON.stringify of each event",
      () => {
        for (const event of events) sink += JSON.stringify(event).length;
      },
    ],
    [
      "+ SSE framing (`id: …\\ndata: …\\n\\n`) concatenated into 64 KB writes",
      () => {
        let text = "";
        for (const event of events) {
          text += `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
          if (text.length >= WRITE_CHARS) {
            sink += text.charCodeAt(0);
            text = "";
          }
        }
      },
    ],
    [
      "+ TextEncoder.encode of each write (what toServerSentEvents does, minus the stream)",
      () => {
        let text = "";
        for (const event of events) {
          text += `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
          if (text.length >= WRITE_CHARS) {
            sink += encoder.encode(text).length;
            text = "";
          }
        }
        sink += encoder.encode(text).length;
      },
    ],
  ];
  for (const [, fn] of paths) for (let i = 0; i < 3; i++) await fn();
  const rounds = 15;
  const samples: number[][] = paths.map(() => []);
  for (let round = 0; round < rounds; round++) {
    // Alternate the order: on a shared machine the position in a round matters.
    const order = round % 2 === 0 ? [...paths.entries()] : [...paths.entries()].reverse();
    for (const [i, [, fn]] of order) {
      (globalThis as { gc?: () => void }).gc?.();
      const t0 = performance.now();
      await fn();
      samples[i]!.push(events.length / ((performance.now() - t0) / 1000));
    }
  }
  if (sink === 0) throw new Error("nothing measured");
  const loop = median(samples[0]!);
  console.log(
    `| stage (${events.length} events, ${rounds} rounds, order alternating) | median events/s | vs loop | µs per event |`,
  );
  console.log("| --- | ---: | ---: | ---: |");
  for (const [i, [label]] of paths.entries()) {
    const rate = median(samples[i]!);
    console.log(
      `| ${label} | ${(rate / 1e6).toFixed(2)} M | ${(rate / loop).toFixed(1)}× | ${(1e6 / rate).toFixed(2)} |`,
    );
  }
}

await main();
