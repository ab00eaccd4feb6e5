import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { HistoryRecord } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the worker printed READY. */
  ready: Promise<void>;
  /** Resolves with the worker's stdout when it exits. */
  done: Promise<string>;
}

function startWorker(args: string[]): Running {
  const child = spawn(process.execPath, ["--import", "tsx", worker, "sqlite", ...args], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
  });
  let stdout = "";
  let stderr = "";
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes("READY")) onReady();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`worker failed (${code}): ${stderr}`)),
    );
  });
  return { child, ready, done };
}

const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split("\n").at(-1)!) as T;

/** Suspends a turn on an approval in a worker; returns the request id. */
async function suspend(path: string): Promise<string> {
  const { requestId } = lastJson<{ requestId: string }>(await startWorker([path, "suspend"]).done);
  return requestId;
}

describe("two processes on one SQLite file", { timeout: 240_000 }, () => {
  it("resolving one approval from two processes at once resumes the turn once; the other gets ApprovalAlreadyResolvedError", async () => {
    const trials = 3;
    for (let trial = 0; trial < trials; trial++) {
      const path = join(mkdtempSync(join(tmpdir(), "agentry-race-")), "sessions.db");
      const requestId = await suspend(path);
      const racers = [startWorker([path, "race", requestId]), startWorker([path, "race", requestId])];
      await Promise.all(racers.map((racer) => racer.ready));
      for (const racer of racers) racer.child.stdin.write("GO\n");
      const outcomes = (await Promise.all(racers.map((racer) => racer.done))).map((stdout) =>
        lastJson<{ outcome: string; status?: string }>(stdout),
      );
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(["already", "resolved"]);
      expect(outcomes.find((o) => o.outcome === "resolved")?.status).toBe("complete");
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
    }
  });

  it("two runtimes sending turns to one session never interleave its records, and every model request is valid", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-lease-")), "sessions.db");
    const store = new SqliteSessionStore({ path });
    const { sessionId } = await store.createSession({ agentId: "worker" });
    const senders = [
      startWorker([path, "turns", sessionId, "4", "a"]),
      startWorker([path, "turns", sessionId, "4", "b"]),
    ];
    await Promise.all(senders.map((sender) => sender.ready));
    for (const sender of senders) sender.child.stdin.write("GO\n");
    const reports = (await Promise.all(senders.map((sender) => sender.done))).map((stdout) =>
      lastJson<{ problems: string[]; statuses: string[] }>(stdout),
    );
    for (const report of reports) {
      expect(report.problems).toEqual([]);
      expect(report.statuses).toEqual(["complete", "complete", "complete", "complete"]);
    }
    const records = await store.load(sessionId);
    // Each turn's records sit together between its start and end markers.
    let open: string | undefined;
    const turns: string[] = [];
    for (const record of records) {
      if (record.kind === "turn" && record.phase === "start") {
        expect(open).toBeUndefined();
        open = record.runId;
        turns.push(record.runId);
      } else if (record.kind === "turn" && record.phase === "end") {
        expect(record.runId).toBe(open);
        expect(record.status).toBe("complete");
        open = undefined;
      } else {
        expect(open).toBeDefined();
        // Prompt records belong to the session (stored once, by digest), not to a turn.
        expect(record.id.startsWith(open!) || record.id.startsWith("prompt:")).toBe(true);
      }
    }
    expect(turns).toHaveLength(8);
    store.close();
  });

  it("a decision stored by a process that died before resuming is resumed by the next runtime; the tool runs once", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-orphan-")), "sessions.db");
    const requestId = await suspend(path);
    await startWorker([path, "decide-and-die", requestId]).done;
    expect(existsSync(`${path}.marks`)).toBe(false);
    // The next runtime touching the session (here: resolving the same request) resumes the stored decision first.
    const outcome = lastJson<{ outcome: string }>(
      await (async () => {
        const racer = startWorker([path, "race", requestId]);
        await racer.ready;
        racer.child.stdin.write("GO\n");
        return racer.done;
      })(),
    );
    expect(outcome.outcome).toBe("already");
    expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
    const store = new SqliteSessionStore({ path });
    const [session] = await store.listSessions();
    const turns = (await store.load(session!.sessionId)).filter(
      (r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn",
    );
    expect(turns.map((t) => `${t.phase}:${t.status ?? ""}`)).toEqual([
      "start:",
      "end:suspended",
      "start:",
      "end:complete",
    ]);
    store.close();
  });
});
