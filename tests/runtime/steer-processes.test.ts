import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createAgentRegistry, createAgentRuntime, type Message } from "@agentry/core";
import { SqliteSessionStore } from "@agentry/core/sqlite";
import { createFakeProvider } from "@agentry/core/testing";

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/steer-worker.ts", import.meta.url));

interface Worker {
  child: ChildProcessWithoutNullStreams;
  /** Resolves once the worker printed `line`. */
  printed: (line: string) => Promise<void>;
  /** Resolves with the worker's last JSON line when it exits (rejects on a failure). */
  done: Promise<{ status: string; reason?: string; runId: string; text: string; calls: number }>;
}

function startWorker(path: string, mode: "run" | "hang", sessionId: string): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", worker, path, mode, sessionId], {
    cwd: root,
    env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" },
  });
  let stdout = "";
  let stderr = "";
  const waiting: { line: string; resolve: () => void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiting) if (stdout.includes(w.line)) w.resolve();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Worker["done"] extends Promise<infer T> ? T : never>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolve(JSON.parse(stdout.trim().split("\n").at(-1)!))
        : reject(new Error(`worker ended (${code ?? signal}): ${stderr}`)),
    );
  });
  // A worker that ends early is reported by the test that awaits `done`, never as an unhandled rejection.
  done.catch(() => undefined);
  const printed = (line: string) =>
    stdout.includes(line) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ line, resolve }));
  return { child, printed, done };
}

const text = (message: Message | undefined) =>
  message === undefined || typeof message.content !== "string" ? "" : message.content;

/** The parent's runtime on the same file: it answers whatever it runs with what it heard. */
function parentRuntime(path: string) {
  const provider = createFakeProvider((request) => ({ text: `parent heard: ${text(request.messages.at(-1))}` }));
  const store = new SqliteSessionStore({ path });
  const runtime = createAgentRuntime({
    registry: createAgentRegistry([{ agentId: "worker", displayName: "Worker", systemPrompt: "Work." }]),
    store,
    providers: { fake: provider },
    defaultModel: "fake-model",
    leaseTtlMs: 1_000,
  });
  return { runtime, provider, store };
}

async function newSession(path: string): Promise<string> {
  const store = new SqliteSessionStore({ path });
  const { sessionId } = await store.createSession({ agentId: "worker" });
  store.close();
  return sessionId;
}

describe("steer and stop across two processes on one SQLite file", { timeout: 120_000 }, () => {
  it("stopTurn from another process stops the running turn (aborted, with the reason) by its next step boundary", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-stop-proc-")), "s.db");
    const sessionId = await newSession(path);
    const running = startWorker(path, "run", sessionId);
    await running.printed("STEP 1");
    const parent = parentRuntime(path);
    expect(await parent.runtime.stopTurn(sessionId, { reason: "user_pressed_stop" })).toBe(true);
    writeFileSync(`${path}.step1`, "");
    const outcome = await running.done;
    expect(outcome).toMatchObject({ status: "aborted", reason: "user_pressed_stop", calls: 1 });
    const end = (await parent.store.load(sessionId)).find(
      (r) => r.kind === "turn" && r.phase === "end" && r.runId === outcome.runId,
    );
    expect(end).toMatchObject({ status: "aborted", reason: "user_pressed_stop" });
    // Nothing runs any more: a second stop finds no turn.
    expect(await parent.runtime.stopTurn(sessionId)).toBe(false);
    await parent.runtime.close();
  });

  it("a message steered from another process is read by the running turn; the steering send resolves with its outcome", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-steer-proc-")), "s.db");
    const sessionId = await newSession(path);
    const running = startWorker(path, "run", sessionId);
    await running.printed("STEP 1");
    const parent = parentRuntime(path);
    const steering = parent.runtime.send({
      agentId: "worker",
      session: sessionId,
      content: "also the eggs",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await parent.store.load(sessionId)).some((r) => r.kind === "steer")).toBe(true);
    writeFileSync(`${path}.step1`, "");
    const outcome = await running.done;
    expect(outcome).toMatchObject({ status: "complete", text: "heard: also the eggs", calls: 2 });
    const steered = await steering;
    expect(steered).toMatchObject({ runId: outcome.runId, status: "complete", text: "heard: also the eggs" });
    expect(parent.provider.calls).toHaveLength(0);
    await parent.runtime.close();
  });

  it("a message sent with ifBusy: interrupt from another process stops the running turn, then runs", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-interrupt-proc-")), "s.db");
    const sessionId = await newSession(path);
    const running = startWorker(path, "run", sessionId);
    await running.printed("STEP 1");
    const parent = parentRuntime(path);
    const next = parent.runtime.send({
      agentId: "worker",
      session: sessionId,
      content: "do this instead",
      ifBusy: "interrupt",
    });
    await expect.poll(async () => (await parent.store.load(sessionId)).some((r) => r.kind === "stop")).toBe(true);
    writeFileSync(`${path}.step1`, "");
    expect(await running.done).toMatchObject({ status: "aborted", reason: "interrupted", calls: 1 });
    expect(await next).toMatchObject({ status: "complete", text: "parent heard: do this instead" });
    await parent.runtime.close();
  });

  it("a steered message outlives the process that ran the turn (SIGKILL): it runs once, as its own turn", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentry-steer-kill-")), "s.db");
    const sessionId = await newSession(path);
    const running = startWorker(path, "hang", sessionId);
    await running.printed("STEP 1");
    const parent = parentRuntime(path);
    const steering = parent.runtime.send({
      agentId: "worker",
      session: sessionId,
      content: "still there?",
      ifBusy: "steer",
    });
    await expect.poll(async () => (await parent.store.load(sessionId)).some((r) => r.kind === "steer")).toBe(true);
    running.child.kill("SIGKILL");
    await running.done.catch(() => undefined);
    const result = await steering;
    expect(result).toMatchObject({ status: "complete", text: "parent heard: still there?" });
    expect(parent.provider.calls).toHaveLength(1);
    const records = await parent.store.load(sessionId);
    // The killed turn was closed by the repair; the message ran once.
    const ends = records
      .filter((r) => r.kind === "turn" && r.phase === "end")
      .map((r) => (r as { status?: string }).status);
    expect(ends).toEqual(["error", "complete"]);
    expect(records.filter((r) => r.kind === "message" && text(r.message) === "still there?")).toHaveLength(1);
    await parent.runtime.close();
  });
});
