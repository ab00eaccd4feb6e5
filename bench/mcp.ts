/**
 * MCP benchmark: the cost of one MCP tool call through Agentry (`connectMcpServer` → the tool's
 * `execute`, and with the argument validation the loop does before it) next to the same call
 * with the MCP SDK's own client, against the same official server over stdio.
 *
 *   npx tsx bench/mcp.ts [--batch=50] [--batches=40]
 *
 * Servers: `@modelcontextprotocol/server-everything` (echo, a few bytes) and
 * `@modelcontextprotocol/server-filesystem` (read_text_file of a 1 MB file), both from the root
 * node_modules, started with this Node. The clients take turns batch by batch (order rotated), so
 * load on a shared machine hits them alike; the table shows the median over batches of the mean
 * time per call. Not a test: it prints a table and asserts nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcpServer, type McpConnection } from "../src/entries/mcp.ts";
import { defaultPolicy } from "../src/policy/default-policy.ts";
import type { Tool, ToolContext } from "../src/contracts/tool.ts";
import { validateToolArgs } from "../src/tools/validate-tool-args.ts";

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split("=")[1]) : fallback;
};
const BATCH = arg("batch", 50);
const BATCHES = arg("batches", 40);

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (pkg: string) => {
  const dir = join(root, "node_modules", pkg);
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: Record<string, string> };
  return join(dir, Object.values(meta.bin)[0]!);
};

const dir = mkdtempSync(join(tmpdir(), "agentry-bench-mcp-"));
const bigFile = join(dir, "big.txt");
writeFileSync(bigFile, "0123456789abcdef\n".repeat(61_681)); // ~1 MB

interface Scenario {
  label: string;
  args: string[];
  tool: string;
  input: Record<string, unknown>;
  calls: number;
}
const scenarios: Scenario[] = [
  {
    label: "echo (server-everything)",
    args: [bin("@modelcontextprotocol/server-everything"), "stdio"],
    tool: "echo",
    input: { message: "hello" },
    calls: BATCH,
  },
  {
    label: "read_text_file 1 MB (server-filesystem)",
    args: [bin("@modelcontextprotocol/server-filesystem"), dir],
    tool: "read_text_file",
    input: { path: bigFile },
    calls: Math.max(2, Math.round(BATCH / 10)),
  },
];

const ctx: ToolContext = {
  toolCallId: "bench",
  callKey: "bench",
  depth: 0,
  parentId: null,
  signal: new AbortController().signal,
  policy: defaultPolicy(),
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function time(calls: number, once: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < calls; i++) await once();
  return ((performance.now() - start) / calls) * 1000; // µs per call
}

const rows: string[] = [];
for (const scenario of scenarios) {
  const sdk = new Client({ name: "bench", version: "1.0.0" });
  await sdk.connect(new StdioClientTransport({ command: process.execPath, args: scenario.args, stderr: "ignore" }));
  const agentry: McpConnection = await connectMcpServer({
    name: "srv",
    command: process.execPath,
    args: scenario.args,
  });
  const tool: Tool = agentry.tools().find((t) => t.name === `srv.${scenario.tool}`)!;
  const results = { sdk: [] as number[], execute: [] as number[], dispatch: [] as number[] };
  for (let i = 0; i < 20; i++)
    await Promise.all([
      sdk.callTool({ name: scenario.tool, arguments: scenario.input }),
      tool.execute!(scenario.input, ctx),
    ]); // warm-up
  for (let round = 0; round < BATCHES; round++) {
    const order = (["sdk", "execute", "dispatch"] as const).map((_, i, all) => all[(i + round) % all.length]!);
    for (const which of order) {
      const once =
        which === "sdk"
          ? () => sdk.callTool({ name: scenario.tool, arguments: scenario.input })
          : which === "execute"
            ? () => tool.execute!(scenario.input, ctx) as Promise<unknown>
            : () => {
                const checked = validateToolArgs(tool, scenario.input);
                if (!checked.ok) throw new Error(checked.message);
                return tool.execute!(checked.value, ctx) as Promise<unknown>;
              };
      results[which].push(await time(scenario.calls, once));
    }
  }
  await sdk.close();
  await agentry.close();
  const base = median(results.sdk);
  const fmt = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
  rows.push(
    `| ${scenario.label} | ${fmt(base)} | ${fmt(median(results.execute))} (${(median(results.execute) / base).toFixed(2)}x) | ${fmt(median(results.dispatch))} (${(median(results.dispatch) / base).toFixed(2)}x) |`,
  );
}
rmSync(dir, { recursive: true, force: true });

console.log(
  `MCP tool call over stdio: median over ${BATCHES} batches of the mean per call (Node ${process.version})\n`,
);
console.log("| call | MCP SDK client | Agentry tool.execute | Agentry validate + execute |");
console.log("| --- | --- | --- | --- |");
for (const row of rows) console.log(row);
