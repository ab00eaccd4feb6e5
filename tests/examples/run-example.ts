import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/** Runs `examples/<file>` as a user would (tsx, the repository's path mapping), with no provider variables set. */
export async function runExample(file: string, env: Record<string, string> = {}): Promise<string> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC)_/.test(key)),
  ) as Record<string, string>;
  const { stdout } = await run(process.execPath, ["--import", "tsx", `examples/${file}`], {
    cwd: root,
    env: { ...clean, ...env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
    timeout: 60_000,
  });
  return stdout;
}
