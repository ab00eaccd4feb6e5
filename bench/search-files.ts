/**
 * `search_files` on a generated tree of 10,000 text files (100 directories of 100 files), at three
 * file sizes, so the table shows time against bytes searched: the regex runs on the package's
 * linear-time engine, so time should grow linearly with bytes (plus a fixed cost per file for
 * opening and verifying it). Two patterns: a literal, and a class-and-repetition pattern.
 *
 *   npx tsx bench/search-files.ts [--quick]
 *
 * Runs against the sources (../src). Each size is generated once; every (size, pattern) pair is
 * searched once to warm up, then ROUNDS times, sizes interleaved per round, so load from other
 * work on the machine hits all sizes alike; the table shows the median. Prints a markdown table;
 * not a test, nothing asserts a time.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { defaultPolicy, type Tool } from "../src/index.js";
import { createWorkspaceTools, type SearchFilesResult } from "../src/entries/node.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 2 : 3;
const DIRECTORIES = 100;
const FILES_PER_DIRECTORY = 100;
const FILE_BYTES = [256, 2_048, 8_192];
const PATTERNS = ["needle", "[A-Z][a-z]+Error\\b"];
const base = mkdtempSync(join(tmpdir(), "agentry-search-bench-"));

const LINE = "export function handle(value: number): string { return String(value * 2); } // plain text\n";

/** A tree of 10,000 files of `bytes` bytes each; one line in a thousand files holds both patterns' matches. */
function generate(bytes: number): string {
  const root = join(base, `tree-${bytes}`);
  let n = 0;
  for (let d = 0; d < DIRECTORIES; d++) {
    const dir = join(root, `dir-${String(d).padStart(3, "0")}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIRECTORY; f++, n++) {
      let text = LINE.repeat(Math.ceil(bytes / LINE.length)).slice(0, bytes - 1) + "\n";
      if (n % 1_000 === 0) text = `throw new ParseError("needle");\n${text}`.slice(0, bytes);
      writeFileSync(join(dir, `file-${f}.ts`), text);
    }
  }
  return root;
}

const tool: Tool = createWorkspaceTools({
  maxSearchBytes: 1e9,
  maxSearchEntries: 1e6,
  maxSearchMatches: 10_000,
  maxSearchSteps: 1e12,
}).find((t) => t.name === "search_files")!;

async function searchOnce(root: string, pattern: string): Promise<{ ms: number; result: SearchFilesResult }> {
  const policy = defaultPolicy("thread", { workspaceRoot: root });
  const ctx = {
    toolCallId: "b",
    depth: 0,
    parentId: null,
    callKey: "bench",
    signal: new AbortController().signal,
    policy,
  };
  const start = performance.now();
  const result = (await tool.execute!({ pattern, path: ".", include: [], exclude: [] }, ctx)) as SearchFilesResult;
  return { ms: performance.now() - start, result };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  const trees = FILE_BYTES.map((bytes) => ({ bytes, root: generate(bytes) }));
  const samples = new Map<string, { ms: number[]; result: SearchFilesResult }>();
  for (const { root, bytes } of trees)
    for (const pattern of PATTERNS)
      samples.set(`${bytes}|${pattern}`, { ms: [], result: (await searchOnce(root, pattern)).result });
  for (let round = 0; round < ROUNDS; round++) {
    for (const { root, bytes } of trees) {
      for (const pattern of PATTERNS) samples.get(`${bytes}|${pattern}`)!.ms.push((await searchOnce(root, pattern)).ms);
    }
  }
  console.log("| pattern | files | bytes searched | matches | median ms | MB/s | ns/byte |");
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const pattern of PATTERNS) {
    for (const { bytes } of trees) {
      const { ms, result } = samples.get(`${bytes}|${pattern}`)!;
      const m = median(ms);
      const searched = result.bytesSearched;
      console.log(
        `| \`${pattern}\` | ${result.filesSearched.toLocaleString("en")} | ${searched.toLocaleString("en")} | ${result.matches.length} | ` +
          `${m.toFixed(0)} | ${(searched / 1e6 / (m / 1000)).toFixed(1)} | ${((m * 1e6) / searched).toFixed(0)} |`,
      );
    }
  }
  // Time = fixed cost per file + cost per byte: the slope between sizes is the engine's per-byte cost.
  for (const pattern of PATTERNS) {
    const [small, , large] = trees.map(({ bytes }) => samples.get(`${bytes}|${pattern}`)!);
    const slope = (median(large!.ms) - median(small!.ms)) / (large!.result.bytesSearched - small!.result.bytesSearched);
    console.log(
      `\`${pattern}\`: marginal ${(slope * 1e6).toFixed(0)} ns/byte between the smallest and the largest tree`,
    );
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
