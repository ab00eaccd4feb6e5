import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

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

describe("examples/quickstart.ts", () => {
  it("runs offline on the scripted provider and prints the nested event stream", async () => {
    const out = await runQuickstart();
    expect(out).toMatch(/Using the bundled scripted provider \(offline/);
    expect(out).toMatch(/→ run_subtask\(.*Weather in Lisbon/);
    expect(out).toMatch(/^ {2}\[Weather in Oslo\] → get_weather\(\{"city":"Oslo"\}\)$/m);
    expect(out).toMatch(/^← run_subtask Lisbon: sunny, high of 24 °C\./m);
    expect(out).toMatch(/^assistant: Go to Lisbon/m);
    expect(out).toMatch(/^done: complete$/m);
    expect(out).toMatch(/6 model calls, 2 tool calls/);
  });
});
