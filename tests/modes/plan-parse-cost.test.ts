import { describe, expect, it } from "vitest";
import { readPlan } from "../../src/modes/parse-plan.js";
import { fencedBlocks, findJsonObject, type ScanMeter } from "../../src/modes/plan-text.js";
import { MAX_FORMAT_TEXT_CHARS } from "../../src/modes/plan-format.js";

/**
 * The plan parser's cost is counted, not timed: a meter counts the characters its scanners visit.
 * Each crafted text targets a shape a backtracking pattern would re-scan (fence openers that never
 * close, a heading or label line of blanks that ends in a character `.` does not match, unclosed
 * emphasis, braces); the count must stay within a constant factor of the length, and quadrupling
 * the length must not multiply it by more than about four.
 */
const crafted: Record<string, (chars: number) => string> = {
  "fence openers that never close": (n) => "```\nx".repeat(n / 5),
  "fence openers with info words": (n) => "```json\n{".repeat(n / 9),
  "heading of blanks ending in U+2028": (n) => "# a" + " ".repeat(n - 5) + "b\u2028",
  "goal label of blanks ending in U+2028": (n) => "Goal:" + " ".repeat(n - 6) + "\u2028",
  "step heading of blanks": (n) => "### Step 1" + " ".repeat(n - 12) + "\u2028",
  "unclosed emphasis": (n) => "Goal: x\n1. **" + "a".repeat(n - 14),
  "dash-free long step": (n) => "Goal: x\n1. " + "a ".repeat((n - 11) / 2),
  braces: (n) => "{".repeat(n),
  "prose then braces": (n) => "Plan: " + "{ ".repeat((n - 6) / 2),
  "labels on every line": (n) => "**Risks:**\n".repeat(n / 11),
  "numbered lines": (n) => "Goal: x\n" + "1. a\n".repeat((n - 8) / 5),
  "nested bullets": (n) => "Goal: x\n1. a\n" + "  - b\n".repeat((n - 13) / 6),
};

function cost(text: string): number {
  const meter: ScanMeter = { steps: 0 };
  readPlan(text, meter);
  return meter.steps;
}

describe("parsePlan cost (counted, no timing)", () => {
  for (const [name, make] of Object.entries(crafted)) {
    it(`is linear on ${name}`, () => {
      const quarter = make(MAX_FORMAT_TEXT_CHARS / 4);
      const full = make(MAX_FORMAT_TEXT_CHARS);
      expect(full.length).toBeLessThanOrEqual(MAX_FORMAT_TEXT_CHARS);
      const small = cost(quarter);
      const large = cost(full);
      expect(large).toBeGreaterThan(0);
      expect(large).toBeLessThanOrEqual(12 * full.length);
      expect(large / small).toBeLessThan(4.5);
    });
  }

  it("rejects a text over the limit before scanning it", () => {
    const meter: ScanMeter = { steps: 0 };
    const parsed = readPlan("```\nx".repeat(200_000), meter);
    expect(parsed.ok).toBe(false);
    expect(meter.steps).toBe(0);
  });

  it("finds fenced blocks in a million characters of unclosed openers in linear steps, and finds none", () => {
    const text = "```\nx".repeat(200_000);
    const meter: ScanMeter = { steps: 0 };
    expect(fencedBlocks(text, meter)).toEqual([]);
    expect(meter.steps).toBeLessThanOrEqual(2 * text.length);
    const jsonMeter: ScanMeter = { steps: 0 };
    expect(findJsonObject(text, jsonMeter)).toBeUndefined();
    expect(jsonMeter.steps).toBeLessThanOrEqual(5 * text.length);
  });

  it("still reads what the old fence pattern read: one block per closed fence, CRLF or LF", () => {
    expect(fencedBlocks('a\n```json\n{"x":1}\n```\nb\n```\r\n{}\r\n  ```')).toEqual(['{"x":1}', "{}"]);
    expect(fencedBlocks("```\nnever closed")).toEqual([]);
    expect(fencedBlocks("```\n```")).toEqual([""]);
  });
});
