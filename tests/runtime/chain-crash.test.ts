import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleForNode } from "../helpers/bundle-for-node.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const LIMIT_MS = 60_000;
let worker: string;
let removeBundle: (() => void) | undefined;
beforeAll(async () => {
  const betterSqlite3 = createRequire(join(root, "package.json")).resolve("better-sqlite3");
  const bundle = await bundleForNode(fileURLToPath(new URL("./fixtures/chain-worker.ts", import.meta.url)), {
    plugins: [
      {
        name: "native-outside",
        setup: (plugin) =>
          void plugin.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: betterSqlite3, external: true })),
      },
    ],
  });
  worker = bundle.path;
  removeBundle = bundle.remove;
}, LIMIT_MS);
afterAll(() => removeBundle?.());

function run(args: string[]): Promise<{ stdout: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], { cwd: root });
    let stdout = "";
    let stderr = "";
    const limit = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`chain worker ${args.join(" ")} still running; stdout: ${stdout}; stderr: ${stderr}`));
    }, LIMIT_MS);
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
      if (code) reject(new Error(`chain worker failed (${code}): ${stderr}`));
      else resolve({ stdout, signal });
    });
  });
}

describe("a delegation chain survives a SIGKILL between any two of its steps", { timeout: 3 * LIMIT_MS }, () => {
  it("without a crash: the approval asked three agents down is resolved by a second process, which answers up to the conversation", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-chain-")), "s.db");
    const started = JSON.parse((await run([path, "start"])).stdout) as { sessionId: string; requestId: string };
    const resolved = JSON.parse((await run([path, "resolve", started.requestId, "none"])).stdout) as {
      status: string;
      text: string;
    };
    expect(resolved).toEqual({ status: "complete", text: "triage: billing: payments: refunded 15" });
    expect(readFileSync(`${path}.marks`, "utf8")).toBe("refund\n");
  });

  it.each(["decision", "tool", "leaf-end", "answer", "mid-end"])(
    "killed after %s: the next process that touches the conversation finishes the chain; the refund runs once",
    async (at) => {
      const path = join(mkdtempSync(join(tmpdir(), "agentry-chain-crash-")), "s.db");
      const started = JSON.parse((await run([path, "start"])).stdout) as { sessionId: string; requestId: string };
      const killed = await run([path, "resolve", started.requestId, at]);
      expect(killed.signal).toBe("SIGKILL");
      const marksBefore = existsSync(`${path}.marks`) ? readFileSync(`${path}.marks`, "utf8") : "";
      expect(marksBefore).toBe(at === "decision" ? "" : "refund\n");
      const touched = JSON.parse((await run([path, "touch", started.sessionId])).stdout) as {
        status: string;
        texts: string[];
        problems: string[];
      };
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("refund\n");
      expect(touched.texts).toContain("triage: billing: payments: refunded 15");
      expect(touched.problems).toEqual([]);
      // "any news?" goes down the chain again and waits for its own refund's approval.
      expect(touched.status).toBe("suspended");
    },
  );
});
