/**
 * SSE parse benchmark: time to parse one server-sent event whose data is a single line of 1, 10
 * and 80 MB, arriving in 64 KiB network chunks. The work should be linear in the size (80 MB
 * within 10x of 10 MB); a decoder that rescans or recopies its buffer per chunk is quadratic.
 *
 *   npx tsx bench/sse-parse.ts [--sizes=1,10,80] [--rounds=3] [--chunk=65536]
 *
 * Rows: `parseSseStream` alone (bytes → TextDecoder → SSE decoder → event), and the whole
 * `openai()` adapter on the same event as one `content` delta (adds fetch plumbing and JSON.parse),
 * served by an in-memory fetch (no network). Not a test: it prints a table and asserts nothing.
 */
import { openai } from "../src/entries/openai.ts";
import { parseSseStream } from "../src/providers/sse/parse-sse-stream.ts";

const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const SIZES_MB = option("sizes", "1,10,80").split(",").map(Number);
const ROUNDS = Number(option("rounds", "3"));
const CHUNK = Number(option("chunk", "65536"));
const MB = 1_000_000;

/** `data: {"choices":[{"index":0,"delta":{"content":"aaa…"}}]}\n\n` with `size` bytes of content, then a finish and [DONE]. */
function eventBytes(size: number): Uint8Array {
  const head = 'data: {"choices":[{"index":0,"delta":{"content":"';
  const tail =
    '"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const bytes = new Uint8Array(head.length + size + tail.length);
  const encoder = new TextEncoder();
  encoder.encodeInto(head, bytes);
  bytes.fill(0x61, head.length, head.length + size);
  encoder.encodeInto(tail, bytes.subarray(head.length + size));
  return bytes;
}

function bodyOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + CHUNK));
      at += CHUNK;
    },
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function viaDecoder(bytes: Uint8Array, size: number): Promise<void> {
  let longest = 0;
  for await (const event of parseSseStream(bodyOf(bytes), undefined, { maxEventBytes: Infinity }))
    longest = Math.max(longest, event.data.length);
  if (longest < size) throw new Error(`decoded ${longest} characters, expected at least ${size}`);
}

async function viaAdapter(bytes: Uint8Array, size: number): Promise<void> {
  const fetch: typeof globalThis.fetch = async () =>
    new Response(bodyOf(bytes), { headers: { "content-type": "text/event-stream" } });
  const provider = openai({ apiKey: "bench", fetch, maxRetries: 0, maxEventBytes: Infinity });
  let text = 0;
  for await (const event of provider.stream(
    { model: "m", system: "", messages: [{ role: "user", content: "x" }], tools: [] },
    { signal: new AbortController().signal },
  )) {
    if (event.type === "text_delta") text += event.text.length;
  }
  if (text !== size) throw new Error(`adapter streamed ${text} characters, expected ${size}`);
}

/** The floor under any decoder: Node's own TextDecoder over the same chunks, keeping every piece (as a single-line event must). */
async function viaTextDecoder(bytes: Uint8Array, size: number): Promise<void> {
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK)
    pieces.push(decoder.decode(bytes.subarray(at, at + CHUNK), { stream: true }));
  if (pieces.join("").length < size) throw new Error("decoded too little");
}

async function time(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    globalThis.gc?.();
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

const rows: { size: number; floor: number; decoder: number; adapter: number }[] = [];
for (const mb of SIZES_MB) {
  const size = Math.round(mb * MB);
  const bytes = eventBytes(size);
  await viaDecoder(eventBytes(1000), 1000); // warm-up
  const floor = await time(() => viaTextDecoder(bytes, size));
  const decoder = await time(() => viaDecoder(bytes, size));
  const adapter = await time(() => viaAdapter(bytes, size));
  rows.push({ size: mb, floor, decoder, adapter });
  process.stderr.write(
    `${mb} MB: TextDecoder + join ${floor.toFixed(1)} ms, decoder ${decoder.toFixed(1)} ms, adapter ${adapter.toFixed(1)} ms\n`,
  );
}

console.log(
  `One single-line event in ${CHUNK.toLocaleString()}-byte chunks, median of ${ROUNDS}; Node ${process.version}.\n`,
);
console.log(
  "| event size | TextDecoder + join alone, ms | parseSseStream, ms | MB/s | openai() adapter, ms | MB/s | vs previous size: TextDecoder / decoder / adapter |",
);
console.log("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
rows.forEach((row, i) => {
  const previous = rows[i - 1];
  const ratio = previous
    ? `${(row.floor / previous.floor).toFixed(1)}x / ${(row.decoder / previous.decoder).toFixed(1)}x / ${(row.adapter / previous.adapter).toFixed(1)}x for ${(row.size / previous.size).toFixed(0)}x the size`
    : "-";
  console.log(
    `| ${row.size} MB | ${row.floor.toFixed(1)} | ${row.decoder.toFixed(1)} | ${(row.size / (row.decoder / 1000)).toFixed(0)} | ${row.adapter.toFixed(1)} | ${(row.size / (row.adapter / 1000)).toFixed(0)} | ${ratio} |`,
  );
});
