/**
 * `run_command` with and without the namespace sandbox (`createWorkspaceTools({ sandbox })`): the
 * one-off cost of creating the tools (the sandbox is tried once then) and the cost per command of
 * a program that does nothing (`true`), so the table shows the sandbox's own overhead per call.
 * Linux only (the sandbox needs it); run as root or with unprivileged user namespaces.
 *
 *   npx tsx bench/command-sandbox.ts [--quick]
 *
 * Runs against the sources (../src). Modes are interleaved per round; the table shows medians.
 * Prints a markdown table; not a test, nothing asserts a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { defaultPolicy, type Tool, type ToolContext } from "../src/index.js";
import { createWorkspaceTools, type WorkspaceSandbox } from "../src/entries/node.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 2 : 5;
const COMMANDS = quick ? 10 : 30;
const root = mkdtempSync(join(tmpdir(), "agentry-sandbox-bench-"));
const policy = { ...defaultPolicy("thread", { workspaceRoot: root }), classes: ["execute"] };
const ctx: ToolContext = {
  toolCallId: "c",
  depth: 0,
  parentId: null,
  callKey: "bench",
  signal: new AbortController().signal,
  policy,
};
const isRoot = process.getuid?.() === 0;
const modes: [string, WorkspaceSandbox][] = [
  ["none", "none"],
  ["namespaces, user namespace", { kind: "namespaces", userNamespace: true }],
  ...(isRoot
    ? [["namespaces, as root", { kind: "namespaces", userNamespace: false }] as [string, WorkspaceSandbox]]
    : []),
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const samples = new Map(modes.map(([name]) => [name, { create: [] as number[], command: [] as number[] }]));

try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, sandbox] of modes) {
      let started = performance.now();
      const tools = createWorkspaceTools({ commandAllowlist: ["true"], sandbox });
      samples.get(name)!.create.push(performance.now() - started);
      const run = tools.find((tool) => tool.name === "run_command") as Tool;
      await run.execute!({ command: "true", args: [], cwd: "." }, ctx); // warm-up
      started = performance.now();
      for (let i = 0; i < COMMANDS; i++) await run.execute!({ command: "true", args: [], cwd: "." }, ctx);
      samples.get(name)!.command.push((performance.now() - started) / COMMANDS);
    }
  }
  console.log(`| sandbox | create the tools (ms) | per command (ms) |\n| --- | ---: | ---: |`);
  for (const [name] of modes) {
    const { create, command } = samples.get(name)!;
    console.log(`| ${name} | ${median(create).toFixed(1)} | ${median(command).toFixed(1)} |`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
