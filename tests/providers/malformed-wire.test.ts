import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProviderError, type ModelEvent } from "@agentry/core";
import {
  createClaudeOutputParser,
  createCodexOutputParser,
  createJsonlOutputParser,
  createPiOutputParser,
  type CliOutputEvent,
} from "@agentry/core/node";
import { createAnthropicStreamReader } from "../../src/providers/anthropic/create-anthropic-stream-reader.js";
import { createOpenAIStreamReader } from "../../src/providers/openai/create-openai-stream-reader.js";

// Wire data with the right field names and event types but any values: what a buggy proxy or a
// hostile server can send. The readers must ignore what does not fit or fail with a ProviderError,
// never crash with a TypeError, and never emit a malformed event.
const KEYS = [
  "type",
  "index",
  "delta",
  "content",
  "text",
  "thinking",
  "signature",
  "partial_json",
  "choices",
  "finish_reason",
  "usage",
  "prompt_tokens",
  "completion_tokens",
  "total_tokens",
  "prompt_tokens_details",
  "cached_tokens",
  "tool_calls",
  "id",
  "function",
  "name",
  "arguments",
  "reasoning",
  "reasoning_content",
  "refusal",
  "x_groq",
  "error",
  "message",
  "content_block",
  "input",
  "data",
  "stop_reason",
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "event",
  "result",
  "is_error",
  "subtype",
  "item",
  "item_type",
  "assistantMessageEvent",
  "role",
  "toolName",
  "stopReason",
  "errorMessage",
  "cacheRead",
  "cacheWrite",
  "output",
  "input",
  "cached_input_tokens",
  "code",
  "details",
  "metadata",
  "raw",
  "status_code",
];
const TYPES = [
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "error",
  "ping",
  "text",
  "thinking",
  "tool_use",
  "redacted_thinking",
  "text_delta",
  "thinking_delta",
  "signature_delta",
  "input_json_delta",
  "stream_event",
  "assistant",
  "result",
  "item.completed",
  "turn.completed",
  "turn.failed",
  "agent_message",
  "reasoning",
  "command_execution",
  "message_update",
  "message_end",
  "tool_execution_start",
  "stop",
  "length",
  "tool_calls",
  "end_turn",
  "max_tokens",
];
const leaf = fc.oneof(
  fc.constantFrom(...TYPES),
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -3, max: 3 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const { wire } = fc.letrec<{ wire: unknown; object: Record<string, unknown>; array: unknown[] }>((tie) => ({
  wire: fc.oneof({ depthSize: "small" }, leaf, tie("object"), tie("array")),
  object: fc.dictionary(fc.constantFrom(...KEYS), tie("wire"), { maxKeys: 6 }),
  array: fc.array(tie("wire"), { maxLength: 3 }),
}));
const objects = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), wire, { maxKeys: 6 }) },
    { weight: 1, arbitrary: wire },
  ),
  {
    minLength: 1,
    maxLength: 8,
  },
);

const count = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0;

function expectWellFormed(event: ModelEvent): void {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
      expect(typeof event.text).toBe("string");
      if (event.type === "thinking_delta" && event.signature !== undefined)
        expect(typeof event.signature).toBe("string");
      break;
    case "tool_call":
      expect(typeof event.id).toBe("string");
      expect(typeof event.name).toBe("string");
      break;
    case "usage":
      expect(count(event.inputTokens) && count(event.outputTokens)).toBe(true);
      if (event.cachedInputTokens !== undefined) expect(count(event.cachedInputTokens)).toBe(true);
      if (event.cacheWriteInputTokens !== undefined) expect(count(event.cacheWriteInputTokens)).toBe(true);
      break;
    case "finish":
      expect(typeof event.reason).toBe("string");
      break;
  }
}

/** Runs `step`; a ProviderError is an accepted outcome (returns false: stop feeding), anything else thrown fails the test. */
function tolerate(step: () => ModelEvent[]): boolean {
  try {
    for (const event of step()) expectWellFormed(event);
    return true;
  } catch (error) {
    if (!ProviderError.isInstance(error)) throw error;
    return false;
  }
}

describe("readers on malformed wire data (property)", () => {
  it("the OpenAI reader ignores or rejects with a ProviderError, never a TypeError", () => {
    fc.assert(
      fc.property(objects, fc.option(fc.constantFrom(...TYPES), { nil: undefined }), (payloads, event) => {
        const reader = createOpenAIStreamReader({ provider: "p", generateId: () => "gen" });
        for (const payload of payloads)
          if (!tolerate(() => reader.push({ event, data: JSON.stringify(payload) }))) return;
        tolerate(() => reader.end());
      }),
      { numRuns: 500 },
    );
  });

  it("the Anthropic reader ignores or rejects with a ProviderError, never a TypeError", () => {
    fc.assert(
      fc.property(objects, fc.option(fc.constantFrom(...TYPES), { nil: undefined }), (payloads, event) => {
        const reader = createAnthropicStreamReader({ provider: "p" });
        for (const payload of payloads)
          if (!tolerate(() => reader.push({ event, data: JSON.stringify(payload) }))) return;
        tolerate(() => reader.end());
      }),
      { numRuns: 500 },
    );
  });

  it("the CLI output parsers never throw and emit only well-formed events", () => {
    const parsers = [createClaudeOutputParser, createCodexOutputParser, createPiOutputParser, createJsonlOutputParser];
    fc.assert(
      fc.property(objects, fc.constantFrom(...parsers), (payloads, make) => {
        const parser = make();
        const events: CliOutputEvent[] = payloads
          .flatMap((payload) => parser.line(JSON.stringify(payload) ?? ""))
          .concat(parser.end?.() ?? []);
        for (const event of events) {
          if (event.type === "text_delta" || event.type === "thinking_delta") expect(typeof event.text).toBe("string");
          else if (event.type === "tool_use")
            expect(event.name === undefined || typeof event.name === "string").toBe(true);
          else if (event.type === "error") expect(typeof event.message).toBe("string");
          else {
            expect(count(event.inputTokens) && count(event.outputTokens)).toBe(true);
            if (event.cachedInputTokens !== undefined) expect(count(event.cachedInputTokens)).toBe(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("readers on specific malformed chunks", () => {
  const openaiPush = (...payloads: unknown[]) => {
    const reader = createOpenAIStreamReader({ provider: "p", generateId: () => "gen" });
    const events = payloads.flatMap((payload) => reader.push({ event: undefined, data: JSON.stringify(payload) }));
    return [...events, ...reader.end()];
  };

  it("OpenAI: skips null choices and non-object deltas, keeps what is well-typed", () => {
    const events = openaiPush(
      { choices: [null, { index: 0, delta: "x" }, { index: 0, delta: { content: 5, refusal: { a: 1 } } }] },
      { choices: [{ index: 0, delta: { content: "ok", tool_calls: [null, 3, { index: 0, id: 7, function: "f" }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    );
    expect(events.filter((event) => event.type === "text_delta")).toEqual([{ type: "text_delta", text: "ok" }]);
    expect(events.at(-1)).toMatchObject({ type: "finish" });
  });

  it("OpenAI: token counts of the wrong type count as absent", () => {
    const events = openaiPush(
      { choices: [{ index: 0, delta: { content: "a" }, finish_reason: "stop" }] },
      {
        choices: [],
        usage: {
          prompt_tokens: "12",
          completion_tokens: 3,
          total_tokens: null,
          prompt_tokens_details: { cached_tokens: -1 },
        },
      },
    );
    expect(events.find((event) => event.type === "usage")).toEqual({ type: "usage", inputTokens: 0, outputTokens: 3 });
  });

  it("Anthropic: a non-object data line is ignored for block events, and ends the stream by its event name", () => {
    const reader = createAnthropicStreamReader({ provider: "p" });
    expect(reader.push({ event: "content_block_start", data: "null" })).toEqual([]);
    expect(reader.push({ event: "content_block_delta", data: "[1]" })).toEqual([]);
    expect(reader.push({ event: "message_stop", data: "7" })).toEqual([]);
    expect(reader.end()).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it("Anthropic: a tool_use block with a numeric id and name gives strings, never other types", () => {
    const reader = createAnthropicStreamReader({ provider: "p" });
    reader.push({
      event: undefined,
      data: JSON.stringify({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: 5, name: ["f"] },
      }),
    });
    const events = reader.push({ event: undefined, data: JSON.stringify({ type: "content_block_stop", index: 0 }) });
    expect(events).toEqual([{ type: "tool_call", id: "", name: "", args: {} }]);
  });

  it("Claude CLI: usage fields that are not numbers count as 0", () => {
    const parser = createClaudeOutputParser();
    const events = parser.line(
      JSON.stringify({
        type: "result",
        result: "done",
        usage: { input_tokens: "9", output_tokens: 2, cache_read_input_tokens: {} },
      }),
    );
    expect(events).toContainEqual({ type: "usage", inputTokens: 0, outputTokens: 2, cachedInputTokens: 0 });
  });
});
