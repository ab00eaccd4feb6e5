import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { makeRuntime } from "../runtime/helpers.js";
import { drain, partsStream } from "./helpers.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const finish = (unified: "stop" | "tool-calls" = "stop"): LanguageModelV3StreamPart => ({
  type: "finish",
  usage,
  finishReason: { unified, raw: undefined },
});
const text = (delta: string): LanguageModelV3StreamPart => ({ type: "text-delta", id: "0", delta });
const toolCall = (input: unknown): LanguageModelV3StreamPart => ({
  type: "tool-call",
  toolCallId: "c1",
  toolName: "todo_add",
  input: input as string,
});

/** A model that streams `turns[i]` on its i-th call. */
function scripted(turns: LanguageModelV3StreamPart[][]) {
  let call = 0;
  return new MockLanguageModelV3({
    provider: "mock",
    doStream: async () => ({ stream: partsStream(turns[call++] ?? [text("?"), finish()]) }),
  });
}

/** A stream that enqueues `parts` and then never closes; `cancelled` tells whether the reader let go. */
function openStream(parts: LanguageModelV3StreamPart[]) {
  const state = { cancelled: false };
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return Object.assign(state, { stream });
}

/** A stream that produces `delta` text parts for ever, on demand. */
function endlessStream(delta: string) {
  const state = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    pull(controller) {
      state.pulled += delta.length;
      controller.enqueue(text(delta));
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return Object.assign(state, { stream });
}

const throwingProxy = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Error("trap get");
      },
      ownKeys() {
        throw new Error("trap ownKeys");
      },
      getOwnPropertyDescriptor() {
        throw new Error("trap descriptor");
      },
    },
  );

describe("fromAiSdk: tool-call inputs from the model", () => {
  it("an input that throws when read (a Proxy) becomes an error result for that call; the runtime turn completes", async () => {
    const model = scripted([
      [toolCall(throwingProxy()), finish("tool-calls")],
      [toolCall({ item: "milk" }), finish("tool-calls")],
      [text("Added."), finish()],
    ]);
    const { runtime, events, todo } = makeRuntime([], { providers: { fake: fromAiSdk(model) } });
    const result = await runtime.send({ agentId: "todo", content: "add milk" });
    expect(result.status).toBe("complete");
    expect(result.text).toBe("Added.");
    expect(todo.items).toEqual(["milk"]);
    const ends = events.filter((e) => e.type === "tool_call_update" && e.status === "end");
    expect(ends[0]).toMatchObject({ isError: true, result: expect.stringContaining("could not be read as JSON") });
    expect(events.some((e) => e.type === "error")).toBe(false);
  });

  it("the provider emits plain JSON copies, or a placeholder for inputs that cannot be one (unreadable, nested too deep)", async () => {
    const deep = JSON.parse(`{"item":${"[".repeat(5000)}${"]".repeat(5000)}}`) as unknown;
    const input = { item: "milk", at: new Date(0) };
    const { events, error } = await drain(
      fromAiSdk(scripted([[toolCall(input), toolCall(throwingProxy()), toolCall(deep), finish("tool-calls")]])),
    );
    expect(error).toBeUndefined();
    const args = events.flatMap((e) => (e.type === "tool_call" ? [e.args] : []));
    expect(args).toEqual([
      { item: "milk", at: "1970-01-01T00:00:00.000Z" },
      "[arguments dropped: not readable as JSON]",
      "[arguments dropped: nested deeper than 64 levels]",
    ]);
    expect(args[0]).not.toBe(input);
  });
});

describe("fromAiSdk: a model that stalls", () => {
  it("finish ends the response: a stream left open after it is cancelled, not waited on", async () => {
    const wire = openStream([text("Hi"), finish()]);
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: wire.stream }) });
    const { events, error } = await drain(fromAiSdk(model, { idleTimeoutMs: 0 }));
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["text_delta", "usage", "finish"]);
    expect(wire.cancelled).toBe(true);
  });

  it("no part for idleTimeoutMs mid-stream: the call is aborted with a retryable idle_timeout ProviderError, not retried after output", async () => {
    const wire = openStream([text("half")]);
    let calls = 0;
    let abortSignal: AbortSignal | undefined;
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        calls++;
        abortSignal = options.abortSignal;
        return { stream: wire.stream };
      },
    });
    const { events, error } = await drain(fromAiSdk(model, { idleTimeoutMs: 50 }));
    expect(events).toEqual([{ type: "text_delta", text: "half" }]);
    expect(error).toMatchObject({ name: "ProviderError", retryable: true, errorType: "idle_timeout" });
    expect((error as Error).message).toContain("idleTimeoutMs");
    expect(abortSignal?.aborted).toBe(true);
    expect(wire.cancelled).toBe(true);
    expect(calls).toBe(1);
  });

  it("a doStream that never answers times out too, and is retried before any output", async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doStream: () => {
        calls++;
        return new Promise(() => undefined);
      },
    });
    const { error } = await drain(fromAiSdk(model, { idleTimeoutMs: 20, maxRetries: 1, retryBaseDelayMs: 1 }));
    expect(error).toMatchObject({ name: "ProviderError", retryable: true, errorType: "idle_timeout" });
    expect(calls).toBe(2);
  });

  it.each([
    ["idleTimeoutMs", { idleTimeoutMs: -1 }],
    ["maxResponseBytes", { maxResponseBytes: 0 }],
  ] as const)("rejects a bad %s", (name, options) => {
    expect(() => fromAiSdk(scripted([]), options)).toThrow(InvalidArgumentError);
    expect(() => fromAiSdk(scripted([]), options)).toThrow(name);
  });
});

describe("fromAiSdk: response size", () => {
  it("a model streaming deltas for ever fails the call with a non-retryable response_too_large ProviderError and is cancelled", async () => {
    const wire = endlessStream("x".repeat(1000));
    let calls = 0;
    const model = new MockLanguageModelV3({ doStream: async () => (calls++, { stream: wire.stream }) });
    const { error } = await drain(fromAiSdk(model, { maxResponseBytes: 100_000 }));
    expect(error).toMatchObject({ name: "ProviderError", retryable: false, errorType: "response_too_large" });
    expect((error as Error).message).toContain("maxResponseBytes (100000 characters");
    expect(wire.cancelled).toBe(true);
    expect(calls).toBe(1);
  });

  it("defaults to 32 Mi characters", async () => {
    const wire = endlessStream("x".repeat(1 << 20));
    const { error } = await drain(
      fromAiSdk(new MockLanguageModelV3({ doStream: async () => ({ stream: wire.stream }) })),
    );
    expect((error as Error).message).toContain("maxResponseBytes (33554432 characters");
  });

  it("text or tool-call input beyond what maxOutputTokens allows fails the call (output_too_large)", async () => {
    // maxOutputTokens 10: at most 10 × 32 + 1024 = 1344 characters.
    for (const parts of [
      [text("y".repeat(1400)), finish()],
      [toolCall(JSON.stringify({ item: "y".repeat(1400) })), finish("tool-calls")],
    ]) {
      const { events, error } = await drain(fromAiSdk(scripted([parts])), { maxOutputTokens: 10 });
      expect(error).toMatchObject({ name: "ProviderError", retryable: false, errorType: "output_too_large" });
      expect(events).toEqual([]);
    }
    const within = await drain(fromAiSdk(scripted([[text("y".repeat(1300)), finish()]])), { maxOutputTokens: 10 });
    expect(within.error).toBeUndefined();
  });
});
