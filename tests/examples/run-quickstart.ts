import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/**
 * How long a test that runs the quickstart may take: the child starts through tsx, which takes
 * seconds on a loaded machine. Generous, so that only a hung child fails on it.
 */
export const QUICKSTART_TEST_TIMEOUT_MS = 90_000;

/** Runs the quickstart as `npm start` does, with only the given provider variables set. */
export async function runQuickstart(env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(OPENAI|ANTHROPIC)_/.test(key)),
  ) as Record<string, string>;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/quickstart.ts"], {
    cwd: root,
    env: { ...clean, ...env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
    timeout: 60_000,
  });
  return stdout;
}
