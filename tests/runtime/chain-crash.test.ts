import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bundleChainWorker,
  CHAIN_KILLS,
  CHAIN_LIMIT_MS,
  CHAIN_OUTCOMES,
  CHAIN_TOUCHES,
  MAY_OR_MAY_NOT,
  REFUNDED,
  runChainWorker,
  settleBefore,
  type Touched,
} from "./fixtures/chain-runs.js";

let worker: string;
let removeBundle: (() => void) | undefined;
beforeAll(async () => {
  const bundle = await bundleChainWorker();
  worker = bundle.path;
  removeBundle = bundle.remove;
}, CHAIN_LIMIT_MS);
afterAll(() => removeBundle?.());
const run = (args: string[]) => runChainWorker(worker, args);

/** A copy of the database folder `from` (the SQLite file, its WAL and the marks), for one test. */
function copyOf(from: string): string {
  const to = mkdtempSync(join(tmpdir(), "agentry-chain-crash-"));
  for (const name of readdirSync(from)) copyFileSync(join(from, name), join(to, name));
  return to;
}

const marksOf = (dir: string) =>
  existsSync(join(dir, "s.db.marks")) ? readFileSync(join(dir, "s.db.marks"), "utf8") : "";

describe(
  "a delegation chain survives a SIGKILL at any step of its resume (SQLite)",
  { timeout: 5 * CHAIN_LIMIT_MS },
  () => {
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
    }, CHAIN_LIMIT_MS);

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

    const cases = CHAIN_KILLS.flatMap((kill) =>
      CHAIN_TOUCHES.filter(
        // A listing of every scope sees a chain only through a pending request: a chain whose
        // every request was decided and whose top did not resume is found from any of its sessions.
        (how) => !(how === "list" && (kill === "top-answer" || kill === "top-start")),
      ).map((how) => [kill, how] as const),
    );
    it.each(cases)(
      "killed at %s, then touched by %s: the chain is finished, the refund ran once (never when it may have run)",
      async (kill, how) => {
        const dir = copyOf(await killedAt(kill));
        await settleBefore(how, kill);
        expect(marksOf(dir)).toBe(["decision", "before-tool", "in-tool"].includes(kill) ? "" : "refund\n");
        const touched = JSON.parse(
          (await run([join(dir, "s.db"), "touch", `${started.sessionId},${started.requestId}`, how])).stdout,
        ) as Touched;
        expect(touched.outcome).toBe(CHAIN_OUTCOMES[how]);
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
      const [root, decide, list] = touches.map((touched) => JSON.parse(touched.stdout) as Touched);
      // The message returns once the chain is finished (it waits for its sessions' leases); the
      // decision and the listing leave a step another process is taking to it.
      expect(root!.texts).toContain(REFUNDED);
      expect(decide!.outcome).toBe("ApprovalAlreadyResolvedError");
      for (const touched of [root!, decide!, list!]) expect(touched.problems).toEqual([]);
    });
  },
);
