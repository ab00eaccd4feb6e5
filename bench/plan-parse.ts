/**
 * Plan parse benchmark: time to read crafted model text of 200,000 characters (the most
 * `parsePlan` accepts) and 2,000,000 characters (past the limit: the scanners alone, as
 * `parsePlan` runs them), next to the fence regex the parser used before (`/```[a-zA-Z]*[ \t]*
 * \r?\n([\s\S]*?)\r?\n[ \t]*```/g`, quadratic on unclosed fence openers). The work should be
 * linear: 2M within about 10x of 200k.
 *
 *   npx tsx bench/plan-parse.ts [--rounds=3] [--old-2m]
 *
 * The old regex is timed at 200k only unless `--old-2m` is given (at 2M it runs for minutes).
 * Not a test: it prints a table and asserts nothing.
 */
import { readPlan } from "../src/modes/parse-plan.ts";
import { readMarkdownPlan } from "../src/modes/parse-markdown-plan.ts";
import { findJsonObject, type ScanMeter } from "../src/modes/plan-text.ts";

const option = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback;
const ROUNDS = Number(option("rounds", "3"));
const OLD_2M = process.argv.includes("--old-2m");
const OLD_FENCE = /```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g;

const shapes: Record<string, (chars: number) => string> = {
  "unclosed fence openers": (n) => "```\nx".repeat(n / 5),
  "heading of blanks + U+2028": (n) => "# a" + " ".repeat(n - 5) + "b\u2028",
  "goal label of blanks + U+2028": (n) => "Goal:" + " ".repeat(n - 6) + "\u2028",
  "prose then braces": (n) => "Plan: " + "{ ".repeat((n - 6) / 2),
  "numbered lines": (n) => "Goal: x\n" + "1. a\n".repeat((n - 8) / 5),
  "plan: steps with reasons and details": (n) =>
    "Goal: ship\n\n" +
    `1. **Do the thing** — because ${"words ".repeat(10)}\n   - detail\n`.repeat(Math.floor(n / 103)),
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function time(run: () => void): number {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

/** What parsePlan runs, without its length limit. */
function scan(text: string, meter?: ScanMeter): void {
  if (text.length <= 200_000) {
    readPlan(text, meter);
    return;
  }
  findJsonObject(text, meter);
  readMarkdownPlan(text, meter);
}

const rows: string[] = [];
for (const [name, make] of Object.entries(shapes)) {
  for (const chars of [200_000, 2_000_000]) {
    const text = make(chars);
    scan(text); // warm
    const meter: ScanMeter = { steps: 0 };
    scan(text, meter);
    const now = time(() => scan(text));
    const old = chars <= 200_000 || OLD_2M ? time(() => void [...text.matchAll(OLD_FENCE)]) : undefined;
    rows.push(
      `| ${name} | ${text.length.toLocaleString("en")} | ${old === undefined ? "(skipped)" : old.toFixed(1)} | ${now.toFixed(1)} | ${(meter.steps / text.length).toFixed(1)} |`,
    );
  }
}
console.log(`Plan parse, median of ${ROUNDS} (ms); steps/char = characters the scanners visit per input character\n`);
console.log("| text | chars | old fence regex alone | parse now | steps/char |");
console.log("| --- | --- | --- | --- | --- |");
for (const row of rows) console.log(row);
