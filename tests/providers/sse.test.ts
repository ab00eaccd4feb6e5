import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProviderError } from "../../src/errors/errors.js";
import {
  createSseDecoder,
  DEFAULT_MAX_EVENT_BYTES,
  type SseEvent,
} from "../../src/providers/sse/create-sse-decoder.js";
import { parseSseStream } from "../../src/providers/sse/parse-sse-stream.js";

const SAMPLE = [
  ": keep-alive comment",
  "",
  "event: message_start",
  'data: {"type":"message_start","text":"h\u00e9llo \u2014 \ud83d\ude00"}',
  "",
  "data: first line",
  "data:second line without space",
  "data:  two spaces keep one",
  "id: 7",
  "",
  "data: {}",
  "event: late-name",
  "",
  "event: ping",
  "",
  "data",
  "",
  "data: [DONE]",
  "",
  "",
].join("\n");

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"type":"message_start","text":"h\u00e9llo \u2014 \ud83d\ude00"}' },
  { event: undefined, data: "first line\nsecond line without space\n two spaces keep one", id: "7" },
  { event: "late-name", data: "{}" },
  { event: undefined, data: "" },
  { event: undefined, data: "[DONE]" },
];

function streamOf(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]);
      else controller.close();
    },
  });
}

async function parse(pieces: Uint8Array[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSseStream(streamOf(pieces))) out.push(event);
  return out;
}

function decodeText(pieces: string[]): SseEvent[] {
  const decoder = createSseDecoder();
  return [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.flush()];
}

describe("SSE decoder", () => {
  it("decodes the sample in one piece", async () => {
    expect(await parse([new TextEncoder().encode(SAMPLE)])).toStrictEqual(EXPECTED);
  });

  it.each([
    ["\\n", "\n"],
    ["\\r\\n", "\r\n"],
    ["\\r", "\r"],
  ])("gives the same events split into two byte pieces at every position (%s line ends)", async (_name, eol) => {
    const bytes = new TextEncoder().encode(SAMPLE.replace(/\n/g, eol));
    for (let at = 0; at <= bytes.length; at++) {
      const events = await parse([bytes.subarray(0, at), bytes.subarray(at)]);
      expect(events, `split at byte ${at}`).toStrictEqual(EXPECTED);
    }
  });

  it("gives the same events one byte at a time, UTF-8 sequences split", async () => {
    const bytes = new TextEncoder().encode(SAMPLE.replace(/\n/g, "\r\n"));
    expect(await parse(Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)))).toStrictEqual(
      EXPECTED,
    );
  });

  it("splits a 4-byte character at each inner byte", async () => {
    const bytes = new TextEncoder().encode("data: \ud83d\ude00!\n\n");
    for (const at of [7, 8, 9]) {
      expect(await parse([bytes.subarray(0, at), bytes.subarray(at)])).toStrictEqual([
        { event: undefined, data: "\ud83d\ude00!" },
      ]);
    }
  });

  it("treats a \\r at the end of a piece and the \\n starting the next as one line end", () => {
    expect(decodeText(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toStrictEqual([{ event: undefined, data: "a\nb" }]);
  });

  it("ignores comments anywhere, even between data lines", () => {
    expect(decodeText([": x\ndata: a\n: y\ndata: b\n\n:z\n\n"])).toStrictEqual([{ event: undefined, data: "a\nb" }]);
  });

  it("accepts fields in any order (data before event)", () => {
    expect(decodeText(["data: {}\nevent: response.created\n\n"])).toStrictEqual([
      { event: "response.created", data: "{}" },
    ]);
  });

  it("dispatches a last event whose blank line never came", () => {
    expect(decodeText(["data: a\n\ndata: tail"])).toStrictEqual([
      { event: undefined, data: "a" },
      { event: undefined, data: "tail" },
    ]);
  });

  it("skips a byte-order mark and ignores retry and unknown fields", () => {
    expect(decodeText(["\ufeffretry: 10\nfoo: bar\ndata: x\n\n"])).toStrictEqual([{ event: undefined, data: "x" }]);
  });

  it("does not dispatch an event without data", () => {
    expect(decodeText(["event: ping\n\n", "id: 3\n\n"])).toStrictEqual([]);
  });
});

describe("SSE decoder: event size limit and linear work", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const tooLarge = (run: () => unknown): ProviderError => {
    try {
      run();
    } catch (error) {
      expect(ProviderError.isInstance(error)).toBe(true);
      return error as ProviderError;
    }
    throw new Error("expected the decoder to throw");
  };

  it("defaults to 16 MiB", () => {
    expect(DEFAULT_MAX_EVENT_BYTES).toBe(16 * 1024 * 1024);
  });

  it("accepts an event of exactly maxEventBytes (data lines and their joins) and fails one character over", () => {
    // "abc" + "\n" + "defg" = 8 characters of data.
    const exact = createSseDecoder({ maxEventBytes: 8 });
    expect(exact.push("data: abc\ndata: defg\n\n")).toStrictEqual([{ event: undefined, data: "abc\ndefg" }]);
    const over = createSseDecoder({ maxEventBytes: 8, provider: "p" });
    const error = tooLarge(() => over.push("data: abc\ndata: defgh\n\n"));
    expect(error).toMatchObject({
      name: "ProviderError",
      provider: "p",
      retryable: false,
      errorType: "event_too_large",
    });
    expect(error.message).toContain("maxEventBytes (8)");
  });

  it("counts each event on its own: many events under the limit pass", () => {
    const decoder = createSseDecoder({ maxEventBytes: 10 });
    const events = decoder.push("data: 0123456789\n\n".repeat(50));
    expect(events).toHaveLength(50);
  });

  it("fails an endless line as soon as it passes the limit, before any line end", () => {
    const decoder = createSseDecoder({ maxEventBytes: 1000 });
    decoder.push("data: ");
    let sent = 0;
    const error = tooLarge(() => {
      for (;;) {
        decoder.push("x".repeat(100));
        sent += 100;
        if (sent > 10_000) break;
      }
    });
    expect(sent).toBe(1000); // the push that took the line to 1,100 characters threw
    expect(error.message).toMatch(/maxEventBytes/);
  });

  it("fails a comment or unknown-field line that never ends, too", () => {
    const decoder = createSseDecoder({ maxEventBytes: 100 });
    tooLarge(() => decoder.push(`:${"x".repeat(200)}`));
  });

  it("turns the limit off with Infinity", () => {
    const decoder = createSseDecoder({ maxEventBytes: Infinity });
    expect(decoder.push(`data: ${"y".repeat(100_000)}\n\n`)[0]!.data).toHaveLength(100_000);
  });

  it("decodes a large single-line event split into 64 KiB pieces", () => {
    const payload = "z".repeat(3 * 1024 * 1024 + 17);
    const text = `event: big\ndata: ${payload}\n\ndata: after\n\n`;
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 65_536) pieces.push(text.slice(i, i + 65_536));
    const events = decodeText(pieces);
    expect(events).toHaveLength(2);
    expect(events[0]!.event).toBe("big");
    expect(events[0]!.data === payload).toBe(true);
    expect(events[1]).toStrictEqual({ event: undefined, data: "after" });
  });

  it("decodes a line that arrives one character at a time (thousands of pieces)", () => {
    const payload = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    const text = `data: ${payload}\r\n\r\n`;
    expect(decodeText([...text])).toStrictEqual([{ event: undefined, data: payload }]);
  });

  it("scans each piece a bounded number of times: work is linear in the line's length", () => {
    // Counts the characters String.prototype.indexOf scans while the decoder runs. Rescanning the
    // buffered start of the line on every piece would scan about n²/(2 * piece) characters.
    const original = String.prototype.indexOf; // eslint-disable-line @typescript-eslint/unbound-method -- called with .call below
    let scanned = 0;
    vi.spyOn(String.prototype, "indexOf").mockImplementation(function (this: string, search: string, from?: number) {
      scanned += this.length - Math.max(0, Math.min(from ?? 0, this.length));
      return original.call(this, search, from);
    });
    const size = 2 * 1024 * 1024;
    const piece = 8 * 1024;
    const decoder = createSseDecoder();
    const chunk = "q".repeat(piece);
    decoder.push("data: ");
    for (let sent = 0; sent < size; sent += piece) decoder.push(chunk);
    const events = decoder.push("\n\n");
    vi.restoreAllMocks();
    expect(events[0]!.data.length).toBe(size);
    expect(scanned).toBeLessThan(4 * size);
  });

  it("gives the same events however the text is split (property)", () => {
    const line = fc.oneof(
      fc.constantFrom("", ": comment", "event: e", "id: 1", "retry: 5", "data", "data:", "data: x"),
      fc.string({ maxLength: 40 }).map((text) => `data: ${text.replace(/[\r\n]/g, " ")}`),
    );
    const eol = fc.constantFrom("\n", "\r\n", "\r");
    const document = fc
      .array(fc.tuple(line, eol), { maxLength: 30 })
      .map((lines) => lines.map(([l, e]) => l + e).join(""));
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const positions = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const pieces: string[] = [];
        let at = 0;
        for (const position of positions) {
          pieces.push(text.slice(at, position));
          at = position;
        }
        pieces.push(text.slice(at));
        expect(decodeText(pieces)).toStrictEqual(decodeText([text]));
      }),
    );
  });
});

describe("parseSseStream", () => {
  it("fails with the decoder's ProviderError when an event passes maxEventBytes", async () => {
    const bytes = new TextEncoder().encode(`data: ${"x".repeat(5000)}\n\n`);
    const run = (async () => {
      for await (const _event of parseSseStream(streamOf([bytes.subarray(0, 100), bytes.subarray(100)]), undefined, {
        maxEventBytes: 1000,
        provider: "t",
      })) {
        // nothing expected
      }
    })();
    await expect(run).rejects.toMatchObject({
      name: "ProviderError",
      provider: "t",
      retryable: false,
      errorType: "event_too_large",
    });
  });

  it("throws AbortError and cancels the body when the signal aborts", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: one\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of parseSseStream(body, controller.signal)) {
        seen.push(event.data);
        controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["one"]);
    expect(cancelled).toBe(true);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: one\n\ndata: two\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of parseSseStream(body)) {
      expect(event.data).toBe("one");
      break;
    }
    expect(cancelled).toBe(true);
  });
});
