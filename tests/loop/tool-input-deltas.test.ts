import { describe, expect, it } from "vitest";
import type { LoopEvent, ModelEvent, Provider } from "@agentry/core";
import { TOOL_INPUT_LIMITS } from "../../src/loop/call-model.js";
import { echo, ofType, run, unmatchedStarts } from "./helpers.js";

/** A provider that plays these responses, one per call, as they are (hostile ones included). */
function scripted(responses: ModelEvent[][]): Provider {
  let call = 0;
  return {
    id: "scripted",
    async *stream() {
      const events = responses[call++];
      if (!events) throw new Error("script exhausted");
      yield* events;
    },
  };
}

/** Each streamed call's deltas joined, by the id the events carry. */
function streamedText(events: LoopEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of ofType(events, "tool_input_delta")) out[e.toolCallId] = (out[e.toolCallId] ?? "") + e.delta;
  return out;
}

const finish = (reason: "stop" | "tool_calls" | "length" = "tool_calls"): ModelEvent => ({ type: "finish", reason });

describe("tool_input_delta events (streamed tool-call arguments)", () => {
  it("stream interleaved calls' arguments before the message and the calls' starts, under the ids the calls keep", async () => {
    const { events, result } = await run({
      tools: [echo],
      script: [
        {
          toolCalls: [
            { id: "c1", name: "echo", args: { text: "first call" } },
            { id: "c2", name: "echo", args: { text: "second" } },
          ],
          streamToolArgs: { pieces: 3, interleaved: true },
        },
        { text: "done" },
      ],
    });
    expect(result.status).toBe("complete");
    const deltas = ofType(events, "tool_input_delta");
    // The first event of each call opens it (empty delta), then pieces alternate between the calls.
    expect(deltas.slice(0, 3).map((e) => [e.toolCallId, e.name, e.delta])).toEqual([
      ["c1", "echo", ""],
      ["c2", "echo", ""],
      ["c1", "echo", '{"text"'],
    ]);
    expect(deltas[3]!.toolCallId).toBe("c2");
    expect(streamedText(events)).toEqual({ c1: '{"text":"first call"}', c2: '{"text":"second"}' });
    const lastDelta = events.lastIndexOf(deltas.at(-1)!);
    const message = events.findIndex((e) => e.type === "message" && e.message.role === "assistant");
    const starts = ofType(events, "tool_call_update").filter((e) => e.status === "start");
    expect(lastDelta).toBeLessThan(message);
    expect(starts.map((e) => e.toolCallId)).toEqual(["c1", "c2"]);
    expect(deltas.every((e) => e.depth === 0 && e.parentId === null)).toBe(true);
  });

  it("carry the rewritten id of a call whose id was used before in the turn, or was empty", async () => {
    const { events } = await run({
      tools: [echo],
      script: [
        { toolCalls: [{ id: "dup", name: "echo", args: { text: "a" } }], streamToolArgs: true },
        { toolCalls: [{ id: "dup", name: "echo", args: { text: "b" } }], streamToolArgs: true },
        { toolCalls: [{ id: "", name: "echo", args: { text: "c" } }], streamToolArgs: true },
        { text: "done" },
      ],
    });
    const starts = ofType(events, "tool_call_update").filter((e) => e.status === "start");
    expect(starts.map((e) => e.toolCallId)).toEqual(["dup", "dup_2", "call_3"]);
    expect(Object.keys(streamedText(events))).toEqual(["dup", "dup_2", "call_3"]);
    for (const start of starts) expect(JSON.parse(streamedText(events)[start.toolCallId]!)).toEqual(start.args);
  });

  it("a call that streams but never completes gets no start, and the turn goes on", async () => {
    const provider = scripted([
      [
        { type: "tool_call_start", id: "lost", name: "echo" },
        { type: "tool_call_delta", id: "lost", argsDelta: '{"text":"never' },
        { type: "tool_call_start", id: "kept", name: "echo" },
        { type: "tool_call_delta", id: "kept", argsDelta: '{"text":"ok"}' },
        { type: "tool_call", id: "kept", name: "echo", args: { text: "ok" } },
        finish(),
      ],
      [{ type: "text_delta", text: "done" }, finish("stop")],
    ]);
    const { events, result } = await run({ tools: [echo], provider });
    expect(result.status).toBe("complete");
    expect(Object.keys(streamedText(events))).toEqual(["lost", "kept"]);
    const updates = ofType(events, "tool_call_update");
    expect(updates.map((e) => `${e.status} ${e.toolCallId}`)).toEqual(["start kept", "end kept"]);
    expect(unmatchedStarts(events)).toEqual([]);
  });

  it("a response cut off by the token limit streamed its calls, and none starts", async () => {
    const provider = scripted([
      [
        { type: "tool_call_start", id: "a", name: "echo" },
        { type: "tool_call_delta", id: "a", argsDelta: '{"text":"x"}' },
        { type: "tool_call", id: "a", name: "echo", args: { text: "x" } },
        finish("length"),
      ],
    ]);
    const { events } = await run({ tools: [echo], provider });
    expect(ofType(events, "tool_input_delta")).toHaveLength(2);
    expect(ofType(events, "tool_call_update")).toEqual([]);
  });

  it("ignore a delta of an id that never started, a second start of an open id, and non-string fields", async () => {
    const provider = scripted([
      [
        { type: "tool_call_delta", id: "ghost", argsDelta: "{}" },
        { type: "tool_call_start", id: "a", name: "echo" },
        { type: "tool_call_start", id: "a", name: "other" },
        { type: "tool_call_start", id: 7, name: "echo" } as unknown as ModelEvent,
        { type: "tool_call_start", id: "b", name: { evil: true } } as unknown as ModelEvent,
        { type: "tool_call_delta", id: "a", argsDelta: 42 } as unknown as ModelEvent,
        { type: "tool_call_delta", id: "a", argsDelta: '{"text":"x"}' },
        { type: "tool_call", id: "a", name: "echo", args: { text: "x" } },
        { type: "tool_call_delta", id: "a", argsDelta: "late" },
        finish(),
      ],
      [{ type: "text_delta", text: "done" }, finish("stop")],
    ]);
    const { events, result } = await run({ tools: [echo], provider });
    expect(result.status).toBe("complete");
    expect(ofType(events, "tool_input_delta").map((e) => [e.toolCallId, e.name, e.delta])).toEqual([
      ["a", "echo", ""],
      ["a", "echo", '{"text":"x"}'],
    ]);
  });

  it("forward at most callChars characters of a call (later deltas dropped) and stream at most callsPerResponse calls", async () => {
    const { callChars, callsPerResponse } = TOOL_INPUT_LIMITS;
    const many = callsPerResponse + 5;
    const response: ModelEvent[] = [
      { type: "tool_call_start", id: "big", name: "echo" },
      { type: "tool_call_delta", id: "big", argsDelta: "x".repeat(callChars - 1) },
      { type: "tool_call_delta", id: "big", argsDelta: "yy" },
      { type: "tool_call_delta", id: "big", argsDelta: "z" },
    ];
    for (let i = 0; i < many; i++) {
      response.push({ type: "tool_call_start", id: `s${i}`, name: "echo" });
      response.push({ type: "tool_call_delta", id: `s${i}`, argsDelta: "{}" });
    }
    response.push(finish("stop"));
    const { events } = await run({ tools: [echo], provider: scripted([response]) });
    const text = streamedText(events);
    expect(text.big).toHaveLength(callChars - 1);
    expect(Object.keys(text)).toHaveLength(callsPerResponse);
    expect(text[`s${callsPerResponse - 2}`]).toBe("{}");
    expect(text[`s${callsPerResponse - 1}`]).toBeUndefined();
  });
});
