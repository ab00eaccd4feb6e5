/**
 * fromAiSdk overhead: the per-call cost of going through the AI SDK's `@ai-sdk/openai` chat
 * model + `fromAiSdk` instead of Agentry's native `openai()` adapter, on the same recorded-style
 * Chat Completions stream served from memory (a fetch that returns the bytes: no sockets, so the
 * difference is parsing and mapping only).
 *
 *   npx tsx bench/ai-sdk-overhead.ts [--deltas=200] [--calls=400] [--rounds=5]
 *
 * Not a test: it prints a table and asserts nothing.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { fromAiSdk } from "../src/entries/ai-sdk.ts";
import { openai } from "../src/entries/openai.ts";
import type { Provider } from "../src/index.ts";

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split("=")[1]) : fallback;
};
const ROUNDS = arg("rounds", 5);
const CALLS = arg("calls", 400);

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-BENCH", object: "chat.completion.chunk", created: 1750000000, model: "gpt-4.1-nano", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;
}
function stream(deltas: number, toolCall: boolean): Uint8Array {
  const parts = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < deltas; i++)
    parts.push(chunk({ content: ["The", " quick", " brown", " fox", " jumps."][i % 5] }));
  if (toolCall) {
    parts.push(
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "echo", arguments: "" } }] }),
    );
    for (const piece of ['{"te', 'xt":"', 'hello"}'])
      parts.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  }
  parts.push(chunk({}, toolCall ? "tool_calls" : "stop"));
  parts.push(
    `data: ${JSON.stringify({ id: "chatcmpl-BENCH", object: "chat.completion.chunk", created: 1750000000, model: "gpt-4.1-nano", choices: [], usage: { prompt_tokens: 40, completion_tokens: deltas, total_tokens: deltas + 40 } })}\n\n`,
  );
  parts.push("data: [DONE]\n\n");
  return new TextEncoder().encode(parts.join(""));
}

/** A fetch answering every call with these bytes, in 4 KB pieces, like a socket would. */
function memoryFetch(bytes: Uint8Array): typeof fetch {
  return async () => {
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, (offset += 4096)));
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

const REQUEST = {
  model: "gpt-4.1-nano",
  system: "Be brief.",
  messages: [{ role: "user" as const, content: "Say something." }],
  tools: [
    { name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  ],
};

async function oneCall(provider: Provider): Promise<number> {
  let events = 0;
  for await (const _event of provider.stream(REQUEST, { signal: new AbortController().signal })) events++;
  return events;
}

/** The AI SDK model alone: `doStream` with the same prompt, every part read (what fromAiSdk adds is the rest). */
function rawModel(model: ReturnType<ReturnType<typeof createOpenAI>["chat"]>): Provider {
  return {
    id: "raw",
    async *stream() {
      const { stream } = await model.doStream({
        prompt: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "Say something." }] },
        ],
        tools: [
          {
            type: "function",
            name: "echo",
            description: "Echo",
            inputSchema: { type: "object", properties: { text: { type: "string" } } },
          },
        ],
      });
      const reader = stream.getReader();
      for (let part = await reader.read(); !part.done; part = await reader.read())
        yield { type: "text_delta" as const, text: part.value.type };
    },
  };
}

async function measure(provider: Provider): Promise<number> {
  for (let i = 0; i < 50; i++) await oneCall(provider);
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await oneCall(provider);
  return ((performance.now() - start) * 1000) / CALLS;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const rows: string[] = [];
for (const [label, deltas, toolCall] of [
  ["tool call, 0 text deltas", 0, true],
  ["20 text deltas", 20, false],
  ["200 text deltas", 200, false],
] as const) {
  const bytes = stream(deltas, toolCall);
  const native = openai({
    apiKey: "bench",
    baseURL: "http://bench.invalid/v1",
    fetch: memoryFetch(bytes),
    maxRetries: 0,
  });
  const model = createOpenAI({ apiKey: "bench", baseURL: "http://bench.invalid/v1", fetch: memoryFetch(bytes) }).chat(
    "gpt-4.1-nano",
  );
  const bridged = fromAiSdk(model, { maxRetries: 0 });
  const raw = rawModel(model);
  const samples: [number[], number[], number[]] = [[], [], []];
  const contenders = [native, raw, bridged];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order per round so warm-up and GC do not favour one side.
    for (let k = 0; k < 3; k++) {
      const index = (round + k) % 3;
      samples[index]!.push(await measure(contenders[index]!));
    }
  }
  const [x, r, y] = samples.map(median) as [number, number, number];
  const signed = (d: number) => `${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(0)}`;
  rows.push(
    `| ${label} | ${x.toFixed(0)} | ${r.toFixed(0)} | ${y.toFixed(0)} | ${signed(y - r)} | ${signed(y - x)} (${(y / x).toFixed(2)}×) |`,
  );
}
console.log(
  `fromAiSdk(@ai-sdk/openai chat) vs openai(), µs per model call (median of ${ROUNDS} rounds × ${CALLS} calls), Node ${process.version}`,
);
console.log("");
console.log(
  "| stream | openai() | AI SDK model.doStream alone | fromAiSdk(model) | fromAiSdk's own mapping | fromAiSdk over openai() |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
