import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runUnifiedAgentLoop, type LoopEvent, type LoopResult, type Provider } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import { startServer, writePieces, randomPieces, type TestServer } from "../providers/helpers.js";
import { FIXTURES } from "../providers/wire-fixture-expectations.js";

/**
 * Parity: the loop behaves identically through the native adapter and through `fromAiSdk` over
 * the real AI SDK provider (`@ai-sdk/openai` chat model, `@ai-sdk/anthropic`), on the same recorded
 * wire streams. Read from where tests/providers/wire-fixtures.test.ts reads them.
 */
const FIXTURE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/wire");

/**
 * Where the AI SDK's own client reads the wire differently from ours. Each is asserted to differ
 * (so the list cannot go stale) in the way stated; everything else must be identical.
 */
const KNOWN_DIFFERENCES: Record<string, string> = {
  "openai-compatible/xai-grok-reasoning-tool-call.chunks.jsonl":
    "the AI SDK's OpenAI chat model ignores reasoning_content (an OpenAI-compatible extension) and counts completion_tokens only (xAI leaves reasoning tokens out of it)",
  "openai-compatible/deepseek-reasoner-tool-call.chunks.jsonl":
    "the AI SDK's OpenAI chat model ignores reasoning_content",
  "openai-compatible/groq-gpt-oss-midstream-error-event.sse":
    "the AI SDK's OpenAI chat model ignores delta.reasoning (Groq, OpenRouter); the error and the result agree",
  "openai-chat/multiple-choices-n3-gpt-4o.sse":
    "the AI SDK's OpenAI chat model streams the text of every choice of an n > 1 response, interleaved; ours reads choice 0 only",
  "openai-compatible/openrouter-keepalive-comments-error-in-chunk.sse":
    "an error object riding a chunk after finish_reason: the AI SDK's OpenAI chat model keeps the cut-off response (complete); ours fails the call with the error",
  "errors/anthropic-midstream-overloaded-error.sse":
    "an error event inside a 200 stream: the AI SDK's client turns it into an HTTP-like error with a status it derives from the error type (529 / 500) and drops the type; ours keeps the wire's error type as `code` and reports no status (the HTTP status was 200). Retryability and message agree",
  "errors/openai-chat-stream-error-first-chunk.sse":
    "an error event inside a 200 stream: the AI SDK's client turns it into an HTTP-like error with a status it derives from the error type (529 / 500) and drops the type; ours keeps the wire's error type as `code` and reports no status (the HTTP status was 200). Retryability and message agree",
};

function fixtureBody(file: string, api: "openai" | "anthropic"): Uint8Array {
  const raw = readFileSync(join(FIXTURE_DIR, file));
  if (!file.endsWith(".chunks.jsonl")) return raw;
  const lines = raw
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  let text = lines
    .map(
      (line) =>
        `${api === "anthropic" ? `event: ${(JSON.parse(line) as { type: string }).type}\n` : ""}data: ${line}\n\n`,
    )
    .join("");
  if (api === "openai") text += "data: [DONE]\n\n";
  return new TextEncoder().encode(text);
}

/** The answer to every call after the recorded one: plain text, so the loop ends. */
function followUp(api: "openai" | "anthropic"): string {
  const data = (payload: unknown) =>
    `${api === "anthropic" ? `event: ${(payload as { type: string }).type}\n` : ""}data: ${JSON.stringify(payload)}\n\n`;
  if (api === "openai") {
    const chunk = (delta: unknown, finish: string | null) => ({
      id: "c",
      object: "chat.completion.chunk",
      created: 0,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    return (
      data(chunk({ role: "assistant", content: "All done." }, null)) +
      data(chunk({}, "stop")) +
      data({
        id: "c",
        object: "chat.completion.chunk",
        created: 0,
        model: "m",
        choices: [],
        usage: { prompt_tokens: 50, completion_tokens: 3, total_tokens: 53 },
      }) +
      "data: [DONE]\n\n"
    );
  }
  return [
    {
      type: "message_start",
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "m",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 50, output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "All done." } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
    { type: "message_stop" },
  ]
    .map(data)
    .join("");
}

let server: TestServer;
const callsPerRun = new Map<string, number>();
beforeAll(async () => {
  // Routes: /<run>/<fixture>/v1/...; the first call of a run gets the fixture, later calls the follow-up.
  server = await startServer(async (request, response) => {
    const [, run, fixture] = request.url.split("/");
    const file = decodeURIComponent(fixture!);
    const expectation = FIXTURES[file]!;
    const api = expectation.shape === "responses" ? "openai" : expectation.api;
    const call = callsPerRun.get(run!) ?? 0;
    callsPerRun.set(run!, call + 1);
    if (call > 0) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(followUp(api));
      return;
    }
    if (expectation.shape === "http-error") {
      response.writeHead(expectation.status, { "content-type": "application/json" });
      response.end(readFileSync(join(FIXTURE_DIR, file)));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    await writePieces(response, randomPieces(fixtureBody(file, api), 7));
  });
});
afterAll(() => server.close());

const tools = [
  "GetWeatherArgs",
  "get_weather",
  "get_stock_price",
  "get_time",
  "get_current_weather",
  "make_file",
  "search",
  "get_something_by_name",
].map((name) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object({}).passthrough(),
    execute: (args) => ({ tool: name, args }),
  }),
);

let runs = 0;
async function runLoop(provider: Provider): Promise<{ events: unknown[]; result: LoopResult }> {
  const events: LoopEvent[] = [];
  let result: LoopResult | undefined;
  for await (const event of runUnifiedAgentLoop({
    provider,
    model: "recorded-model",
    systemPrompt: "You are a test.",
    history: [{ role: "user", content: "Go." }],
    tools,
  })) {
    events.push(event);
    if (event.type === "done") result = event.result;
  }
  return { events: normalise(events), result: normalise(result!) };
}

/** Timing and random ids are the only things allowed to differ between two runs. */
function normalise<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) => {
    if (key === "durationMs" || key === "duration_ms") return 0;
    if (typeof v === "string" && /^call_[0-9a-f]{24}$/.test(v)) return "call_<generated>";
    if (key === "streamId" && typeof v === "string") return v.replace(/^stream_[0-9a-f]{8}_/, "stream_<turn>_");
    return v;
  }) as T;
}

function providers(file: string, api: "openai" | "anthropic"): { native: () => Provider; bridged: () => Provider } {
  const base = () => `${server.url}/${++runs}/${encodeURIComponent(file)}`;
  if (api === "openai") {
    return {
      native: () => openai({ baseURL: `${base()}/v1`, apiKey: "test", maxRetries: 0 }),
      bridged: () =>
        fromAiSdk(createOpenAI({ baseURL: `${base()}/v1`, apiKey: "test" }).chat("recorded-model"), {
          id: "openai",
          maxRetries: 0,
        }),
    };
  }
  return {
    native: () => anthropic({ baseURL: base(), apiKey: "test", maxRetries: 0 }),
    bridged: () =>
      fromAiSdk(createAnthropic({ baseURL: `${base()}/v1`, apiKey: "test" })("recorded-model"), {
        id: "anthropic",
        maxRetries: 0,
      }),
  };
}

const cases = Object.entries(FIXTURES).flatMap(([file, expectation]) =>
  expectation.shape === "responses" ? [] : [{ file, api: expectation.api }],
);

describe("fromAiSdk parity with the native adapters through the loop, on the recorded wire fixtures", () => {
  it("covers the OpenAI chat, OpenAI-compatible, Anthropic and error fixtures", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)("$file ($api)", async ({ file, api }) => {
    const { native, bridged } = providers(file, api);
    const a = await runLoop(native());
    const b = await runLoop(bridged());
    if (file in KNOWN_DIFFERENCES) {
      expect(b, KNOWN_DIFFERENCES[file]).not.toEqual(a);
      // The parts that do not depend on reasoning agree all the same: text, tool calls, status.
      if (!file.includes("openrouter-keepalive")) expect(b.result.status).toBe(a.result.status);
      if (!file.includes("-n3-")) expect(b.result.text).toBe(a.result.text);
      expect(b.result.executionTree).toEqual(a.result.executionTree);
      return;
    }
    expect(b.events).toEqual(a.events);
    expect(b.result).toEqual(a.result);
  });
});
