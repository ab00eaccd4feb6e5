import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LoopEvent } from "@agentry/core";
import { EventSink } from "../../src/loop/event-sink.js";

const event = (n: number): LoopEvent => ({
  type: "warning",
  code: "test",
  message: String(n),
  depth: 0,
  parentId: null,
});

type Op = { emit: boolean } | { take: true } | { close: true };

describe("EventSink", () => {
  it("hands each awaited event's acknowledgement over with that event, in any interleaving, and releases the rest on close", async () => {
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 4, arbitrary: fc.boolean().map((wait) => ({ emit: wait })) },
      { weight: 4, arbitrary: fc.constant({ take: true as const }) },
      { weight: 1, arbitrary: fc.constant({ close: true as const }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const sink = new EventSink();
        const acked = new Set<number>();
        const awaited = new Set<number>();
        const queued: number[] = [];
        let closed = false;
        let n = 0;
        for (const step of ops) {
          if ("emit" in step) {
            const id = n++;
            if (step.emit) {
              if (!closed) awaited.add(id);
              void sink.emitAndWait(event(id)).then(() => acked.add(id));
            } else sink.emit(event(id));
            if (!closed) queued.push(id);
          } else if ("take" in step) {
            const expected = queued.shift();
            // Asked only when an event is queued (or the sink closed).
            if (expected === undefined && !closed) continue;
            const taken = sink.take();
            expect(taken === undefined ? undefined : Number((taken.event as { message: string }).message)).toBe(
              expected,
            );
            // The acknowledgement comes with its own event only.
            expect(taken?.ack !== undefined).toBe(expected !== undefined && awaited.has(expected));
            if (taken?.ack) {
              taken.ack();
              awaited.delete(expected!);
              await Promise.resolve();
              expect(acked.has(expected!)).toBe(true);
            }
          } else {
            sink.close();
            closed = true;
            queued.length = 0;
            await Promise.resolve();
            for (const id of awaited) expect(acked.has(id)).toBe(true);
            awaited.clear();
          }
        }
        // Nothing acknowledged before its event was taken (or the sink closed).
        await Promise.resolve();
        for (const id of awaited) expect(acked.has(id)).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
