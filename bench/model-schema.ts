/**
 * Model-supplied schema benchmark: how long checking a value against a hostile `pattern` takes
 * with the model-schema validator (linear-time engine), next to the native RegExp that JSON
 * Schema validators use (exponential on `^(a|a)*$`). Not a test: it prints a table.
 *
 *   npx tsx bench/model-schema.ts
 */
import { createModelSchemaValidator } from "../src/schema/model-schema-validator.ts";

const PATTERNS = ["^(a|a)*$", "(a+)+$", "^(\\w+\\s?)*$", "^[a-z0-9_-]+$"];
const validatorOf = (pattern: string) =>
  createModelSchemaValidator({ type: "string", pattern }, { maxValueBytes: 1_000_000 });

const time = (run: () => unknown): number => {
  const start = performance.now();
  run();
  return performance.now() - start;
};

const rows: string[][] = [["pattern", "input chars", "model validator (ms)", "native RegExp (ms)"]];
for (const pattern of PATTERNS) {
  const validate = validatorOf(pattern);
  const native = new RegExp(pattern, "u");
  for (const length of [20, 24, 28, 1_000, 10_000, 100_000]) {
    const input = "a".repeat(length) + "!";
    validate(input); // warm-up
    const ours = Math.min(...Array.from({ length: 3 }, () => time(() => validate(input))));
    // The native engine is only run where it finishes in reasonable time (safe pattern, or short input).
    const nativeMs = pattern === "^[a-z0-9_-]+$" || length <= 24 ? time(() => native.test(input)) : undefined;
    rows.push([
      pattern,
      String(length),
      ours.toFixed(2),
      nativeMs === undefined ? "(not run: exponential)" : nativeMs.toFixed(2),
    ]);
  }
}
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const [i, row] of rows.entries()) {
  console.log(`| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`);
  if (i === 0) console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`);
}
