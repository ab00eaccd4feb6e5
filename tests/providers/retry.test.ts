import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropic } from "@agentry/core/anthropic";
import { openai, ProviderError, type RetryInfo } from "@agentry/core/openai";
import { parseRetryAfter } from "../../src/providers/http/parse-retry-after.js";
import { streamWithRetry } from "../../src/providers/http/stream-with-retry.js";
import { collect, sseBody, startServer, type TestServer } from "./helpers.js";

const OK_STREAM = sseBody(
  [
    { choices: [{ index: 0, delta: { content: "ok" }, finish_reason: null }] },
    { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  ],
  { done: true },
);

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

let server: TestServer | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await server?.close();
  server = undefined;
});

/** A server that answers the n-th request with replies[n] (the last one repeats); 200 means the OK stream. */
async function serve(replies: Reply[]) {
  server = await startServer((_request, response, index) => {
    const reply = replies[Math.min(index, replies.length - 1)]!;
    if (reply.status === 200) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(OK_STREAM);
      return;
    }
    response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    response.end(JSON.stringify(reply.body ?? { error: { message: `status ${reply.status}`, type: "test_error" } }));
  });
  return server;
}

function provider(s: TestServer, retries: RetryInfo[], extra: { maxRetries?: number; maxRetryDelayMs?: number } = {}) {
  return openai({
    apiKey: "k",
    baseURL: `${s.url}/v1`,
    retryBaseDelayMs: 10,
    onRetry: (info) => retries.push(info),
    ...extra,
  });
}

describe("retries", () => {
  it("honours retry-after-ms on a 429 and then succeeds", async () => {
    const s = await serve([{ status: 429, headers: { "retry-after-ms": "60" } }, { status: 200 }]);
    const retries: RetryInfo[] = [];
    const r = await collect(provider(s, retries));
    expect(r.text).toBe("ok");
    expect(s.requests).toHaveLength(2);
    expect(retries.map((info) => [info.attempt, info.delayMs, info.error.status])).toEqual([[1, 60, 429]]);
  });

  it("honours retry-after in seconds", async () => {
    const s = await serve([{ status: 429, headers: { "retry-after": "0.05" } }, { status: 200 }]);
    const retries: RetryInfo[] = [];
    await collect(provider(s, retries));
    expect(retries.map((info) => info.delayMs)).toEqual([50]);
  });

  it("backs off exponentially with jitter on 500s and gives up after maxRetries", async () => {
    const s = await serve([{ status: 500 }]);
    const retries: RetryInfo[] = [];
    const r = await collect(provider(s, retries, { maxRetries: 3 }));
    expect(s.requests).toHaveLength(4);
    const delays = retries.map((info) => info.delayMs);
    expect(delays).toHaveLength(3);
    [10, 20, 40].forEach((base, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(base * 0.75);
      expect(delays[i]).toBeLessThanOrEqual(base);
    });
    expect(r.error).toMatchObject({ name: "ProviderError", status: 500, retryable: true, message: "status 500" });
    expect(r.finishes).toEqual([]);
  });

  it("retries 529 (Anthropic overloaded) with the default of 2 retries", async () => {
    server = await startServer((_request, response) => {
      response.writeHead(529, { "content-type": "application/json" });
      response.end('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    });
    const r = await collect(anthropic({ apiKey: "k", baseURL: server.url, retryBaseDelayMs: 1 }));
    expect(server.requests).toHaveLength(3);
    expect(r.error).toMatchObject({
      status: 529,
      retryable: true,
      errorType: "overloaded_error",
      provider: "anthropic",
    });
  });

  it.each([
    ["400", { status: 400 }],
    ["401", { status: 401 }],
    ["404", { status: 404 }],
    [
      "429 insufficient_quota",
      { status: 429, body: { error: { message: "quota", type: "insufficient_quota", code: "insufficient_quota" } } },
    ],
    ["500 with x-should-retry: false", { status: 500, headers: { "x-should-retry": "false" } }],
  ] as [string, Reply][])("fails at once on %s", async (_name, reply) => {
    const s = await serve([reply]);
    const retries: RetryInfo[] = [];
    const r = await collect(provider(s, retries));
    expect(s.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(ProviderError.isInstance(r.error)).toBe(true);
    expect((r.error as ProviderError).status).toBe(reply.status);
    expect((r.error as ProviderError).retryable).toBe(false);
  });

  it("does not sleep through a retry-after longer than maxRetryDelayMs: fails with retryAfterMs", async () => {
    const s = await serve([{ status: 429, headers: { "retry-after": "120" } }, { status: 200 }]);
    const retries: RetryInfo[] = [];
    const r = await collect(provider(s, retries));
    expect(s.requests).toHaveLength(1);
    expect(r.error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 120_000 });
  });

  it("retries network errors (connection refused) and reports them as retryable ProviderErrors", async () => {
    const s = await serve([{ status: 200 }]);
    const url = `${s.url}/v1`;
    await s.close();
    server = undefined;
    let calls = 0;
    const counting = ((input: string | URL | Request, init?: RequestInit) => {
      calls++;
      return fetch(input, init);
    }) as typeof fetch;
    const r = await collect(openai({ apiKey: "k", baseURL: url, fetch: counting, retryBaseDelayMs: 1 }));
    expect(calls).toBe(3);
    expect(r.error).toMatchObject({ name: "ProviderError", retryable: true, status: undefined });
    expect((r.error as Error).message).toMatch(/^Network error/);
  });

  it("retries a connection dropped before any output, but not one dropped after output", async () => {
    server = await startServer((_request, response, index) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      if (index === 0) response.destroy();
      else if (index === 1) response.end(OK_STREAM);
      else {
        response.write(sseBody([{ choices: [{ index: 0, delta: { content: "half" }, finish_reason: null }] }]));
        setTimeout(() => response.destroy(), 20);
      }
    });
    const first = await collect(openai({ apiKey: "k", baseURL: `${server.url}/v1`, retryBaseDelayMs: 1 }));
    expect(first.text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    const second = await collect(openai({ apiKey: "k", baseURL: `${server.url}/v1`, retryBaseDelayMs: 1 }));
    expect(second.text).toBe("half");
    expect(second.error).toMatchObject({ name: "ProviderError", retryable: true });
    expect(second.finishes).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });
});

/**
 * The waits themselves, on fake timers: `streamWithRetry` (which both adapters use) with an
 * attempt function that fails as scripted. Each attempt is logged with the (fake) time it began.
 */
describe("retry waits (fake timers)", () => {
  const retryable = (retryAfterMs?: number) =>
    new ProviderError("busy", { provider: "test", status: 429, retryable: true, retryAfterMs });

  function scripted(
    failures: ProviderError[],
    signal: AbortSignal,
    extra: { maxRetries?: number; retryBaseDelayMs?: number } = {},
  ) {
    const attempts: number[] = [];
    const retries: RetryInfo[] = [];
    const start = Date.now();
    const stream = streamWithRetry({
      provider: "test",
      signal,
      ...extra,
      onRetry: (info) => retries.push(info),
      attempt: async function* () {
        attempts.push(Date.now() - start);
        const failure = failures[attempts.length - 1];
        if (failure) throw failure;
        yield "ok";
      },
    });
    let outcome: { items: string[] } | { error: unknown } | undefined;
    void (async () => {
      const items: string[] = [];
      try {
        for await (const item of stream) items.push(item);
        outcome = { items };
      } catch (error) {
        outcome = { error };
      }
    })();
    return { attempts, retries, outcome: () => outcome };
  }

  it("waits exactly the retry-after delay before the next attempt", async () => {
    vi.useFakeTimers();
    const run = scripted([retryable(60)], new AbortController().signal);
    await vi.advanceTimersByTimeAsync(59);
    expect(run.attempts).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.attempts).toEqual([0, 60]);
    expect(run.retries.map((info) => info.delayMs)).toEqual([60]);
    expect(run.outcome()).toEqual({ items: ["ok"] });
  });

  it("waits each backoff delay it reports (doubling, with jitter taken off) before the next attempt", async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, "random").mockReturnValue(0.5); // jitter of 12.5 %: 80 → 70, 160 → 140, 320 → 280
    try {
      const run = scripted([retryable(), retryable(), retryable()], new AbortController().signal, {
        maxRetries: 3,
        retryBaseDelayMs: 80,
      });
      let at = 0;
      for (const delay of [70, 140, 280]) {
        await vi.advanceTimersByTimeAsync(delay - 1);
        expect(run.attempts.at(-1)).toBe(at);
        await vi.advanceTimersByTimeAsync(1);
        at += delay;
        expect(run.attempts.at(-1)).toBe(at);
      }
      expect(run.attempts).toEqual([0, 70, 210, 490]);
      expect(run.retries.map((info) => info.delayMs)).toEqual([70, 140, 280]);
      expect(run.outcome()).toEqual({ items: ["ok"] });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("ends a pending wait at once when the signal aborts", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const run = scripted([retryable(30_000)], controller.signal);
    await vi.advanceTimersByTimeAsync(10);
    expect(run.retries).toHaveLength(1);
    expect(run.outcome()).toBeUndefined(); // waiting out the 30 s
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(run.outcome()).toMatchObject({ error: { name: "AbortError" } });
    expect(run.attempts).toEqual([0]);
  });
});

describe("abort", () => {
  it("ends a pending backoff with an AbortError and no finish", async () => {
    const s = await serve([{ status: 503, headers: { "retry-after": "30" } }, { status: 200 }]);
    const controller = new AbortController();
    let waiting!: () => void;
    const retried = new Promise<void>((resolve) => (waiting = resolve));
    const retries: RetryInfo[] = [];
    const p = openai({
      apiKey: "k",
      baseURL: `${s.url}/v1`,
      maxRetryDelayMs: 60_000,
      onRetry: (info) => (retries.push(info), waiting()),
    });
    const pending = collect(p, {}, controller.signal);
    await retried; // the 30 s wait has begun (that it ends at once is checked on fake timers above)
    controller.abort();
    const r = await pending;
    expect(r.error).toMatchObject({ name: "AbortError" });
    expect(r.finishes).toEqual([]);
    expect(s.requests).toHaveLength(1);
    expect(retries.map((info) => info.delayMs)).toEqual([30_000]);
  });

  it("cancels a request the server has not answered yet", async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    let closedNow!: () => void;
    const closed = new Promise<void>((resolve) => (closedNow = resolve));
    server = await startServer((request, response) => {
      response.on("close", () => closedNow());
      arrived();
      void request;
    });
    const controller = new AbortController();
    const pending = collect(openai({ apiKey: "k", baseURL: `${server.url}/v1` }), {}, controller.signal);
    await requestArrived;
    controller.abort();
    const r = await pending;
    expect(r.error).toMatchObject({ name: "AbortError" });
    expect(r.events).toEqual([]);
    // The server sees the connection close (waits for that event; a leaked request would hang here).
    await closed;
  });

  it("stops mid-stream with AbortError, no finish and no further events", async () => {
    server = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(sseBody([{ choices: [{ index: 0, delta: { content: "first" }, finish_reason: null }] }]));
      setTimeout(() => response.end(OK_STREAM), 2_000);
    });
    const controller = new AbortController();
    const events: string[] = [];
    let error: unknown;
    try {
      for await (const event of openai({ apiKey: "k", baseURL: `${server.url}/v1` }).stream(
        { model: "m", system: "", messages: [{ role: "user", content: "x" }], tools: [] },
        { signal: controller.signal },
      )) {
        events.push(event.type);
        controller.abort();
      }
    } catch (caught) {
      error = caught;
    }
    expect(events).toEqual(["text_delta"]);
    expect(error).toMatchObject({ name: "AbortError" });
  });

  it("rejects at once when the signal is already aborted", async () => {
    const s = await serve([{ status: 200 }]);
    const r = await collect(provider(s, []), {}, AbortSignal.abort());
    expect(r.error).toMatchObject({ name: "AbortError" });
    expect(s.requests).toHaveLength(0);
  });
});

describe("parseRetryAfter", () => {
  const headers = (init: Record<string, string>) => new Headers(init);
  it("prefers retry-after-ms, then seconds, then an HTTP date", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 21 Oct 2026 07:28:03 GMT" }), now)).toBe(3000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 21 Oct 2026 07:27:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(headers({}), now)).toBeUndefined();
  });
});
