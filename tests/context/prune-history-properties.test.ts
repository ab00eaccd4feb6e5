import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { type Message, type UserMessage } from "@agentry/core";
import { estimateTokens } from "../../src/context/estimate-tokens.js";
import { pruneHistory } from "../../src/context/prune-history.js";
import { pairingProblems, text } from "./helpers.js";

interface CallSpec {
  name: string;
  query: string;
  result: string | { rows: string[] };
}
interface TurnSpec {
  request: UserMessage;
  steps: CallSpec[][];
  final: string | null;
}

const filler = fc.nat({ max: 1_200 }).map((n) => text(n));
const requestArb: fc.Arbitrary<UserMessage> = fc.oneof(
  filler.map((content) => ({ role: "user" as const, content })),
  fc.tuple(filler, fc.nat({ max: 3 }), fc.nat({ max: 20_000 })).map(([words, images, size]) => ({
    role: "user" as const,
    content: [
      { type: "text" as const, text: words },
      ...Array.from({ length: images }, () => ({
        type: "image" as const,
        mediaType: "image/png",
        data: text(size, "A"),
      })),
    ],
  })),
);
const callArb: fc.Arbitrary<CallSpec> = fc.record({
  name: fc.constantFrom("read_file", "search", "run_subtask"),
  query: fc.string({ maxLength: 40 }),
  result: fc.oneof(
    filler,
    fc.array(fc.string({ maxLength: 60 }), { maxLength: 5 }).map((rows) => ({ rows })),
  ),
});
const stepsArb = fc.array(fc.array(callArb, { minLength: 1, maxLength: 3 }), { maxLength: 3, size: "max" });
const turnArb: fc.Arbitrary<TurnSpec> = fc.record({ request: requestArb, steps: stepsArb, final: fc.option(filler) });

/** A valid history: optional exchanges before the first user message, then turns. */
const leadArb: fc.Arbitrary<CallSpec[][]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<CallSpec[][]>([]) },
  { weight: 1, arbitrary: stepsArb },
);
const historyArb = fc
  .record({ lead: leadArb, turns: fc.array(turnArb, { minLength: 1, maxLength: 6, size: "max" }) })
  .map(({ lead, turns }) => {
    let next = 0;
    const messages: Message[] = [];
    const addSteps = (steps: readonly CallSpec[][]): void => {
      for (const calls of steps) {
        const ids = calls.map(() => `call_${next++}`);
        messages.push({
          role: "assistant",
          content: calls.map((c, i) => ({ type: "tool_call", id: ids[i]!, name: c.name, args: { query: c.query } })),
        });
        messages.push({
          role: "tool",
          content: calls.map((c, i) => ({ type: "tool_result", toolCallId: ids[i]!, name: c.name, result: c.result })),
        });
      }
    };
    addSteps(lead);
    for (const turn of turns) {
      messages.push(turn.request);
      addSteps(turn.steps);
      if (turn.final !== null) messages.push({ role: "assistant", content: [{ type: "text", text: turn.final }] });
    }
    return messages;
  });

const caseArb = fc.record({
  history: historyArb,
  /** Where the budget falls: below 0 is under the minimum, 1 is the whole history (integers: fc.double crowds near 0). */
  fraction: fc.integer({ min: -20, max: 110 }).map((percent) => percent / 100),
  reserveTokens: fc.nat({ max: 300 }),
  system: fc.option(fc.string({ maxLength: 400 }), { nil: undefined }),
});

/** A budget between the minimum (the latest user message on, with the system prompt) and the whole history. */
function budgetAt(history: readonly Message[], system: string | undefined, fraction: number): number {
  const minimum = estimateTokens(history.slice(history.findLastIndex((m) => m.role === "user")), system);
  return Math.floor(minimum + (estimateTokens(history, system) - minimum) * fraction);
}

/** Positions of `output`'s messages in `input`, by identity, or null when not an ordered subsequence. */
function positions(input: readonly Message[], output: readonly Message[]): number[] | null {
  const found: number[] = [];
  let from = 0;
  for (const message of output) {
    const at = input.indexOf(message, from);
    if (at < 0) return null;
    found.push(at);
    from = at + 1;
  }
  return found;
}

describe("pruneHistory over random histories", () => {
  it("keeps pairs, the latest request and its tail, order, and the budget", () => {
    fc.assert(
      fc.property(caseArb, ({ history, fraction, reserveTokens, system }) => {
        const total = estimateTokens(history, system);
        const maxTokens = budgetAt(history, system, fraction) + reserveTokens;
        const budget = maxTokens - reserveTokens;
        const result = pruneHistory(history, { maxTokens, reserveTokens, system });
        const out = result.messages;

        expect(pairingProblems(out)).toEqual([]);

        const latest = history.findLastIndex((m) => m.role === "user");
        const minimum = history.slice(latest);
        expect(out.slice(out.length - minimum.length)).toEqual(minimum);
        expect(positions(history, out)?.slice(-minimum.length)).toEqual(minimum.map((_, i) => latest + i));

        expect(positions(history, out)).not.toBeNull();
        if (history[0]?.role === "user") expect(out[0]?.role).toBe("user");

        expect(result.estimatedTokens).toBe(estimateTokens(out, system));
        expect(result.fits).toBe(result.estimatedTokens <= budget);
        if (result.fits) expect(result.estimatedTokens).toBeLessThanOrEqual(maxTokens);
        // Falls short only when even the minimum cannot fit.
        expect(result.fits).toBe(estimateTokens(minimum, system) <= budget || total <= budget);

        expect(result.dropped).toBe(history.length - out.length);
        expect(result.droppedTokens).toBe(total - result.estimatedTokens);
        if (total <= budget) expect(out).toBe(history);
        else if (result.dropped === 0) expect(out).toBe(history);
      }),
      { numRuns: 400 },
    );
  });

  it("a larger budget keeps everything a smaller one keeps", () => {
    fc.assert(
      fc.property(
        caseArb,
        fc.integer({ min: 0, max: 100 }).map((percent) => percent / 100),
        ({ history, fraction, system }, shrink) => {
          const larger = Math.max(0, budgetAt(history, system, fraction));
          const smaller = Math.floor(larger * shrink);
          const keptLarger = new Set(pruneHistory(history, { maxTokens: larger, system }).messages);
          const keptSmaller = pruneHistory(history, { maxTokens: smaller, system }).messages;
          expect(keptSmaller.filter((m) => !keptLarger.has(m))).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
