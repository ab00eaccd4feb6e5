import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { bundleForNode } from "../helpers/bundle-for-node.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const LIMIT_MS = 60_000;
let worker: string;
let removeBundle: (() => void) | undefined;
beforeAll(async () => {
  const betterSqlite3 = createRequire(join(root, "package.json")).resolve("better-sqlite3");
  const bundle = await bundleForNode(fileURLToPath(new URL("./fixtures/client-tool-worker.ts", import.meta.url)), {
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

/** A worker process, with its output so far and a promise of its end. */
function start(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [worker, ...args], { cwd: root });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => (out.stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (out.stderr += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const limit = setTimeout(() => child.kill("SIGKILL"), LIMIT_MS);
    child.on("exit", (code, signal) => (clearTimeout(limit), resolve({ code, signal })));
  });
  const printed = async (text: string) => {
    while (!out.stdout.includes(text)) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`worker ended before "${text}": ${out.stdout} ${out.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { child, out, ended, printed };
}

const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

async function run(args: string[]): Promise<Record<string, unknown>> {
  const worker = start(args);
  const { code } = await worker.ended;
  if (code !== 0) throw new Error(`worker failed (${code}): ${worker.out.stderr}`);
  return lastLine(worker.out.stdout);
}

describe("a client tool call across processes (SQLite)", { timeout: 3 * LIMIT_MS }, () => {
  it("asked by a process that exits, raced by two others (one stores its result, the other is told it was decided), the winner SIGKILLed mid-turn: the next process finishes the turn, the model read one result", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-client-tool-")), "s.db");
    const asked = await run([path, "ask"]);
    expect(asked).toMatchObject({ status: "suspended", toolCallId: "g1", pending: 1 });

    const racers = [start([path, "race", "g1", "Lyon"]), start([path, "race", "g1", "Nice"])];
    await Promise.all(racers.map((racer) => racer.printed("READY")));
    for (const racer of racers) racer.child.stdin!.write("GO\n");
    // The winner's resumed turn runs slow_write (which hangs): kill it there, for real.
    const winner = await Promise.race(
      racers.map((racer) =>
        racer.printed("TOOL_STARTED").then(
          () => racer,
          () => new Promise<never>(() => undefined),
        ),
      ),
    );
    winner.child.kill("SIGKILL");
    const loser = racers.find((racer) => racer !== winner)!;
    expect((await loser.ended).code).toBe(0);
    expect(lastLine(loser.out.stdout)).toEqual({ outcome: "already" });
    expect((await winner.ended).signal).toBe("SIGKILL");
    const city = winner === racers[0] ? "Lyon" : "Nice";

    const finished = await run([path, "finish", asked.sessionId as string]);
    expect(finished).toEqual({
      status: "complete",
      text: `geolocate results: ${JSON.stringify([{ city }])}`,
      problems: [],
      pending: 0,
    });
    const store = new SqliteSessionStore({ path });
    try {
      const records = await store.load(asked.sessionId as string);
      const results = records.filter(
        (r): r is Extract<HistoryRecord, { kind: "tool_result" }> => r.kind === "tool_result" && r.toolCallId === "g1",
      );
      expect(results.map((r) => r.result.result)).toEqual([{ city }]);
      const decisions = records.filter((r) => r.kind === "approval" && r.decision !== undefined);
      expect(decisions).toHaveLength(1);
    } finally {
      store.close();
    }
  });
});
