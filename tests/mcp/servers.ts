import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The script a package's first `bin` entry runs, from this repository's node_modules (no PATH, no npx, no network). */
export function binScript(pkg: string): string {
  const dir = join(root, "node_modules", pkg);
  const bin = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: Record<string, string> | string }).bin;
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
