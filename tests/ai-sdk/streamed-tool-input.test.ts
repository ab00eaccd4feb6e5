import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { LanguageModelV2, LanguageModelV2StreamPart } from "@ai-sdk/provider-v2";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ModelEvent } from "@agentry/core";
import { fromAiSdk } from "@agentry/core/ai-sdk";
import { drain, partsStream, v4Model } from "./helpers.js";

/** The AI SDK bridge streams a call's input (`tool-input-start` / `tool-input-delta`) as `tool_call_start` / `tool_call_delta`. */

const finishV3 = {
  type: "finish",
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  },
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
} as const;

/** Two calls whose input parts interleave, a provider-executed one, and noise that must not stream. */
const PARTS: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "tool-input-start", id: "a", toolName: "search" },
  { type: "tool-input-start", id: "b", toolName: "fetch" },
  { type: "tool-input-delta", id: "a", delta: '{"q":' },
  { type: "tool-input-delta", id: "b", delta: '{"url":"x"}' },
  { type: "tool-input-delta", id: "ghost", delta: "never started" },
  { type: "tool-input-start", id: "ws", toolName: "web_search", providerExecuted: true },
  { type: "tool-input-delta", id: "ws", delta: "{}" },
  { type: "tool-input-delta", id: "a", delta: '"hi"}' },
  { type: "tool-input-end", id: "b" },
  { type: "tool-call", toolCallId: "b", toolName: "fetch", input: '{"url":"x"}' },
  { type: "tool-input-end", id: "a" },
  { type: "tool-call", toolCallId: "a", toolName: "search", input: '{"q":"hi"}' },
  { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: "{}", providerExecuted: true },
  finishV3,
];

const EXPECTED: ModelEvent[] = [
  { type: "tool_call_start", id: "a", name: "search" },
  { type: "tool_call_start", id: "b", name: "fetch" },
  { type: "tool_call_delta", id: "a", argsDelta: '{"q":' },
  { type: "tool_call_delta", id: "b", argsDelta: '{"url":"x"}' },
  { type: "tool_call_delta", id: "a", argsDelta: '"hi"}' },
  { type: "tool_call", id: "b", name: "fetch", args: { url: "x" } },
  { type: "tool_call", id: "a", name: "search", args: { q: "hi" } },
];

const toolEvents = (events: ModelEvent[]) => events.filter((e) => e.type.startsWith("tool_call"));

describe("fromAiSdk: streamed tool input", () => {
  it("V3: interleaved calls by id, before their complete calls; provider-executed and unstarted ids do not stream", async () => {
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: partsStream(PARTS) }) });
    const { events, error } = await drain(fromAiSdk(model));
    expect(error).toBeUndefined();
    expect(toolEvents(events)).toEqual(EXPECTED);
  });

  it("V4: the same parts, the same events", async () => {
    const { events, error } = await drain(fromAiSdk(v4Model(PARTS as never)));
    expect(error).toBeUndefined();
    expect(toolEvents(events)).toEqual(EXPECTED);
  });

  it("V2: the same parts, the same events", async () => {
    const parts = [
      ...PARTS.slice(0, -1),
      { type: "finish", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, finishReason: "tool-calls" },
    ] as LanguageModelV2StreamPart[];
    const model: LanguageModelV2 = {
      specificationVersion: "v2",
      provider: "openai.chat",
      modelId: "m",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async () => ({ stream: partsStream(parts) }),
    };
    const { events, error } = await drain(fromAiSdk(model));
    expect(error).toBeUndefined();
    expect(toolEvents(events)).toEqual(EXPECTED);
  });

  it("a call that streams but never completes gets no tool_call; a start without a name or id is not streamed", async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: "tool-input-start", id: "", toolName: "f" },
      { type: "tool-input-start", id: "n", toolName: "" },
      { type: "tool-input-start", id: "cut", toolName: "f" },
      { type: "tool-input-delta", id: "cut", delta: '{"x":' },
      { ...finishV3, finishReason: { unified: "length", raw: "length" } },
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: partsStream(parts) }) });
    const { events } = await drain(fromAiSdk(model));
    expect(toolEvents(events)).toEqual([
      { type: "tool_call_start", id: "cut", name: "f" },
      { type: "tool_call_delta", id: "cut", argsDelta: '{"x":' },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("streamed input counts toward maxResponseBytes", async () => {
    const parts: LanguageModelV3StreamPart[] = [
      { type: "tool-input-start", id: "a", toolName: "f" },
      ...Array.from({ length: 20 }, () => ({ type: "tool-input-delta" as const, id: "a", delta: "x".repeat(10) })),
      finishV3,
    ];
    const model = new MockLanguageModelV3({ doStream: async () => ({ stream: partsStream(parts) }) });
    const { events, error } = await drain(fromAiSdk(model, { maxResponseBytes: 100 }));
    expect(error).toMatchObject({ errorType: "response_too_large" });
    expect(events.filter((e) => e.type === "tool_call_delta").length).toBeLessThan(10);
  });
});
