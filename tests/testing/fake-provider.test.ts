import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentryError, ProviderError, type ModelEvent, type ModelRequest } from "@agentry/core";
import { collectEvents, createFakeProvider, FakeScriptExhaustedError, wordChunks } from "@agentry/core/testing";

const request = (text = "hi"): ModelRequest => ({
  model: "m",
  system: "s",
  messages: [{ role: "user", content: text }],
  tools: [],
});
const drain = async (iterable: AsyncIterable<ModelEvent>) => (await collectEvents(iterable)).events;

afterEach(() => {
  vi.useRealTimers();
});

describe("createFakeProvider", () => {
  it("streams text as word chunks that keep their spaces, then finish", async () => {
    const provider = createFakeProvider([{ text: "  Hello, brave  new world " }]);
    const events = await drain(provider.stream(request(), { signal: new AbortController().signal }));
    const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text);
    expect(deltas.join("")).toBe("  Hello, brave  new world ");
    expect(deltas.length).toBe(4);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(wordChunks("")).toEqual([]);
  });

  it("uses explicit chunks, thinking, usage, generated ids and finish tool_calls", async () => {
    const provider = createFakeProvider([
      {
        chunks: ["a", "b"],
        thinking: "hmm",
        toolCalls: [
          { name: "x", args: { a: 1 } },
          { id: "given", name: "y", args: {} },
        ],
        usage: { inputTokens: 3, outputTokens: 4 },
      },
    ]);
    const events = await drain(provider.stream(request(), { signal: new AbortController().signal }));
    expect(events).toEqual([
      { type: "thinking_delta", text: "hmm" },
      { type: "text_delta", text: "a" },
      { type: "text_delta", text: "b" },
      { type: "tool_call", id: "call_0_0", name: "x", args: { a: 1 } },
      { type: "tool_call", id: "given", name: "y", args: {} },
      { type: "usage", inputTokens: 3, outputTokens: 4 },
      { type: "finish", reason: "tool_calls" },
    ]);
  });

  it("records deep copies of every request and counts what remains", async () => {
    const provider = createFakeProvider([{ text: "a" }, { text: "b" }]);
    const req = request("first");
    await drain(provider.stream(req, { signal: new AbortController().signal }));
    (req.messages[0] as { content: string }).content = "mutated";
    expect(provider.calls[0]!.messages[0]).toEqual({ role: "user", content: "first" });
    expect(provider.remaining()).toBe(1);
    expect(createFakeProvider(() => ({ text: "x" })).remaining()).toBe(Number.POSITIVE_INFINITY);
  });

  it("does not record when record is false", async () => {
    const provider = createFakeProvider([{ text: "a" }], { record: false, id: "quiet" });
    await drain(provider.stream(request(), { signal: new AbortController().signal }));
    expect(provider.calls).toEqual([]);
    expect(provider.id).toBe("quiet");
  });

  it("fails clearly past the end of an array script", async () => {
    const provider = createFakeProvider([{ text: "only" }]);
    await drain(provider.stream(request(), { signal: new AbortController().signal }));
    const failure = drain(provider.stream(request(), { signal: new AbortController().signal }));
    await expect(failure).rejects.toSatisfy(
      (e: unknown) => FakeScriptExhaustedError.isInstance(e) && AgentryError.isInstance(e),
    );
    await expect(drain(provider.stream(request(), { signal: new AbortController().signal }))).rejects.toThrow(
      /call index 2 .* only 1 turn/,
    );
  });

  it("passes the request and call index to a function script", async () => {
    const seen: [string, number][] = [];
    const provider = createFakeProvider((req, index) => {
      seen.push([JSON.stringify(req.messages[0]!.content), index]);
      return { text: "ok" };
    });
    await drain(provider.stream(request("a"), { signal: new AbortController().signal }));
    await drain(provider.stream(request("b"), { signal: new AbortController().signal }));
    expect(seen).toEqual([
      ['"a"', 0],
      ['"b"', 1],
    ]);
  });

  it("throws the scripted error after the content", async () => {
    const error = new ProviderError("overloaded", { provider: "fake", status: 529, retryable: true });
    const provider = createFakeProvider([{ text: "so far", error }]);
    const events: ModelEvent[] = [];
    await expect(
      (async () => {
        for await (const e of provider.stream(request(), { signal: new AbortController().signal })) events.push(e);
      })(),
    ).rejects.toBe(error);
    expect(events.map((e) => e.type)).toEqual(["text_delta", "text_delta"]);
  });

  it("honours abort during delayMs with an AbortError and no finish", async () => {
    vi.useFakeTimers();
    const provider = createFakeProvider([{ text: "late", delayMs: 5_000 }]);
    const controller = new AbortController();
    const outcome = drain(provider.stream(request(), { signal: controller.signal })).then(
      (events) => ({ events }),
      (error: unknown) => ({ error }),
    );
    await vi.advanceTimersByTimeAsync(10);
    expect(provider.calls).toHaveLength(1); // waiting out its delay
    controller.abort();
    // One (fake) millisecond later, not after the 5 s delay: settled, with an AbortError.
    let settled: { events?: ModelEvent[]; error?: unknown } | undefined;
    void outcome.then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toMatchObject({ error: { name: "AbortError" } });
  });

  it("starts when read, stops at abort between events and after return()", async () => {
    const provider = createFakeProvider([{ text: "one two three four" }, { text: "again" }]);
    const controller = new AbortController();
    const stream = provider.stream(request(), { signal: controller.signal });
    expect(provider.calls).toHaveLength(0); // nothing happens before the first read
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: { type: "text_delta", text: "one " }, done: false });
    expect(provider.calls).toHaveLength(1);
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ name: "AbortError" });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });

    const second = provider.stream(request(), { signal: new AbortController().signal })[Symbol.asyncIterator]();
    await second.next();
    expect(await second.return!()).toEqual({ value: undefined, done: true });
    expect(await second.next()).toEqual({ value: undefined, done: true });
  });
});
