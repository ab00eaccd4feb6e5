import { SpanStatusCode } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import type { LoopEvent } from "@agentry/core";
import { createSpanRecorder, type TracedEvent } from "../../src/otel/create-span-recorder.js";
import { idOf, memoryTracer, parentOf } from "./helpers.js";

/** Event times are epoch milliseconds (the SDK reads smaller numbers as performance.now() offsets). */
const T = 1_700_000_000_000;
const at = (ms: number): [number, number] => [Math.floor((T + ms) / 1000), ((T + ms) % 1000) * 1e6];

function recorder() {
  const memory = memoryTracer();
  const all = memory.spans;
  const spans = createSpanRecorder({ tracer: memory.tracer, recordContent: false, maxContentLength: 100 });
  const emit = (runId: string, sessionId: string, ts: number, event: Record<string, unknown>) =>
    spans.record({
      depth: 0,
      parentId: null,
      runId,
      sessionId,
      agentId: "a",
      ts: T + ts,
      ...event,
    } as unknown as TracedEvent);
  const done = (status: string, extra: Record<string, unknown> = {}) => ({
    type: "done",
    result: {
      ...extra,
      status,
      text: "",
      messages: [],
      executionTree: { version: 1, nodes: [] },
      usage: { inputTokens: 0, outputTokens: 0, llmCalls: 1, toolCalls: 0 },
    },
  });
  return { ...memory, spans: all, recorder: spans, emit, done };
}

describe("span recorder", () => {
  it("takes span times from the events' ts", () => {
    const { emit, one, done } = recorder();
    emit("r1", "s1", 1_000, { type: "llm_call_start", iteration: 1 });
    emit("r1", "s1", 1_250, {
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: "hi" }] },
    });
    emit("r1", "s1", 1_300, done("complete"));
    const chat = one("chat");
    expect([chat.startTime, chat.endTime]).toEqual([at(1_000), at(1_250)]);
    expect([one("invoke_agent a").startTime, one("invoke_agent a").endTime]).toEqual([at(1_000), at(1_300)]);
  });

  it("reports finish reason length from the loop's max_output_tokens warning", () => {
    const { emit, one, done } = recorder();
    emit("r1", "s1", 1, { type: "llm_call_start", iteration: 1 });
    emit("r1", "s1", 2, { type: "warning", code: "max_output_tokens", message: "cut" });
    emit("r1", "s1", 3, { type: "message", message: { role: "assistant", content: [{ type: "text", text: '{"' }] } });
    emit("r1", "s1", 4, done("complete"));
    expect(one("chat").attributes["gen_ai.response.finish_reasons"]).toEqual(["length"]);
  });

  it("links a delegated turn that starts after the delegating call ended back to that call", () => {
    const { emit, one, done, spans } = recorder();
    emit("caller", "s1", 0, { type: "llm_call_start", iteration: 1 });
    emit("caller", "s1", 1, {
      type: "tool_call_update",
      toolCallId: "c1",
      name: "agents_message",
      status: "start",
      args: {},
    });
    emit("caller", "s1", 2, {
      type: "tool_call_update",
      toolCallId: "c1",
      name: "agents_message",
      status: "end",
      result: { mode: "async", status: "started", responseId: "callee", sessionId: "s2" },
    });
    emit("caller", "s1", 3, done("complete"));
    emit("callee", "s2", 4, { type: "llm_call_start", iteration: 1 });
    emit("callee", "s2", 5, done("complete"));
    const call = one("execute_tool agents_message");
    const callee = spans().find((span) => span.attributes["agentry.run.id"] === "callee")!;
    expect(callee.links.map((link) => link.context.spanId)).toEqual([idOf(call)]);
    expect(call.attributes).toMatchObject({
      "agentry.delegation.run_id": "callee",
      "agentry.delegation.session_id": "s2",
    });
  });

  it("traces the end of a call started in an earlier (suspended) run, backdated by its duration, under the resuming turn", () => {
    const { emit, spans, done } = recorder();
    emit("r2", "s1", 10_000, { type: "approval_resolved", requestId: "q", approved: true });
    emit("r2", "s1", 10_500, {
      type: "tool_call_update",
      toolCallId: "c9",
      name: "todo_delete",
      status: "end",
      result: "ok",
      durationMs: 400,
    });
    emit("r2", "s1", 11_000, done("complete"));
    const tool = spans().find((span) => span.name === "execute_tool todo_delete")!;
    const turn = spans().find((span) => span.name === "invoke_agent a")!;
    expect([tool.startTime, tool.endTime]).toEqual([at(10_100), at(10_500)]);
    expect(parentOf(tool)).toBe(idOf(turn));
    expect(turn.events.map((e) => e.name)).toEqual(["agentry.approval_resolved"]);
  });

  it("ends an open chat span at the level's next non-delta event, and error events set its status", () => {
    const { emit, spans, done } = recorder();
    emit("r", "s", 1, { type: "llm_call_start", iteration: 1 });
    emit("r", "s", 2, { type: "chunk", content: "x" });
    emit("r", "s", 3, { type: "error", message: "boom" });
    emit("r", "s", 4, done("error"));
    const chat = spans().find((span) => span.name === "chat")!;
    expect(chat.endTime).toEqual(at(3));
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "boom" });
  });

  it("a call whose partial answer is followed by its error: ERROR, error.type, no finish reason, ended at the error", () => {
    const { emit, one, done } = recorder();
    emit("r", "s", 1, { type: "llm_call_start", iteration: 1, model: "m-1", provider: "anthropic" });
    emit("r", "s", 2, { type: "chunk", content: "Let me", streamId: "x" });
    emit("r", "s", 3, { type: "message_stream_cancelled", streamId: "x", reason: "error" });
    emit("r", "s", 4, { type: "message", message: { role: "assistant", content: [{ type: "text", text: "Let me" }] } });
    emit("r", "s", 5, { type: "error", message: "Overloaded", code: "overloaded_error", provider: "anthropic" });
    emit("r", "s", 6, done("error"));
    const chat = one("chat m-1");
    expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "Overloaded" });
    expect(chat.attributes["error.type"]).toBe("overloaded_error");
    expect(chat.attributes["gen_ai.provider.name"]).toBe("anthropic");
    expect(chat.attributes).not.toHaveProperty(["gen_ai.response.finish_reasons"]);
    expect(chat.endTime).toEqual(at(5));
  });

  it("a failing hook after the model answered is the turn's error, not the model call's", () => {
    const { emit, one, done } = recorder();
    emit("r", "s", 1, { type: "llm_call_start", iteration: 1, model: "m-1", provider: "openai" });
    emit("r", "s", 2, {
      type: "message",
      message: { role: "assistant", content: [{ type: "tool_call", id: "t", name: "x", args: {} }] },
    });
    emit("r", "s", 3, { type: "error", message: "beforeToolCall hook failed", code: "hook_failed" });
    emit("r", "s", 4, done("error", { error: { message: "beforeToolCall hook failed", code: "hook_failed" } }));
    const chat = one("chat m-1");
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toEqual(["tool_calls"]);
    expect(one("invoke_agent a").attributes["error.type"]).toBe("hook_failed");
    expect(one("invoke_agent a").status.code).toBe(SpanStatusCode.ERROR);
  });

  it("names a chat span from its usage when no event or description named the model", () => {
    const { emit, one, done } = recorder();
    emit("r", "s", 1, { type: "llm_call_start", iteration: 1 });
    emit("r", "s", 2, { type: "usage", inputTokens: 3, outputTokens: 1, model: "late-model", reasoningTokens: 1 });
    emit("r", "s", 3, { type: "message", message: { role: "assistant", content: [{ type: "text", text: "hi" }] } });
    emit("r", "s", 4, done("complete"));
    const chat = one("chat late-model");
    expect(chat.attributes).toMatchObject({
      "gen_ai.request.model": "late-model",
      "gen_ai.usage.reasoning.output_tokens": 1,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(chat.endTime).toEqual(at(3));
  });

  it("ends every open span on endAll (a turn that never reached done)", () => {
    const { emit, spans, recorder: spansOf } = recorder();
    emit("r", "s", 1, { type: "llm_call_start", iteration: 1 });
    emit("r", "s", 2, { type: "tool_call_update", toolCallId: "t", name: "x", status: "start" });
    expect(spans()).toHaveLength(1); // the chat span ended when the tool started
    expect(spansOf.openTurns).toBe(1);
    spansOf.endAll();
    expect(
      spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(["chat", "execute_tool x", "invoke_agent a"]);
    expect(spansOf.openTurns).toBe(0);
  });
});

export type { LoopEvent };
