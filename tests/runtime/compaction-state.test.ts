import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HistoryRecord, Message } from "@agentry/core";
import { estimateTokens } from "../../src/context/estimate-tokens.js";
import { compactionMessage } from "../../src/runtime/records/compaction-state.js";
import { keepCallsTogether, readSessionState, SessionStateReader } from "../../src/runtime/records/session-state.js";

/** Random logs of root messages, turn starts and ends, compactions (cutting at any earlier seq, or at none) and resets. */
const logArb = fc
  .array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ kind: fc.constant("message" as const), text: fc.string({ maxLength: 20 }) }),
      },
      {
        weight: 2,
        arbitrary: fc.record({ kind: fc.constant("turn" as const), phase: fc.constantFrom("start", "end") }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("compaction" as const), keep: fc.option(fc.nat()) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("reset" as const) }) },
    ),
    { maxLength: 50 },
  )
  .map((specs) =>
    specs.map((spec, index): HistoryRecord => {
      const base = { id: `r${index}`, seq: index + 1, at: "2026-01-01T00:00:00.000Z", frame: null };
      switch (spec.kind) {
        case "message":
          return {
            ...base,
            kind: "message",
            message: {
              role: index % 2 ? "assistant" : "user",
              content: index % 2 ? [{ type: "text", text: spec.text }] : spec.text,
            } as Message,
          };
        case "turn":
          return { ...base, kind: "turn", runId: `run${index}`, phase: spec.phase };
        case "compaction":
          return {
            ...base,
            kind: "compaction",
            summary: `summary ${index}`,
            ...(spec.keep !== null && index > 0 && { keptFromSeq: (spec.keep % index) + 1 }),
            source: "model",
            tokensBefore: 0,
            tokensAfter: 0,
            summarizedMessages: 0,
          };
        case "reset":
          return { ...base, kind: "reset" };
      }
    }),
  );

/** The context as a compaction record defines it: the summary note, then the root messages at or after `keptFromSeq`. */
function expectedHistory(records: HistoryRecord[]): Message[] {
  let context: { seq: number; message: Message }[] = [];
  for (const record of records) {
    if (record.kind === "reset") context = [];
    else if (record.kind === "message") context.push({ seq: record.seq, message: record.message });
    else if (record.kind === "compaction") {
      const from = record.keptFromSeq;
      context = [
        // The note stands before everything it kept: no later compaction keeps it.
        { seq: 0, message: compactionMessage(record.summary) },
        ...context.filter((entry) => from !== undefined && entry.seq >= from),
      ];
    }
  }
  return context.map((entry) => entry.message);
}

describe("the session state after a compaction", () => {
  it("starts from the summary and the messages kept, read in pieces or in one go, with the token sum kept", () => {
    fc.assert(
      fc.property(logArb, fc.array(fc.nat(50), { maxLength: 6 }), (records, cuts) => {
        const whole = readSessionState(records);
        const expected = expectedHistory(records);
        expect(whole.history).toEqual(keepCallsTogether(expected));
        expect(whole.historyTokens).toBe(estimateTokens(expected));
        // Every turn start it lists points at the first message stored after it.
        for (const start of whole.turnStarts) {
          const after = records.filter((r) => r.seq > start.seq && r.kind === "message").length;
          expect(start.index).toBeLessThanOrEqual(whole.history.length);
          if (after === 0) expect(start.index).toBe(whole.history.length);
        }
        const reader = new SessionStateReader();
        let from = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          reader.apply(records.slice(Math.max(0, from - 2), cut)); // overlapping loads apply once
          from = Math.max(from, cut);
        }
        reader.apply(records.slice(Math.max(0, from - 2)));
        const pieces = reader.state();
        expect(pieces.history).toEqual(whole.history);
        expect(pieces.historyTokens).toBe(whole.historyTokens);
        expect(pieces.turnStarts).toEqual(whole.turnStarts);
      }),
      { numRuns: 300 },
    );
  });

  it("drops the turn starts a compaction summarized: a later compaction can only cut at a kept turn", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const records: HistoryRecord[] = [
      { id: "t1", seq: 1, at, frame: null, kind: "turn", runId: "a", phase: "start" },
      { id: "m1", seq: 2, at, frame: null, kind: "message", message: { role: "user", content: "one" } },
      { id: "t2", seq: 3, at, frame: null, kind: "turn", runId: "b", phase: "start" },
      { id: "m2", seq: 4, at, frame: null, kind: "message", message: { role: "user", content: "two" } },
      {
        id: "c",
        seq: 5,
        at,
        frame: null,
        kind: "compaction",
        summary: "one happened",
        keptFromSeq: 3,
        source: "host",
        tokensBefore: 10,
        tokensAfter: 8,
        summarizedMessages: 1,
      },
    ];
    const state = readSessionState(records);
    expect(state.history.map((m) => m.content)).toEqual([compactionMessage("one happened").content, "two"]);
    expect(state.turnStarts).toEqual([{ seq: 3, index: 1 }]);
  });
});
