import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { anthropic } from "@agentry/core/anthropic";
import { openai } from "@agentry/core/openai";
import type { Provider } from "@agentry/core";
import { baseRequest, collect, sseBody, startServer, textFetch, type TestServer } from "./helpers.js";

const delta = (content: string) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const STOP = { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] };
const OK_STREAM = sseBody([delta("ok"), STOP], { done: true });
const encoder = new TextEncoder();

let server: TestServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

/**
 * A fetch whose answer the test drives by hand (no network, so fake timers are safe): `respond()`
 * sends the headers, `send()` one body chunk, `end()` closes the body. Records whether the request
 * signal was aborted.
 */
function manualFetch() {
  const state = {
    calls: 0,
    aborted: false,
    respond: () => {},
    send: (_text: string) => {},
    end: () => {},
  };
  const fn: typeof fetch = (_input, init) =>
    new Promise<Response>((resolve, reject) => {
      state.calls++;
      const signal = init?.signal;
      signal?.addEventListener("abort", () => {
        state.aborted = true;
        reject(signal.reason as Error);
      });
      let body!: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({ start: (controller) => void (body = controller) });
      state.respond = () =>
        resolve(new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } }));
      state.send = (text) => body.enqueue(encoder.encode(text));
      state.end = () => body.close();
    });
  return Object.assign(state, { fetch: fn });
}

/** Lets promise chains (stream reads, generator steps) settle under fake timers without moving the clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("idleTimeoutMs", () => {
  it("cancels a request whose response headers never come (time to first byte) with a retryable ProviderError", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const wire = manualFetch();
    let done = false;
    const pending = collect(openai({ apiKey: "k", fetch: wire.fetch, idleTimeoutMs: 1000, maxRetries: 0 })).finally(
      () => (done = true),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const r = await pending;
    expect(wire.aborted).toBe(true);
    expect(r.error).toMatchObject({
      name: "ProviderError",
      retryable: true,
      errorType: "idle_timeout",
      provider: "openai",
    });
    expect((r.error as Error).message).toContain("idleTimeoutMs");
    expect(r.finishes).toEqual([]);
  });

  it("restarts on every received chunk, even chunks that complete no event", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const wire = manualFetch();
    const pending = collect(openai({ apiKey: "k", fetch: wire.fetch, idleTimeoutMs: 1000, maxRetries: 0 }));
    await settle();
    await vi.advanceTimersByTimeAsync(900);
    wire.respond();
    await settle();
    const long = `data: ${JSON.stringify(delta("x".repeat(100)))}\n\n`;
    for (let i = 0; i < long.length; i += 10) {
      await vi.advanceTimersByTimeAsync(900);
      wire.send(long.slice(i, i + 10));
      await settle();
    }
    wire.send(sseBody([STOP], { done: true }));
    wire.end();
    const r = await pending;
    expect(r.error).toBeUndefined();
    expect(r.text).toBe("x".repeat(100));
    expect(r.finishes).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it("does not count the time the consumer spends between reads", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const wire = manualFetch();
    const provider = openai({ apiKey: "k", fetch: wire.fetch, idleTimeoutMs: 1000, maxRetries: 0 });
    const stream = provider.stream(baseRequest(), { signal: new AbortController().signal })[Symbol.asyncIterator]();
    const first = stream.next();
    await settle();
    wire.respond();
    wire.send(sseBody([delta("a")]));
    expect(await first).toMatchObject({ value: { type: "text_delta", text: "a" } });
    await vi.advanceTimersByTimeAsync(60_000); // the host is busy; nothing is read meanwhile
    wire.send(sseBody([delta("b"), STOP], { done: true }));
    wire.end();
    const rest: string[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value.type);
    expect(rest).toEqual(["text_delta", "finish"]);
    expect(wire.aborted).toBe(false);
  });

  it("fails after output without retrying when the server goes silent mid-stream", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const wire = manualFetch();
    const pending = collect(anthropic({ apiKey: "k", fetch: wire.fetch, idleTimeoutMs: 500 }));
    await settle();
    wire.respond();
    wire.send(
      sseBody(
        [
          { type: "message_start", message: { usage: { input_tokens: 1 } } },
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "half" } },
        ],
        { eventNames: true },
      ),
    );
    await vi.advanceTimersByTimeAsync(500);
    const r = await pending;
    expect(r.text).toBe("half");
    expect(r.error).toMatchObject({
      name: "ProviderError",
      retryable: true,
      errorType: "idle_timeout",
      provider: "anthropic",
    });
    expect(wire.calls).toBe(1);
    expect(r.finishes).toEqual([]);
  });

  it("retries a silent server before any output, then fails; the connections are closed", async () => {
    let closed = 0;
    server = await startServer((_request, response) => {
      response.on("close", () => closed++);
      // never answers
    });
    const r = await collect(
      anthropic({ apiKey: "k", baseURL: server.url, idleTimeoutMs: 100, maxRetries: 1, retryBaseDelayMs: 1 }),
    );
    expect(r.error).toMatchObject({ name: "ProviderError", retryable: true, errorType: "idle_timeout" });
    expect(server.requests).toHaveLength(2);
    for (let i = 0; i < 200 && closed < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toBe(2);
  });

  it.each([0, Infinity, 2 ** 31, Number.MAX_SAFE_INTEGER])(
    "treats %s as off (never fires at once)",
    async (idleTimeoutMs) => {
      const answer = (response: ServerResponse) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(OK_STREAM);
      };
      server = await startServer((_request, response) => void setTimeout(() => answer(response), 30));
      const r = await collect(openai({ apiKey: "k", baseURL: `${server.url}/v1`, idleTimeoutMs, maxRetries: 0 }));
      expect(r.error).toBeUndefined();
      expect(r.text).toBe("ok");
    },
  );
});

describe("maxEventBytes", () => {
  const providers: [
    string,
    (options: { fetch: typeof fetch; maxEventBytes?: number }) => Provider,
    (text: string) => string,
  ][] = [
    [
      "openai",
      (options) => openai({ apiKey: "k", maxRetries: 2, retryBaseDelayMs: 1, ...options }),
      (text) => sseBody([delta(text), STOP], { done: true }),
    ],
    [
      "anthropic",
      (options) => anthropic({ apiKey: "k", maxRetries: 2, retryBaseDelayMs: 1, ...options }),
      (text) =>
        sseBody(
          [
            { type: "message_start", message: { usage: { input_tokens: 1 } } },
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
            { type: "content_block_stop", index: 0 },
            { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
            { type: "message_stop" },
          ],
          { eventNames: true },
        ),
    ],
  ];

  it.each(providers)(
    "%s: an event over the limit fails the stream with a non-retryable ProviderError, not retried",
    async (name, make, body) => {
      const fetch = textFetch(body("y".repeat(5000)), 512);
      const r = await collect(make({ fetch, maxEventBytes: 1000 }));
      expect(r.error).toMatchObject({
        name: "ProviderError",
        provider: name,
        retryable: false,
        errorType: "event_too_large",
      });
      expect((r.error as Error).message).toContain("maxEventBytes (1000)");
      expect(fetch.bodies).toHaveLength(1);
      expect(r.finishes).toEqual([]);
    },
  );

  it.each(providers)("%s: a large event under the limit streams whole", async (_name, make, body) => {
    const text = "é".repeat(1_000_000);
    const r = await collect(make({ fetch: textFetch(body(text), 65_536), maxEventBytes: 1_100_000 }));
    expect(r.error).toBeUndefined();
    expect(r.text === text).toBe(true);
  });

  it("defaults to 16 MiB", async () => {
    const r = await collect(
      openai({
        apiKey: "k",
        maxRetries: 0,
        fetch: textFetch(sseBody([delta("z".repeat(17 * 1024 * 1024))], { done: true }), 1 << 20),
      }),
    );
    expect(r.error).toMatchObject({ errorType: "event_too_large" });
    expect((r.error as Error).message).toContain("maxEventBytes (16777216)");
  });
});

describe("limit options", () => {
  it.each([
    ["maxEventBytes: 0", { maxEventBytes: 0 }, /maxEventBytes must be a positive number/],
    ["maxEventBytes: -1", { maxEventBytes: -1 }, /maxEventBytes/],
    ["maxEventBytes: NaN", { maxEventBytes: Number.NaN }, /maxEventBytes/],
    ["idleTimeoutMs: -1", { idleTimeoutMs: -1 }, /idleTimeoutMs must be 0 or more/],
    ["idleTimeoutMs: NaN", { idleTimeoutMs: Number.NaN }, /idleTimeoutMs/],
  ] as const)("rejects %s with an InvalidArgumentError before any request", (_name, options, message) => {
    const fetch = textFetch(OK_STREAM);
    for (const make of [
      () => openai({ apiKey: "k", fetch, ...options }),
      () => anthropic({ apiKey: "k", fetch, ...options }),
    ]) {
      let caught: unknown;
      try {
        make();
      } catch (error) {
        caught = error;
      }
      expect(InvalidArgumentError.isInstance(caught)).toBe(true);
      expect((caught as Error).message).toMatch(message);
    }
    expect(fetch.bodies).toHaveLength(0);
  });

  it("names every bad option at once", () => {
    expect(() => openai({ maxEventBytes: -1, idleTimeoutMs: -1 })).toThrow(/maxEventBytes.*idleTimeoutMs/);
  });
});

describe("bodies that are not a stream", () => {
  /** A fetch answering with `status` and `contentType`, whose body never ends; counts the bytes the client pulled. */
  function endlessFetch(status: number, contentType: string) {
    const state = { pulled: 0, cancelled: false };
    const chunk = encoder.encode(`{"error":{"message":"${"x".repeat(65_000)}`);
    const fn: typeof fetch = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull: (controller) => {
              state.pulled += chunk.byteLength;
              controller.enqueue(chunk);
            },
            cancel: () => void (state.cancelled = true),
          }),
          { status, headers: { "content-type": contentType } },
        ),
      );
    return Object.assign(state, { fetch: fn });
  }

  it.each([
    ["an HTTP error", 500, "text/plain"],
    ["a JSON answer where a stream was expected", 200, "application/json"],
  ] as const)(
    "reads at most 64 KiB of %s whose body never ends, then cancels it: a ProviderError, not a hang",
    async (_name, status, contentType) => {
      const wire = endlessFetch(status, contentType);
      for (const provider of [
        openai({ apiKey: "k", fetch: wire.fetch, maxRetries: 0 }),
        anthropic({ apiKey: "k", fetch: wire.fetch, maxRetries: 0 }),
      ]) {
        wire.pulled = 0;
        wire.cancelled = false;
        const r = await collect(provider);
        expect(r.error).toMatchObject({ name: "ProviderError" });
        expect((r.error as Error).message.length).toBeLessThan(70_000);
        expect(wire.cancelled).toBe(true);
        expect(wire.pulled).toBeLessThan(4 * 65_000); // what the stream buffered ahead, not the whole body
      }
    },
  );
});
