import { describe, expect, it } from "vitest";
import { createSseDecoder, type SseEvent } from "../../src/providers/sse/create-sse-decoder.js";
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
    expect(await parse(Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)))).toStrictEqual(EXPECTED);
  });

  it("splits a 4-byte character at each inner byte", async () => {
    const bytes = new TextEncoder().encode("data: \ud83d\ude00!\n\n");
    for (const at of [7, 8, 9]) {
      expect(await parse([bytes.subarray(0, at), bytes.subarray(at)])).toStrictEqual([{ event: undefined, data: "\ud83d\ude00!" }]);
    }
  });

  it("treats a \\r at the end of a piece and the \\n starting the next as one line end", () => {
    expect(decodeText(["data: a\r", "\ndata: b\r", "\n\r", "\n"])).toStrictEqual([{ event: undefined, data: "a\nb" }]);
  });

  it("ignores comments anywhere, even between data lines", () => {
    expect(decodeText([": x\ndata: a\n: y\ndata: b\n\n:z\n\n"])).toStrictEqual([{ event: undefined, data: "a\nb" }]);
  });

  it("accepts fields in any order (data before event)", () => {
    expect(decodeText(["data: {}\nevent: response.created\n\n"])).toStrictEqual([{ event: "response.created", data: "{}" }]);
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

describe("parseSseStream", () => {
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
