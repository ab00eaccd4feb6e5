import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { defaultPolicy, type Tool, type ToolContext } from "@agentry/core";
import { connectMcpServer, type McpConnection } from "@agentry/core/mcp";

/** Starting a server process takes seconds on a busy machine (the default hook limit is 10 s). */
export const SERVER_START_MS = 60_000;

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The script a package's first `bin` entry runs, from this repository's node_modules (no PATH, no npx, no network). */
export function binScript(pkg: string): string {
  const dir = join(root, "node_modules", pkg);
  const bin = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: Record<string, string> | string })
    .bin;
  return join(dir, typeof bin === "string" ? bin : Object.values(bin)[0]!);
}

export const filesystemServer = () => binScript("@modelcontextprotocol/server-filesystem");
export const everythingServer = () => binScript("@modelcontextprotocol/server-everything");
const misbehavingScript = fileURLToPath(new URL("./fixtures/misbehaving-server.ts", import.meta.url));

/** How to start tests/mcp/fixtures/misbehaving-server.ts (through tsx, from the repository root). */
export const misbehavingServer = (...extra: string[]) => ({
  command: process.execPath,
  args: ["--import", "tsx", misbehavingScript, ...extra],
  cwd: root,
  env: { TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
});

/**
 * For a `describe` block: a temp folder holding `notes.txt` ("buy milk\n") and the official
 * filesystem server (stdio, named `fs`) serving it, started once before the block's tests and
 * closed (folder removed) after them. Read `dir` and `fs` inside tests, not at collection time.
 */
export function useFilesystemServer(prefix: string): { readonly dir: string; readonly fs: McpConnection } {
  let dir: string | undefined;
  let fs: McpConnection | undefined;
  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    writeFileSync(join(dir, "notes.txt"), "buy milk\n");
    fs = await connectMcpServer({ name: "fs", command: process.execPath, args: [filesystemServer(), dir] });
  }, SERVER_START_MS);
  afterAll(async () => {
    await fs?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      if (dir === undefined) throw new Error("useFilesystemServer: read dir inside a test");
      return dir;
    },
    get fs() {
      if (fs === undefined) throw new Error("useFilesystemServer: read fs inside a test");
      return fs;
    },
  };
}

const hostileScript = fileURLToPath(new URL("./fixtures/hostile-server.ts", import.meta.url));

/** How to start tests/mcp/fixtures/hostile-server.ts over stdio (see its header for the flags). */
export const hostileServer = (...extra: string[]) => ({
  command: process.execPath,
  args: ["--import", "tsx", hostileScript, ...extra],
  cwd: root,
  env: { TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
});

/** What the hostile server saw (its `GET /stats` over HTTP, its `stats` tool otherwise). */
export interface HostileStats {
  lists: number[];
  maxListsInFlight: number;
  endlessOpen: number;
  endlessClosed: number;
  deletes: number;
}

/** Starts tests/mcp/fixtures/hostile-server.ts over streamable HTTP on 127.0.0.1, as a child process. */
export async function startHostileHttpServer(
  ...extra: string[]
): Promise<{ url: string; stats(): Promise<HostileStats>; stop(): void }> {
  const child = spawn(process.execPath, ["--import", "tsx", hostileScript, "--http", ...extra], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += String(chunk);
      const found = /LISTENING (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the hostile server exited (${code})`)));
  });
  return {
    url,
    stats: async () => (await (await fetch(new URL("/stats", url))).json()) as HostileStats,
    stop: () => void child.kill(),
  };
}

/** A tool call's context for calling an MCP tool directly (`signal` aborts it). */
export const toolContext = (signal = new AbortController().signal): ToolContext => ({
  toolCallId: "c1",
  depth: 0,
  parentId: null,
  callKey: "test",
  signal,
  policy: defaultPolicy(),
});

/**
 * Runs an MCP tool's `execute` (an async generator) to its end, as the loop does: resolves with the
 * result (rejects with the error), and pushes each value it yielded (its `tool_progress`) onto `progress`.
 */
export async function runMcpTool(
  tool: Tool,
  args: unknown,
  ctx: ToolContext,
  progress: unknown[] = [],
): Promise<unknown> {
  const generator = tool.execute!(args, ctx) as AsyncGenerator<unknown, unknown, undefined>;
  for (;;) {
    const step = await generator.next();
    if (step.done) return step.value;
    progress.push(step.value);
  }
}
