import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropic, ProviderError } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import type { Provider } from "@agentry/core";
import { parseSseStream } from "../../src/providers/sse/parse-sse-stream.js";
import {
  collect,
  piecesFetch,
  randomPieces,
  startServer,
  writePieces,
  type Collected,
  type TestServer,
} from "./helpers.js";
import { FIXTURES, type ResponsesExpectation, type StreamExpectation } from "./wire-fixture-expectations.js";

/** The recorded streams, vendored into the repository (provenance: `tests/fixtures/README.md`). */
const FIXTURE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/wire");
const SEEDS = [1, 2, 3, 4, 5];
/**
 * A replay writes a fixture in hundreds of small pieces, one event-loop turn apiece: CPU work that
 * took up to 15 s for the largest fixtures on a loaded 2-core machine. An explicit limit well above
 * that, so only a stuck replay fails on it.
 */
const REPLAY_TIMEOUT_MS = 90_000;

function listFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

/**
 * The HTTP body for a fixture. `.chunks.jsonl` files are framed the way vercel/ai replays them:
 * `data: <line>\n\n` each, plus `data: [DONE]` for OpenAI; Anthropic lines get an `event:` line on
 * even seeds and none on odd seeds (proxies that omit it: dispatch must use the data's `type`).
 */
function fixtureBody(file: string, api: "openai" | "anthropic" | "responses", seed: number): Uint8Array {
  const raw = readFileSync(join(FIXTURE_DIR, file));
  if (!file.endsWith(".chunks.jsonl")) return raw;
  const lines = raw
    .toString("utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const withEvent = api !== "openai" && seed % 2 === 0;
  let text = lines
    .map((line) => `${withEvent ? `event: ${(JSON.parse(line) as { type: string }).type}\n` : ""}data: ${line}\n\n`)
    .join("");
  if (api === "openai") text += "data: [DONE]\n\n";
  return new TextEncoder().encode(text);
}

function recordedStatus(file: string): number | undefined {
  const meta = join(FIXTURE_DIR, `${file}.meta.json`);
  if (!existsSync(meta)) return undefined;
  return (JSON.parse(readFileSync(meta, "utf8")) as { response_status: { code: number } }).response_status.code;
}

let server: TestServer;
beforeAll(async () => {
  // Routes: /<seed>/<fixture path>/... ; the seed picks the piece sizes.
  server = await startServer(async (request, response) => {
    const [, seedText, ...rest] = request.url.split("/");
    const path = decodeURIComponent(rest.join("/")).replace(
      /\/(v1\/messages|v1\/chat\/completions|v1\/responses)$/,
      "",
    );
    const expectation = FIXTURES[path]!;
    const seed = Number(seedText);
    if (expectation.shape === "http-error") {
      response.writeHead(expectation.status, { "content-type": "application/json" });
      response.end(readFileSync(join(FIXTURE_DIR, path)));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    await writePieces(
      response,
      randomPieces(fixtureBody(path, expectation.shape === "stream" ? expectation.api : "responses", seed), seed),
    );
  });
});
afterAll(() => server.close());

function providerFor(api: "openai" | "anthropic", base: string, fetchImpl?: typeof fetch, maxRetries = 0): Provider {
  const common = { apiKey: "test-key", maxRetries, retryBaseDelayMs: 1, ...(fetchImpl ? { fetch: fetchImpl } : {}) };
  return api === "openai" ? openai({ ...common, baseURL: `${base}/v1` }) : anthropic({ ...common, baseURL: base });
}

function routeFor(file: string, seed: number): string {
  return `${server.url}/${seed}/${encodeURIComponent(file)}`;
}

/**
 * Every complete call streamed first (`tool_call_start` with its id and name), and its deltas
 * joined are its arguments' JSON (empty for `{}`): what a UI showed while the model wrote is what ran.
 */
function expectStreamedArgs(result: Collected) {
  expect(result.orphanDeltas).toBe(0);
  for (const call of result.calls) {
    const streamed = result.streamed.find((s) => s.id === call.id);
    expect(streamed, `call ${call.id} did not stream`).toBeDefined();
    expect(streamed!.name).toBe(call.name);
    expect(streamed!.args.trim() === "" ? {} : JSON.parse(streamed!.args)).toStrictEqual(call.args);
  }
}

function expectStream(result: Collected, expected: StreamExpectation, provider: string) {
  expect(result.text).toBe(expected.text);
  expectStreamedArgs(result);
  expect(result.thinking).toStrictEqual(expected.thinking);
  expect(result.calls).toStrictEqual(expected.calls);
  if (expected.error) {
    expect(ProviderError.isInstance(result.error), String(result.error)).toBe(true);
    const error = result.error as ProviderError;
    expect(error.name).toBe("ProviderError");
    expect(error.provider).toBe(provider);
    expect(error.status).toBe(expected.error.status);
    expect(error.message).toBe(expected.error.message);
    expect(error.retryable).toBe(expected.error.retryable);
    expect(error.errorType).toBe(expected.error.errorType);
    expect(result.finishes).toHaveLength(0);
    expect(result.usage).toHaveLength(0);
    return;
  }
  expect(result.error).toBeUndefined();
  expect(result.usage).toStrictEqual(expected.usage === null ? [] : [{ type: "usage", ...expected.usage }]);
  expect(result.finishes).toStrictEqual([{ type: "finish", reason: expected.finish }]);
  expect(result.events.at(-1)?.type).toBe("finish");
  if (expected.usage) expect(result.events.at(-2)?.type).toBe("usage");
}

describe("wire fixtures: coverage", () => {
  it("has an expectation for every fixture file (meta files belong to one)", () => {
    const files = listFiles(FIXTURE_DIR).filter((file) => file !== "README.md" && file !== "MANIFEST.json");
    const uncovered = files.filter(
      (file) => !(file in FIXTURES) && !(file.endsWith(".meta.json") && file.replace(/\.meta\.json$/, "") in FIXTURES),
    );
    expect(uncovered).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(FIXTURE_DIR, "MANIFEST.json"), "utf8")) as { file: string }[];
    expect(manifest.map((entry) => entry.file).sort()).toEqual(Object.keys(FIXTURES).sort());
  });

  it("holds the recorded bytes unchanged (sha256 and size as in MANIFEST.json)", () => {
    const manifest = JSON.parse(readFileSync(join(FIXTURE_DIR, "MANIFEST.json"), "utf8")) as {
      file: string;
      bytes: number;
      sha256: string;
    }[];
    for (const entry of manifest) {
      const bytes = readFileSync(join(FIXTURE_DIR, entry.file));
      expect({
        file: entry.file,
        bytes: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      }).toEqual({
        file: entry.file,
        bytes: entry.bytes,
        sha256: entry.sha256,
      });
    }
  });

  it("matches the recorded HTTP status of each fixture that has one", () => {
    for (const [file, expectation] of Object.entries(FIXTURES)) {
      const status = recordedStatus(file);
      if (status === undefined) continue;
      expect(status, file).toBe(expectation.shape === "http-error" ? expectation.status : 200);
    }
  });
});

for (const [file, expectation] of Object.entries(FIXTURES)) {
  if (expectation.shape === "stream") {
    describe(`${file} (${expectation.api})`, { timeout: REPLAY_TIMEOUT_MS }, () => {
      it.each(SEEDS)("over HTTP in random pieces, seed %i", async (seed) => {
        const result = await collect(providerFor(expectation.api, routeFor(file, seed)));
        expectStream(result, expectation, expectation.api);
      });
      it("byte by byte", async () => {
        const bytes = fixtureBody(file, expectation.api, 2);
        const pieces = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
        const result = await collect(providerFor(expectation.api, "http://127.0.0.1:9", piecesFetch(pieces)));
        expectStream(result, expectation, expectation.api);
      });
    });
  } else if (expectation.shape === "http-error") {
    describe(`${file} (HTTP ${expectation.status} via ${expectation.api})`, { timeout: REPLAY_TIMEOUT_MS }, () => {
      it("becomes a ProviderError with the provider's status, message and retryability", async () => {
        const result = await collect(providerFor(expectation.api, routeFor(file, 1)));
        expectStream(
          result,
          {
            shape: "stream",
            api: expectation.api,
            text: "",
            thinking: [],
            calls: [],
            usage: null,
            finish: null,
            error: expectation.error,
          },
          expectation.api,
        );
      });
      it(`is attempted ${expectation.error.retryable ? "again" : "once"} when retries are allowed`, async () => {
        const before = server.requests.length;
        const result = await collect(providerFor(expectation.api, routeFor(file, 2), undefined, 1));
        expect(ProviderError.isInstance(result.error)).toBe(true);
        expect(server.requests.length - before).toBe(expectation.error.retryable ? 2 : 1);
      });
    });
  } else {
    describe(`${file} (Responses API)`, { timeout: REPLAY_TIMEOUT_MS }, () => {
      it.each(SEEDS)("parses in random pieces, seed %i", async (seed) => {
        expectResponses(await responsesEvents(file, seed), expectation);
      });
      it.each(SEEDS)('through openai({ api: "responses" }) over HTTP in random pieces, seed %i', async (seed) => {
        const provider = openai({
          api: "responses",
          apiKey: "test-key",
          maxRetries: 0,
          baseURL: `${routeFor(file, seed)}/v1`,
        });
        expectResponsesAdapter(await collect(provider), expectation.adapter);
      });
    });
  }
}

function expectResponsesAdapter(result: Collected, expected: ResponsesExpectation["adapter"]) {
  if (typeof expected.text === "string") expect(result.text).toBe(expected.text);
  else expect(result.text).toHaveLength(expected.text.length);
  const thinking = result.events.flatMap((event) => (event.type === "thinking_delta" ? [event] : []));
  expect(thinking.map((event) => event.text).join("")).toHaveLength(expected.thinking.length);
  const items = thinking.filter((event) => event.providerMetadata !== undefined);
  expect(items).toHaveLength(expected.thinking.items);
  for (const event of items)
    expect(event.providerMetadata).toMatchObject({ openaiResponses: { item: { type: "reasoning" } } });
  expect(result.calls).toStrictEqual(expected.calls);
  expectStreamedArgs(result);
  if (expected.error) {
    expect(ProviderError.isInstance(result.error), String(result.error)).toBe(true);
    const error = result.error as ProviderError;
    expect({
      status: error.status,
      message: error.message,
      retryable: error.retryable,
      errorType: error.errorType,
    }).toEqual(expected.error);
    expect(result.finishes).toHaveLength(0);
    return;
  }
  expect(result.error).toBeUndefined();
  expect(result.usage.map(({ type: _type, ...usage }) => usage)).toStrictEqual(expected.usage ? [expected.usage] : []);
  expect(result.finishes.map((finish) => finish.reason)).toEqual([expected.finish]);
}

async function responsesEvents(file: string, seed: number) {
  const pieces = randomPieces(fixtureBody(file, "responses", seed), seed);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  const events: { event: string | undefined; data: any }[] = [];
  for await (const event of parseSseStream(body)) events.push({ event: event.event, data: JSON.parse(event.data) });
  return events;
}

function expectResponses(events: { event: string | undefined; data: any }[], expected: ResponsesExpectation) {
  expect(events).toHaveLength(expected.events);
  for (const event of events) if (event.event !== undefined) expect(event.event).toBe(event.data.type);
  for (const [type, count] of Object.entries(expected.counts)) {
    expect(
      events.filter((event) => event.data.type === type),
      type,
    ).toHaveLength(count);
  }
  const last = events.at(-1)!.data;
  expect({ type: last.type, status: last.response?.status }).toEqual(expected.terminal);
  const calls = events
    .filter((event) => event.data.type === "response.output_item.done" && event.data.item?.type === "function_call")
    .map((event) => ({ name: event.data.item.name, arguments: event.data.item.arguments }));
  expect(calls).toEqual(expected.calls);
  const text = events
    .filter((event) => event.data.type === "response.output_text.delta")
    .map((event) => event.data.delta as string)
    .join("");
  if (typeof expected.outputText === "string") expect(text).toBe(expected.outputText);
  else expect(text).toHaveLength(expected.outputText.length);
}
