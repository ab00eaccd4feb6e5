import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("examples/mcp.ts", { timeout: 60_000 }, () => {
  it("works on a temp folder through the real filesystem server, offline, the write approved", async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC)_/.test(key)),
    ) as Record<string, string>;
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "examples/mcp.ts"], {
      cwd: root,
      env: { ...env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^Connected to MCP server "fs": \d+ tools/m);
    expect(stdout).toMatch(/^→ fs\.list_directory\n→ fs\.read_text_file\n→ fs\.write_file$/m);
    expect(stdout).toMatch(/^approve\? fs\.write_file\(/m);
    expect(stdout).toContain('groceries-sorted.txt: "coffee\\neggs\\nmilk\\n"');
    expect(stdout).toMatch(/^done: complete$/m);
  });
});
