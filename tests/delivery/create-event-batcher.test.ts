import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { createEventBatcher, InvalidArgumentError, isImmediateEvent } from "@agentry/core";
import { IMMEDIATE_EVENT_TYPES } from "../../src/delivery/create-event-batcher.js";

type E = { type: string; n: number };
const chunk = (n: number): E => ({ type: "chunk", n });
const deciding = (n: number): E => ({ type: "llm_call_start", n });

function recorder(flushMs?: number) {
  const batches: E[][] = [];
  const batcher = createEventBatcher<E>({
    onFlush: (events) => batches.push(events),
    ...(flushMs !== undefined && { flushMs }),
  });
  return { batches, batcher };
}

describe("createEventBatcher", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("holds batched events for flushMs (default 100), then delivers them in one batch", () => {
    const { batches, batcher } = recorder();
    batcher.push(chunk(1));
    batcher.push(chunk(2));
    vi.advanceTimersByTime(60);
    batcher.push(chunk(3));
    vi.advanceTimersByTime(39);
    expect(batches).toEqual([]);
    expect(batcher.pending).toBe(3);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[chunk(1), chunk(2), chunk(3)]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("delivers an immediate event at once, after everything batched before it, in the same batch", () => {
    const { batches, batcher } = recorder();
    batcher.push(chunk(1));
    batcher.push(chunk(2));
    batcher.push(deciding(3));
    expect(batches).toEqual([[chunk(1), chunk(2), deciding(3)]]);
    expect(vi.getTimerCount()).toBe(0);
    batcher.push(deciding(4));
    expect(batches.at(-1)).toEqual([deciding(4)]);
  });

  it("keeps push order across immediate and batched events, whatever the timing (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant("push" as const), immediate: fc.boolean() }),
            fc.record({ kind: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 250 }) }),
          ),
          { maxLength: 60 },
        ),
        fc.integer({ min: 0, max: 200 }),
        (steps, flushMs) => {
          const { batches, batcher } = recorder(flushMs);
          const pushed: E[] = [];
          for (const step of steps) {
            if (step.kind === "wait") vi.advanceTimersByTime(step.ms);
            else {
              const event = step.immediate ? deciding(pushed.length) : chunk(pushed.length);
              pushed.push(event);
              batcher.push(event);
              // An immediate event is never left waiting.
              if (step.immediate) expect(batcher.pending).toBe(0);
            }
          }
          batcher.close();
          expect(batches.flat()).toEqual(pushed);
          expect(batches.every((batch) => batch.length > 0)).toBe(true);
          expect(vi.getTimerCount()).toBe(0);
        },
      ),
    );
  });

  it("close() flushes what is pending, clears the timer and ignores later pushes", () => {
    const { batches, batcher } = recorder();
    batcher.push(chunk(1));
    batcher.close();
    expect(batches).toEqual([[chunk(1)]]);
    expect(vi.getTimerCount()).toBe(0);
    batcher.push(chunk(2));
    batcher.push(deciding(3));
    vi.advanceTimersByTime(1_000);
    batcher.close();
    expect(batches).toEqual([[chunk(1)]]);
  });

  it("flush() delivers now; an empty flush delivers nothing", () => {
    const { batches, batcher } = recorder();
    batcher.flush();
    batcher.push(chunk(1));
    batcher.flush();
    vi.advanceTimersByTime(200);
    expect(batches).toEqual([[chunk(1)]]);
  });

  it("flushMs 0 delivers every event as it comes", () => {
    const { batches, batcher } = recorder(0);
    batcher.push(chunk(1));
    batcher.push(chunk(2));
    expect(batches).toEqual([[chunk(1)], [chunk(2)]]);
  });

  it("takes a custom immediate predicate", () => {
    const batches: E[][] = [];
    const batcher = createEventBatcher<E>({ onFlush: (events) => batches.push(events), immediate: (e) => e.n === 2 });
    batcher.push(deciding(1));
    batcher.push(chunk(2));
    expect(batches).toEqual([[deciding(1), chunk(2)]]);
  });

  it("hands a timer flush's exception to onError, and a direct flush's to the caller; the batch is not delivered twice", () => {
    const errors: unknown[] = [];
    let calls = 0;
    const batcher = createEventBatcher<E>({
      onFlush: () => {
        calls++;
        throw new Error("socket gone");
      },
      onError: (error) => errors.push(error),
    });
    batcher.push(chunk(1));
    vi.advanceTimersByTime(100);
    expect(errors).toHaveLength(1);
    batcher.push(chunk(2));
    expect(() => batcher.flush()).toThrow("socket gone");
    batcher.flush();
    expect(calls).toBe(2);
  });

  it("rejects bad options with a typed error", () => {
    for (const flushMs of [-1, Number.NaN, Infinity]) {
      expect(() => createEventBatcher({ onFlush: () => {}, flushMs })).toThrow(InvalidArgumentError);
    }
  });

  it("treats the API.md immediate list as immediate and text deltas as batched", () => {
    expect([...IMMEDIATE_EVENT_TYPES].sort()).toEqual([
      "approval_request",
      "budget_exceeded",
      "done",
      "error",
      "llm_call_start",
      "plan_ready",
      "question",
      "task_status",
      "tool_calls_preparing",
    ]);
    expect(isImmediateEvent({ type: "chunk" })).toBe(false);
    expect(isImmediateEvent({ type: "tool_call_update" })).toBe(false);
    expect(isImmediateEvent({ type: "question" })).toBe(true);
  });
});
