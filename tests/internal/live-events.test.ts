import { describe, expect, it } from "vitest";
import type { RuntimeEvent } from "@agentry/core";
import { MAX_STORE_SIGNAL_BYTES } from "../../src/internal/store-signal.js";
import { LIVE_EVENT_TOPIC, TRUNCATION_MARKER, liveEventSignals, liveEventsOf } from "../../src/internal/live-events.js";
import { checkStoreSignal, utf8Length } from "../../src/internal/store-signal.js";

const base = { sessionId: "s1", agentId: "a", runId: "r1", ts: 1, depth: 0, parentId: null };
const chunk = (seq: number, content: string, sessionId = "s1"): RuntimeEvent => ({
  ...base,
  sessionId,
  seq,
  type: "chunk",
  content,
});

describe("live event signals", () => {
  it("pack a session's events in order, as many per signal as fit, every signal within the limit", () => {
    const events = Array.from({ length: 300 }, (_, i) => chunk(i + 1, `word ${i} ünïcødé ✓ `.repeat(3)));
    const signals = liveEventSignals("origin-1", events);
    expect(signals.length).toBeGreaterThan(1);
    expect(signals.length).toBeLessThan(30);
    for (const signal of signals) {
      expect(signal.topic).toBe(LIVE_EVENT_TOPIC);
      // The store's own check passes: no signal over MAX_STORE_SIGNAL_BYTES.
      expect(() => checkStoreSignal("test", signal)).not.toThrow();
    }
    const received = signals.flatMap((signal) => liveEventsOf(signal)!.e);
    expect(received).toEqual(events);
  });

  it("keep each session's events apart (one session per signal), each in order", () => {
    const events = [chunk(1, "a", "s1"), chunk(2, "b", "s2"), chunk(3, "c", "s1")];
    const signals = liveEventSignals("o", events);
    expect(signals.map((signal) => [signal.key, liveEventsOf(signal)!.e.map((e) => e.seq)])).toEqual([
      ["s1", [1, 3]],
      ["s2", [2]],
    ]);
  });

  it("cut an event too big for a signal: long strings end in the marker, the identity and the shape stay", () => {
    const big: RuntimeEvent = {
      ...base,
      seq: 7,
      type: "tool_call_update",
      toolCallId: "c1",
      name: "read_file",
      status: "end",
      result: { text: "é".repeat(50_000), lines: ["x".repeat(10_000), "short"] },
    };
    const [signal] = liveEventSignals("o", [big]);
    expect(utf8Length(JSON.stringify(signal))).toBeLessThanOrEqual(MAX_STORE_SIGNAL_BYTES);
    const [event] = liveEventsOf(signal!)!.e as (RuntimeEvent & { result: { text: string; lines: string[] } })[];
    expect(event).toMatchObject({
      type: "tool_call_update",
      seq: 7,
      toolCallId: "c1",
      name: "read_file",
      status: "end",
    });
    expect(event!.result.text.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(event!.result.lines).toHaveLength(2);
    expect(event!.result.lines[1]).toBe("short");
  });

  it("cut arrays and objects too when strings alone cannot make an event fit", () => {
    const wide = {
      ...base,
      seq: 8,
      type: "tool_call_update",
      toolCallId: "c1",
      name: "list",
      status: "end",
      result: Array.from({ length: 5_000 }, (_, i) => i),
    } as RuntimeEvent;
    const [signal] = liveEventSignals("o", [wide]);
    const [event] = liveEventsOf(signal!)!.e as (RuntimeEvent & { result: unknown[] })[];
    expect(event!.result.at(-1)).toBe(TRUNCATION_MARKER);
    expect(event!.result.length).toBeLessThan(5_000);
  });

  it("leave out an event that is not JSON", () => {
    const bad = { ...chunk(1, "x"), content: 1n } as unknown as RuntimeEvent;
    expect(liveEventSignals("o", [bad, chunk(2, "y")]).flatMap((signal) => liveEventsOf(signal)!.e)).toEqual([
      chunk(2, "y"),
    ]);
  });

  it("read hostile signals as nothing: no sender, not an array, events of another session or without a seq", () => {
    expect(liveEventsOf({ topic: "event", key: "s1", data: null })).toBeUndefined();
    expect(liveEventsOf({ topic: "event", key: "s1", data: { o: 1, e: [] } })).toBeUndefined();
    expect(liveEventsOf({ topic: "event", key: "s1", data: { o: "x", e: "no" } })).toBeUndefined();
    const data = { o: "x", e: [chunk(1, "ok"), chunk(2, "other", "s2"), { ...chunk(3, "n"), seq: "3" }, 5, null] };
    expect(liveEventsOf({ topic: "event", key: "s1", data: data as never })!.e).toEqual([chunk(1, "ok")]);
  });
});
