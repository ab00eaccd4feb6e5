import { describe, expect, it } from "vitest";
import { ProviderError, type LoopEvent } from "@agentry/core";
import { echo, run } from "./helpers.js";

const lifecycle = (events: LoopEvent[]) =>
  events.flatMap((e) =>
    e.type === "message_stream_started" || e.type === "message_stream_completed"
      ? [`${e.type}:${e.streamId}`]
      : e.type === "message_stream_cancelled"
        ? [`${e.type}:${e.streamId}:${e.reason}`]
        : e.type === "chunk" && e.done !== true
          ? [`chunk:${e.streamId}`]
          : [],
  );

describe("message stream lifecycle events (seed 004)", () => {
  it("brackets every streamed message: started, chunks with its streamId, then completed or cancelled", async () => {
    const { events } = await run({
      tools: [echo],
      script: [
        { chunks: ["Let me ", "check."], toolCalls: [{ name: "echo", args: { text: "x" } }] },
        { chunks: ["All ", "done."] },
      ],
    });
    const seen = lifecycle(events);
    const ids = [...new Set(events.flatMap((e) => (e.type === "message_stream_started" ? [e.streamId] : [])))];
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
    expect(seen).toEqual([
      `message_stream_started:${ids[0]}`,
      `chunk:${ids[0]}`,
      `chunk:${ids[0]}`,
      `message_stream_cancelled:${ids[0]}:tool_calls`,
      `message_stream_started:${ids[1]}`,
      `chunk:${ids[1]}`,
      `chunk:${ids[1]}`,
      `message_stream_completed:${ids[1]}`,
    ]);
  });

  it("cancels with a reason on a provider error, and opens no stream for a text-less response", async () => {
    const { events } = await run({
      tools: [echo],
      script: [
        { toolCalls: [{ name: "echo", args: { text: "x" } }] },
        { chunks: ["par"], error: new ProviderError("boom", { status: 500, retryable: false, provider: "fake" }) },
      ],
    });
    const seen = lifecycle(events);
    expect(seen).toHaveLength(3);
    expect(seen[2]).toMatch(/^message_stream_cancelled:stream_[0-9a-f]{8}_1:error$/);
  });

  it("ids do not repeat across turns", async () => {
    const first = await run({ script: [{ text: "a" }] });
    const second = await run({ script: [{ text: "b" }] });
    const idOf = (events: LoopEvent[]) => events.find((e) => e.type === "message_stream_started");
    expect(idOf(first.events)).toBeDefined();
    expect(idOf(first.events)).not.toEqual(idOf(second.events));
  });
});
