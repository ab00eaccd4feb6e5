import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LeaseLostError, type HistoryRecord } from "@agentry/core";
import { freshSchema, requireDatabase, storeOnFreshSchema } from "./database.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("../runtime/fixtures/worker.ts", import.meta.url));

interface Running {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the worker printed `signal` (READY unless told). */
  ready: Promise<void>;
  /** Resolves with the worker's stdout when it exits (also when killed: then with the signal's name appended). */
  done: Promise<string>;
}

/** Starts tests/runtime/fixtures/worker.ts on the Postgres store in `schema`. */
function startWorker(schema: string, args: string[], signal = "READY"): Running {
  const child = spawn(process.execPath, ["--import", "tsx", worker, "postgres", ...args], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json", AGENTRY_PG_SCHEMA: schema },
  });
  let stdout = "";
  let stderr = "";
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes(signal)) onReady();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, killedBy) =>
      code === 0
        ? resolve(stdout)
        : killedBy !== null
          ? resolve(`${stdout}\n${killedBy}`)
          : reject(new Error(`worker failed (${code}): ${stderr}`)),
    );
  });
  return { child, ready, done };
}

const lastJson = <T>(stdout: string): T => JSON.parse(stdout.trim().split("\n").at(-1)!) as T;

describe("runtimes in several processes on one Postgres database", { timeout: 240_000 }, () => {
  if (!requireDatabase()) return;
  const stores: { close(): Promise<void> }[] = [];
  const dirs: string[] = [];
  /** A temp path naming the workers' marks file. */
  const marksPath = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return join(dir, "run");
  };
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("resolving one approval from two processes at once resumes the turn once; the other gets ApprovalAlreadyResolvedError", async () => {
    for (let trial = 0; trial < 2; trial++) {
      const schema = freshSchema();
      stores.push(storeOnFreshSchema({ schema }));
      const marks = marksPath("agentry-pg-race-");
      const { requestId } = lastJson<{ requestId: string }>(await startWorker(schema, [marks, "suspend"]).done);
      const racers = [startWorker(schema, [marks, "race", requestId]), startWorker(schema, [marks, "race", requestId])];
      await Promise.all(racers.map((racer) => racer.ready));
      for (const racer of racers) racer.child.stdin.write("GO\n");
      const outcomes = (await Promise.all(racers.map((racer) => racer.done))).map((stdout) =>
        lastJson<{ outcome: string; status?: string }>(stdout),
      );
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(["already", "resolved"]);
      expect(outcomes.find((o) => o.outcome === "resolved")?.status).toBe("complete");
      expect(readFileSync(`${marks}.marks`, "utf8")).toBe("once\n");
    }
  });

  it("a holder killed (SIGKILL) mid-turn: another process takes the lease over with a greater token, repairs and completes the session; the old token is fenced", async () => {
    const schema = freshSchema();
    const store = storeOnFreshSchema({ schema });
    stores.push(store);
    const marks = marksPath("agentry-pg-crash-");
    const holder = startWorker(schema, [marks, "crash"], "TOOL_STARTED");
    await holder.ready;
    const [session] = await store.listSessions();
    const sessionId = session!.sessionId;
    const held = (
      await store.pool.query<{ lease_token: string }>(`SELECT lease_token FROM "${schema}".sessions WHERE id = $1`, [
        sessionId,
      ])
    ).rows[0]!;
    const heldToken = Number(held.lease_token);
    expect(heldToken).toBeGreaterThan(0);
    holder.child.kill("SIGKILL");
    expect(await holder.done).toMatch(/SIGKILL$/);

    const next = startWorker(schema, [marks, "turns", sessionId, "1", "b"]);
    await next.ready;
    next.child.stdin.write("GO\n");
    const report = lastJson<{ problems: string[]; statuses: string[] }>(await next.done);
    expect(report).toEqual({ problems: [], statuses: ["complete"] });

    const turns = (await store.load(sessionId)).filter(
      (r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn",
    );
    expect(turns.map((t) => `${t.phase}:${t.status ?? ""}`)).toEqual(["start:", "end:error", "start:", "end:complete"]);
    const now = Number(
      (
        await store.pool.query<{ lease_token: string }>(`SELECT lease_token FROM "${schema}".sessions WHERE id = $1`, [
          sessionId,
        ])
      ).rows[0]!.lease_token,
    );
    expect(now).toBeGreaterThan(heldToken);
    const count = (await store.load(sessionId)).length;
    await expect(
      store.append(sessionId, [{ id: "late", kind: "reset", frame: null }], { leaseToken: heldToken }),
    ).rejects.toSatisfy((error: unknown) => LeaseLostError.isInstance(error));
    expect((await store.load(sessionId)).length).toBe(count);
  });

  it("a holder paused (SIGSTOP) mid-call and taken over: on SIGCONT it finishes that call but never starts the next one", async () => {
    const schema = freshSchema();
    const store = storeOnFreshSchema({ schema });
    stores.push(store);
    const marks = marksPath("agentry-pg-stall-");
    const stalled = startWorker(schema, [marks, "stall"], "FIRST_STARTED");
    await stalled.ready;
    stalled.child.kill("SIGSTOP");
    try {
      const [session] = await store.listSessions();
      const sessionId = session!.sessionId;
      // The lease runs out while the holder sleeps; another process takes the session over, repairs it and finishes.
      const next = startWorker(schema, [marks, "turns", sessionId, "1", "b"]);
      await next.ready;
      next.child.stdin.write("GO\n");
      expect(lastJson<{ problems: string[]; statuses: string[] }>(await next.done)).toEqual({
        problems: [],
        statuses: ["complete"],
      });
      const after = await store.load(sessionId);
      writeFileSync(`${marks}.go`, "");
      stalled.child.kill("SIGCONT");
      expect(lastJson<{ outcome: string }>(await stalled.done)).toEqual({ outcome: "LeaseLostError" });
      // No side effect after the lease was gone, and nothing written into the session: the second
      // call, which had not started (no start stored), ran once, in the process that took over.
      expect(readFileSync(`${marks}.marks`, "utf8")).toBe("second\n");
      expect(await store.load(sessionId)).toEqual(after);
    } finally {
      stalled.child.kill("SIGCONT");
    }
  });
});
