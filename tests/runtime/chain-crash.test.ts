import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
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
    external: ["pg-native"],
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

/** A copy of the database folder `from` (the SQLite file, its WAL and the marks), for one test. */
function copyOf(from: string): string {
  const to = mkdtempSync(join(tmpdir(), "agentry-chain-crash-"));
  for (const name of readdirSync(from)) copyFileSync(join(from, name), join(to, name));
  return to;
}

const marksOf = (dir: string) =>
  existsSync(join(dir, "s.db.marks")) ? readFileSync(join(dir, "s.db.marks"), "utf8") : "";

/** Where the process that decided is killed (see fixtures/chain-worker.ts). */
const KILLS = [
  "decision", // the decision is stored, payments not resumed
  "before-tool", // payments' resumed turn started; killed in beforeToolCall, before the refund's start
  "in-tool", // the refund's start is stored; killed inside the tool, before the refund
  "tool", // the refund ran, its result stored; payments' turn did not end
  "leaf-end", // payments' turn ended; billing not told
  "answer", // billing's waiting call answered; billing not resumed
  "mid-end", // billing's turn ended; triage not told
  "top-answer", // triage's waiting call answered; triage not resumed
  "top-start", // triage's resumed turn started; its answer not stored
] as const;
/** How the chain is touched next: a message to triage, billing or payments, the decision again, a listing. */
const TOUCHES = ["root", "mid", "leaf", "decide", "list-root", "list"] as const;
/** What each touch comes to once the chain is finished. */
const OUTCOMES: Record<(typeof TOUCHES)[number], unknown> = {
  // "any news?" goes down the chain again and waits for its own refund's approval.
  root: "suspended",
  mid: "suspended",
  leaf: "suspended",
  decide: "ApprovalAlreadyResolvedError",
  "list-root": 0,
  list: 0,
};
const REFUNDED = "triage: billing: payments: refunded 15";
const MAY_OR_MAY_NOT =
  "triage: billing: payments: Not completed: the run executing this call stopped before it finished (the process ended). It may or may not have taken effect.";

describe("a delegation chain survives a SIGKILL at any step of its resume (SQLite)", { timeout: 5 * LIMIT_MS }, () => {
  let started: { sessionId: string; requestId: string };
  let template: string;
  const killedDirs = new Map<string, Promise<string>>();
  /** The database after the deciding process was killed at `at` (made once per kill point). */
  const killedAt = (at: string): Promise<string> => {
    let dir = killedDirs.get(at);
    if (!dir) {
      dir = (async () => {
        const copy = copyOf(template);
        const killed = await run([join(copy, "s.db"), "resolve", started.requestId, at]);
        expect(killed.signal).toBe("SIGKILL");
        return copy;
      })();
      killedDirs.set(at, dir);
    }
    return dir;
  };
  beforeAll(async () => {
    template = mkdtempSync(join(tmpdir(), "agentry-chain-"));
    started = JSON.parse((await run([join(template, "s.db"), "start"])).stdout) as typeof started;
  }, LIMIT_MS);

  it("without a crash: the approval asked three agents down is resolved by a second process, which answers up to the conversation", async () => {
    const dir = copyOf(template);
    const resolved = JSON.parse((await run([join(dir, "s.db"), "resolve", started.requestId, "none"])).stdout) as {
      status: string;
      text: string;
      sessionId: string;
    };
    // The top-level conversation's outcome, not a delegate's.
    expect(resolved).toEqual({ status: "complete", text: REFUNDED, sessionId: started.sessionId });
    expect(marksOf(dir)).toBe("refund\n");
  });

  const cases = KILLS.flatMap((kill) =>
    TOUCHES.filter(
      // A listing of every scope sees a chain only through a pending request: a chain whose
      // every request was decided and whose top did not resume is found from any of its sessions.
      (how) => !(how === "list" && (kill === "top-answer" || kill === "top-start")),
    ).map((how) => [kill, how] as const),
  );
  it.each(cases)(
    "killed at %s, then touched by %s: the chain is finished, the refund ran once (never when it may have run)",
    async (kill, how) => {
      const dir = copyOf(await killedAt(kill));
      expect(marksOf(dir)).toBe(["decision", "before-tool", "in-tool"].includes(kill) ? "" : "refund\n");
      const touched = JSON.parse(
        (await run([join(dir, "s.db"), "touch", `${started.sessionId},${started.requestId}`, how])).stdout,
      ) as { outcome: unknown; texts: string[]; problems: string[]; ms: number };
      expect(touched.outcome).toBe(OUTCOMES[how]);
      expect(touched.problems).toEqual([]);
      if (kill === "in-tool") {
        // Its start was stored: it may have taken effect, so it is never run again; the model is told so.
        expect(marksOf(dir)).toBe("");
        expect(touched.texts).toContain(MAY_OR_MAY_NOT);
      } else {
        // The approved refund never started (or ran before the kill): it runs exactly once.
        expect(marksOf(dir)).toBe("refund\n");
        expect(touched.texts).toContain(REFUNDED);
      }
    },
  );

  it("three processes touch the chain at once after a kill before the refund started: it runs once", async () => {
    const dir = copyOf(await killedAt("before-tool"));
    const db = join(dir, "s.db");
    const key = `${started.sessionId},${started.requestId}`;
    const touches = await Promise.all(["root", "decide", "list"].map((how) => run([db, "touch", key, how])));
    expect(marksOf(dir)).toBe("refund\n");
    for (const touched of touches) {
      const { texts, problems } = JSON.parse(touched.stdout) as { texts: string[]; problems: string[] };
      expect(texts).toContain(REFUNDED);
      expect(problems).toEqual([]);
    }
  });
});
