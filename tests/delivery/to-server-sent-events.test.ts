import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createEventLog,
  InvalidArgumentError,
  toServerSentEvents,
  type DeliveredDoneEvent,
  type RuntimeEvent,
} from "@agentry/core";
import { makeRuntime } from "../runtime/helpers.js";
import { parseSse, readSse } from "./helpers.js";

type E = { type: string; seq?: number; text?: string };

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

describe("toServerSentEvents", () => {
  afterEach(() => vi.useRealTimers());

  it("writes one message per event: id = seq, data = the event as JSON (newlines escaped)", async () => {
    const events: E[] = [
      { type: "chunk", seq: 7, text: "two\nlines" },
      { type: "warning", text: "no seq" },
    ];
    const messages = await readSse(toServerSentEvents(from(events)));
    expect(messages).toEqual([{ id: "7", data: JSON.stringify(events[0]) }, { data: JSON.stringify(events[1]) }]);
    expect(messages.map((m) => JSON.parse(m.data!))).toEqual(events);
  });

  it("streams a real turn: every runtime event once, ids increasing, ending with done", async () => {
    const { runtime } = makeRuntime([
      { toolCalls: [{ name: "todo_add", args: { item: "milk" } }] },
      { text: "Added milk." },
    ]);
    const messages = await readSse(toServerSentEvents(runtime.stream({ agentId: "todo", content: "add milk" })));
    const events = messages.map((m) => JSON.parse(m.data!) as RuntimeEvent);
    expect(events.at(-1)?.type).toBe("done");
    const ids = messages.map((m) => Number(m.id));
    expect(ids).toEqual(events.map((e) => e.seq));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect(events.filter((e) => e.type === "tool_call_update")).toHaveLength(2);
  });

  it("writes a batch (an array, as the batcher delivers) in one chunk, and waits for nothing more", async () => {
    let release!: () => void;
    const later = new Promise<void>((resolve) => (release = resolve));
    async function* source(): AsyncGenerator<E | E[]> {
      yield [
        { type: "chunk", seq: 1 },
        { type: "chunk", seq: 2 },
      ];
      yield [];
      await later;
      yield { type: "done", seq: 3 };
    }
    const reader = toServerSentEvents<E>(source()).getReader();
    const decoder = new TextDecoder();
    // The first write comes while the source is still waiting.
    expect(parseSse(decoder.decode((await reader.read()).value)).map((m) => m.id)).toEqual(["1", "2"]);
    release();
    expect(parseSse(decoder.decode((await reader.read()).value)).map((m) => m.id)).toEqual(["3"]);
    expect((await reader.read()).done).toBe(true);
  });

  it("gathers events the source already has into one write, up to 64 KB", async () => {
    const events: E[] = Array.from({ length: 2_000 }, (_, i) => ({ type: "chunk", seq: i + 1, text: "x".repeat(60) }));
    const reader = toServerSentEvents<E>(from(events)).getReader();
    const writes: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read())
      writes.push(parseSse(new TextDecoder().decode(r.value)).length);
    expect(writes.reduce((a, b) => a + b, 0)).toBe(2_000);
    expect(writes.length).toBeLessThan(10);
    expect(writes.length).toBeGreaterThan(1);
  });

  it("reads the source only as the stream is read, and cancelling returns the source", async () => {
    let produced = 0;
    let returned = false;
    async function* source(): AsyncGenerator<E> {
      try {
        for (;;) {
          produced++;
          yield { type: "chunk", seq: produced };
        }
      } finally {
        returned = true;
      }
    }
    const reader = toServerSentEvents(source()).getReader();
    await reader.read();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const afterTwoReads = produced;
    // Bounded by the write size, and nothing more is taken while nobody reads.
    expect(afterTwoReads).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(produced).toBe(afterTwoReads);
    await reader.cancel();
    await vi.waitFor(() => expect(returned).toBe(true));
  });

  it("ends with an error message when the source throws", async () => {
    async function* failing(): AsyncGenerator<E> {
      yield { type: "chunk", seq: 1 };
      throw new Error("store is down");
    }
    const messages = await readSse(toServerSentEvents(failing()));
    expect(messages).toHaveLength(2);
    expect(messages[1]).toEqual({ data: JSON.stringify({ type: "error", message: "store is down" }) });
  });

  it("sends retry first and keep-alive comments while the source is idle", async () => {
    vi.useFakeTimers();
    let release!: () => void;
    const idle = new Promise<void>((resolve) => (release = resolve));
    async function* slow(): AsyncGenerator<E> {
      await idle;
      yield { type: "done", seq: 1 };
    }
    const reader = toServerSentEvents(slow(), { retryMs: 2_000, keepAliveMs: 15_000 }).getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe("retry: 2000\n\n");
    const next = reader.read();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(decoder.decode((await next).value)).toBe(": keep-alive\n\n");
    const last = reader.read();
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(parseSse(decoder.decode((await last).value))).toEqual([{ id: "1", data: '{"type":"done","seq":1}' }]);
    expect((await reader.read()).done).toBe(true);
  });

  it("writes exactly the UTF-8 of the frames for any text (multi-byte, surrogate pairs, lone surrogates, escapes)", async () => {
    const text = fc.oneof(
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: "binary" }),
      fc.string({ unit: fc.constantFrom("a", "é", "€", "😀", "\ud800", "\udc00", '"', "\\", "\n", "\u2028") }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(text, { maxLength: 5 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        let seq = 0;
        const events = batches.map((batch) => batch.map((t) => ({ type: "chunk", seq: ++seq, text: t })));
        const bytes = new Uint8Array(await new Response(toServerSentEvents<E>(from(events))).arrayBuffer());
        const expected = events
          .flat()
          .map((event) => `id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`)
          .join("");
        expect(bytes).toEqual(new TextEncoder().encode(expected));
      }),
      { numRuns: 300 },
    );
  });

  it("takes the id of each message from the id option, and leaves out an id that holds a line break", async () => {
    const events: E[] = [{ type: "chunk", seq: 1 }, { type: "chunk", seq: 2 }, { type: "chunk" }];
    const ids = (event: E) =>
      event.seq === 2 ? "two\nid: 99" : event.seq === undefined ? undefined : `run-a:${event.seq}`;
    const messages = await readSse(toServerSentEvents(from(events), { id: ids }));
    expect(messages).toEqual(
      events.map((event, i) =>
        i === 0 ? { id: "run-a:1", data: JSON.stringify(event) } : { data: JSON.stringify(event) },
      ),
    );
  });

  describe("the done event (options.done)", () => {
    const script = [{ toolCalls: [{ name: "todo_add", args: { item: "secret plan" } }] }, { text: "Added it." }];
    const doneOf = async (stream: ReadableStream<Uint8Array>) =>
      (await readSse(stream)).map((m) => JSON.parse(m.data!) as DeliveredDoneEvent).find((e) => e.type === "done")!;

    it("sends the turn's outcome and ids by default, never its messages or execution tree", async () => {
      const { runtime } = makeRuntime(script);
      const done = await doneOf(toServerSentEvents(runtime.stream({ agentId: "todo", content: "add it" })));
      expect(Object.keys(done.result).sort()).toEqual(["agentId", "runId", "sessionId", "status", "text", "usage"]);
      expect(done.result).toMatchObject({
        status: "complete",
        text: "Added it.",
        usage: { llmCalls: 2, toolCalls: 1 },
        agentId: "todo",
      });
      expect(done).toMatchObject({
        type: "done",
        depth: 0,
        parentId: null,
        sessionId: done.result.sessionId,
        runId: done.result.runId,
      });
      expect(typeof done.seq).toBe("number");
      expect(JSON.stringify(done)).not.toContain("secret plan");
    });

    it("sends the outcome for the done events a createEventLog resume replays", async () => {
      const { runtime } = makeRuntime(script);
      const log = createEventLog({ runtime });
      const seen: RuntimeEvent[] = [];
      runtime.events.on("event", (event) => seen.push(event));
      const result = await runtime.send({ agentId: "todo", content: "add it" });
      const done = await doneOf(
        toServerSentEvents(log.resume({ sessionId: result.sessionId, lastEventId: log.eventId(seen[0]!) })),
      );
      expect(done.result).toEqual({
        status: "complete",
        text: "Added it.",
        usage: result.usage,
        sessionId: result.sessionId,
        agentId: "todo",
        runId: result.runId,
      });
      log.close();
    });

    it('"full" sends the event as it is; a function adds its fields to the outcome', async () => {
      const full = await doneOf(
        toServerSentEvents(makeRuntime(script).runtime.stream({ agentId: "todo", content: "add it" }), {
          done: "full",
        }),
      );
      expect(full.result).toHaveProperty("messages");
      expect(full.result).toHaveProperty("executionTree");
      const extended = await doneOf(
        toServerSentEvents(makeRuntime(script).runtime.stream({ agentId: "todo", content: "add it" }), {
          done: (event) => ({ toolNames: event.result.executionTree.nodes.map((n) => n.name) }),
        }),
      );
      expect(extended.result).toMatchObject({ status: "complete", toolNames: ["todo_add"] });
      expect(extended.result).not.toHaveProperty("messages");
    });

    it("rejects a done option that is none of those", () => {
      expect(() => toServerSentEvents(from([]), { done: "everything" as never })).toThrow(
        /done must be "outcome", "full" or a function/,
      );
    });
  });

  it("rejects bad timing options with a typed error", () => {
    expect(() => toServerSentEvents(from([]), { keepAliveMs: 0 })).toThrow(InvalidArgumentError);
    expect(() => toServerSentEvents(from([]), { retryMs: Number.NaN })).toThrow(InvalidArgumentError);
  });
});
