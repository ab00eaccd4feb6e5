/**
 * Provider parse benchmark: how fast a large recorded-style Chat Completions stream goes through
 * Agentry's SSE decoder and its `openai()` adapter, side by side with the official `openai` client
 * parsing the same bytes from the same local server; plus the adapter's time-to-first-delta
 * overhead over reading the raw response with fetch.
 *
 *   npx tsx bench/provider-parse.ts [--deltas=40000] [--rounds=5]
 *
 * Loopback only (127.0.0.1). Not a test: it prints a table and asserts nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { openai } from "../src/entries/openai.ts";
import { parseSseStream } from "../src/providers/sse/parse-sse-stream.ts";

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split("=")[1]) : fallback;
};
const DELTAS = arg("deltas", 40_000);
const ROUNDS = arg("rounds", 5);
const TTFD_SAMPLES = arg("ttfd", 300);

// ---- the stream: shaped like openai-chat/text-gpt-4.1-nano.chunks.jsonl (usage:null, obfuscation, ...) ----
const WORDS = [
  "The",
  " quick",
  " brown",
  " fox",
  " jumps",
  " over",
  " the",
  " lazy",
  " dog",
  ".",
  " Caf\u00e9",
  " \u2014",
  " na\u00efve",
  " r\u00e9sum\u00e9",
  "\n\n",
];
function chunk(delta: Record<string, unknown>, finish: string | null = null, i = 0): string {
  return `data: ${JSON.stringify({
    id: "chatcmpl-BENCH0000000000000000000001",
    object: "chat.completion.chunk",
    created: 1750000000,
    model: "gpt-4.1-nano-2025-04-14",
    service_tier: "default",
    system_fingerprint: "fp_38343a2f8f",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
    obfuscation: "x".repeat(i % 11),
  })}\n\n`;
}
function buildStream(deltas: number): { bytes: Uint8Array; text: string } {
  const parts = [chunk({ role: "assistant", content: "", refusal: null })];
  let text = "";
  for (let i = 0; i < deltas; i++) {
    const word = WORDS[i % WORDS.length]!;
    text += word;
    parts.push(chunk({ content: word }, null, i));
  }
  parts.push(chunk({}, "stop"));
  parts.push(
    `data: ${JSON.stringify({ id: "chatcmpl-BENCH", object: "chat.completion.chunk", created: 1750000000, model: "gpt-4.1-nano", choices: [], usage: { prompt_tokens: 16, completion_tokens: deltas, total_tokens: deltas + 16 } })}\n\n`,
  );
  parts.push("data: [DONE]\n\n");
  return { bytes: new TextEncoder().encode(parts.join("")), text };
}

// ---- local server ----
async function serve(body: Uint8Array): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const REQUEST = {
  model: "gpt-4.1-nano",
  system: "",
  messages: [{ role: "user" as const, content: "Write a long text." }],
  tools: [],
};

interface Result {
  deltas: number;
  text: string;
}
type Runner = () => Promise<Result>;

function runners(url: string): Record<string, Runner> {
  const provider = openai({ baseURL: `${url}/v1`, apiKey: "bench", maxRetries: 0 });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "bench", maxRetries: 0 });
  const post = () =>
    fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true }),
    });
  return {
    "raw fetch, body read only (floor)": async () => {
      const response = await post();
      const reader = response.body!.getReader();
      let bytes = 0;
      for (let piece = await reader.read(); !piece.done; piece = await reader.read()) bytes += piece.value.byteLength;
      return { deltas: 0, text: String(bytes) };
    },
    "Agentry SSE decoder + JSON.parse": async () => {
      const response = await post();
      let deltas = 0;
      let text = "";
      for await (const event of parseSseStream(response.body!)) {
        if (event.data === "[DONE]") continue;
        const content = (JSON.parse(event.data) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta
          ?.content;
        if (content) {
          deltas++;
          text += content;
        }
      }
      return { deltas, text };
    },
    "Agentry openai() adapter": async () => {
      let deltas = 0;
      let text = "";
      for await (const event of provider.stream(REQUEST, { signal: new AbortController().signal })) {
        if (event.type === "text_delta") {
          deltas++;
          text += event.text;
        }
      }
      return { deltas, text };
    },
    "openai SDK, chat.completions.create stream": async () => {
      const stream = await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "x" }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let deltas = 0;
      let text = "";
      for await (const part of stream) {
        const content = part.choices[0]?.delta?.content;
        if (content) {
          deltas++;
          text += content;
        }
      }
      return { deltas, text };
    },
    "openai SDK, chat.completions.stream helper": async () => {
      const stream = client.chat.completions.stream({
        model: "m",
        messages: [{ role: "user", content: "x" }],
        stream_options: { include_usage: true },
      });
      let deltas = 0;
      let text = "";
      stream.on("content", (delta) => {
        if (delta) {
          deltas++;
          text += delta;
        }
      });
      await stream.finalChatCompletion();
      return { deltas, text };
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function throughput(url: string, bytes: number, expected: string) {
  const all = runners(url);
  const names = Object.keys(all);
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  const deltaCounts = new Map<string, number>();
  for (const name of names) await all[name]!(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      globalThis.gc?.();
      const start = performance.now();
      const result = await all[name]!();
      times.get(name)!.push(performance.now() - start);
      if (name !== names[0] && result.text !== expected) throw new Error(`${name} produced different text`);
      deltaCounts.set(name, result.deltas);
    }
  }
  return names.map((name) => {
    const ms = median(times.get(name)!);
    return { name, ms, mbPerS: bytes / 1e6 / (ms / 1000), deltasPerS: (deltaCounts.get(name) ?? 0) / (ms / 1000) };
  });
}

// ---- time to first delta: a short stream, first delta right away ----
async function timeToFirstDelta() {
  const small = buildStream(20).bytes;
  const { url, server } = await serve(small);
  const provider = openai({ baseURL: `${url}/v1`, apiKey: "bench", maxRetries: 0 });
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "bench", maxRetries: 0 });
  const measures: Record<string, () => Promise<number>> = {
    "raw fetch: first body chunk": async () => {
      const start = performance.now();
      const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: "{}" });
      const reader = response.body!.getReader();
      await reader.read();
      const t = performance.now() - start;
      await reader.cancel();
      return t;
    },
    "Agentry openai(): first text_delta": async () => {
      const start = performance.now();
      const controller = new AbortController();
      for await (const event of provider.stream(REQUEST, { signal: controller.signal })) {
        if (event.type === "text_delta") {
          const t = performance.now() - start;
          controller.abort();
          return t;
        }
      }
      return NaN;
    },
    "openai SDK create(): first content delta": async () => {
      const start = performance.now();
      const stream = await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "x" }],
        stream: true,
      });
      for await (const part of stream) {
        if (part.choices[0]?.delta?.content) {
          const t = performance.now() - start;
          stream.controller.abort();
          return t;
        }
      }
      return NaN;
    },
  };
  const samples = new Map<string, number[]>(Object.keys(measures).map((name) => [name, []]));
  for (let i = 0; i < 30; i++) for (const measure of Object.values(measures)) await measure().catch(() => NaN);
  for (let i = 0; i < TTFD_SAMPLES; i++) {
    for (const [name, measure] of Object.entries(measures)) {
      const t = await measure().catch((error: unknown) =>
        error instanceof Error && error.name === "AbortError" ? NaN : Promise.reject(error),
      );
      if (!Number.isNaN(t)) samples.get(name)!.push(t);
    }
  }
  server.closeAllConnections();
  server.close();
  return [...samples].map(([name, values]) => ({ name, ms: median(values) }));
}

async function main() {
  const { bytes, text } = buildStream(DELTAS);
  const { url, server } = await serve(bytes);
  console.log(
    `Stream: ${DELTAS.toLocaleString()} content deltas, ${(bytes.byteLength / 1e6).toFixed(1)} MB (recorded-style chunks), ${ROUNDS} rounds, median per method. Node ${process.version}.\n`,
  );
  const rows = await throughput(url, bytes.byteLength, text);
  server.closeAllConnections();
  server.close();
  const adapterRow = rows.find((row) => row.name === "Agentry openai() adapter")!;
  console.log("| method | ms | MB/s | deltas/s | time vs adapter |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const row of rows) {
    const deltas = row.name.startsWith("raw") ? "-" : Math.round(row.deltasPerS).toLocaleString();
    console.log(
      `| ${row.name} | ${row.ms.toFixed(1)} | ${row.mbPerS.toFixed(1)} | ${deltas} | ${(row.ms / adapterRow.ms).toFixed(2)}x |`,
    );
  }
  const ttfd = await timeToFirstDelta();
  const raw = ttfd[0]!.ms;
  console.log(
    `\nTime to first delta (${TTFD_SAMPLES} samples each, interleaved, median; 20-delta stream sent at once):\n`,
  );
  console.log("| path | ms | overhead over raw fetch |");
  console.log("| --- | ---: | ---: |");
  for (const row of ttfd)
    console.log(
      `| ${row.name} | ${row.ms.toFixed(3)} | ${row === ttfd[0] ? "-" : `+${(row.ms - raw).toFixed(3)} ms`} |`,
    );
}

await main();
