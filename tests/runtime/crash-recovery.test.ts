import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry, createAgentRuntime, defineTool, type HistoryRecord, type SessionStore } from "@agentry/core";
import { JsonlSessionStore } from "@agentry/core/node";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";

const root = fileURLToPath(new URL("../..", import.meta.url));
const worker = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));

/** Starts the worker; resolves with its stdout when it exits, or kills it (SIGKILL) when `killOn` is printed. */
function runWorker(args: string[], killOn?: string): Promise<{ stdout: string; signal: NodeJS.Signals | null; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", worker, ...args], { cwd: root, env: { ...process.env, TSX_TSCONFIG_PATH: "tsconfig.tests.json" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killOn && stdout.includes(killOn)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code, signal) => (code && code !== 0 ? reject(new Error(`worker failed (${code}): ${stderr}`)) : resolve({ stdout, signal, code })));
  });
}

const stores: { kind: "jsonl" | "sqlite"; open: (path: string) => Promise<SessionStore & { close?: () => void }>; path: (dir: string) => string }[] = [
  { kind: "jsonl", open: async (path) => new JsonlSessionStore({ root: path }), path: (dir) => join(dir, "sessions") },
  {
    kind: "sqlite",
    open: async (path) => new (await import("@agentry/core/sqlite")).SqliteSessionStore({ path }),
    path: (dir) => join(dir, "sessions.db"),
  },
];

describe.each(stores)("crash recovery and restarts over the $kind store", { timeout: 90_000 }, ({ kind, open, path: pathIn }) => {
  it("a process killed (SIGKILL) mid tool call leaves a session the next turn repairs", async () => {
    const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-crash-")));
    const killed = await runWorker([kind, path, "crash"], "TOOL_STARTED");
    expect(killed.signal).toBe("SIGKILL");

    const store = await open(path);
    const [session] = await store.listSessions();
    const before = await store.load(session!.sessionId);
    expect(before.filter((r) => r.kind === "turn").map((r) => (r as { phase: string }).phase)).toEqual(["start"]);

    const provider = createFakeProvider([{ text: "recovered" }]);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "worker", displayName: "Worker" }]),
      store,
      providers: { fake: provider },
      defaultModel: "fake",
      tools: [defineTool({ name: "slow_write", description: "w", input: z.object({}), execute: () => "x" })],
    });
    const events: string[] = [];
    runtime.events.on("event", (e) => e.type === "warning" && events.push(e.code));
    const result = await runtime.send({ agentId: "worker", content: "are you there?", session: session!.sessionId });
    expect(result).toMatchObject({ status: "complete", text: "recovered" });
    expect(events).toContain("crash_recovered");
    const sent = provider.calls[0]!.messages;
    expect(historyProblems(sent)).toEqual([]);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(JSON.stringify(sent[2])).toMatch(/stopped before it finished/);
    const after = await store.load(session!.sessionId);
    const turns = after.filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn").map((r) => `${r.phase}:${r.status ?? ""}`);
    expect(turns).toEqual(["start:", "end:error", "start:", "end:complete"]);
    await runtime.close();
    store.close?.();
  });

  it("an approval suspended in one process is resolved in another; the tool runs once", async () => {
    const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-approve-")));
    const a = JSON.parse((await runWorker([kind, path, "suspend"])).stdout.trim()) as { status: string; requestId: string };
    expect(a.status).toBe("suspended");
    expect(existsSync(`${path}.marks`)).toBe(false);
    const b = JSON.parse((await runWorker([kind, path, "resolve", a.requestId])).stdout.trim()) as { status: string; text: string };
    expect(b).toEqual({ status: "complete", text: 'after tool: "after tool: \\"marked once\\""' });
    expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
    await expect(runWorker([kind, path, "resolve", a.requestId])).rejects.toThrow(/already resolved/);
    expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
  });
});
