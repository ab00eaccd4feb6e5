import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  type HistoryRecord,
  type SessionStore,
} from "@agentry/core";
import { JsonlSessionStore } from "@agentry/core/node";
import { createFakeProvider, historyProblems } from "@agentry/core/testing";
import { bundleForNode } from "../helpers/bundle-for-node.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const workerSource = fileURLToPath(new URL("./fixtures/worker.ts", import.meta.url));

/**
 * Limits for a hung child, far above what a run takes even on a loaded machine: they turn a hang
 * into a clear failure, and are not what a passing run depends on. Each test starts up to 3 children.
 */
const WORKER_LIMIT_MS = 60_000;
const TEST_LIMIT_MS = 3 * WORKER_LIMIT_MS + 10_000;

/**
 * The worker, bundled once into one plain JavaScript file (esbuild, the compiler tsx uses): each
 * child then starts with plain `node`, without transpiling the sources again through a loader.
 * Starting every child through tsx took seconds apiece on a loaded machine, and three of them in
 * one test ran past the test time limit. better-sqlite3 (native) stays outside the bundle.
 */
let worker: string;
let removeBundle: (() => void) | undefined;
beforeAll(async () => {
  const betterSqlite3 = createRequire(join(root, "package.json")).resolve("better-sqlite3");
  const bundle = await bundleForNode(workerSource, {
    plugins: [
      {
        name: "native-outside",
        setup(plugin) {
          plugin.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: betterSqlite3, external: true }));
        },
      },
    ],
  });
  worker = bundle.path;
  removeBundle = bundle.remove;
}, WORKER_LIMIT_MS);
afterAll(() => removeBundle?.());

/**
 * Starts the worker; resolves with its stdout when it exits, or kills it (SIGKILL) as soon as it
 * prints `killOn` (the child says when it is where the test wants it; no sleeping).
 */
function runWorker(
  args: string[],
  killOn?: string,
): Promise<{ stdout: string; signal: NodeJS.Signals | null; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, ...args], { cwd: root });
    let stdout = "";
    let stderr = "";
    const limit = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `worker ${args.join(" ")} still running after ${WORKER_LIMIT_MS} ms; stdout: ${stdout}; stderr: ${stderr}`,
        ),
      );
    }, WORKER_LIMIT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (killOn && stdout.includes(killOn)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => {
      clearTimeout(limit);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
      if (code && code !== 0) reject(new Error(`worker failed (${code}): ${stderr}`));
      else resolve({ stdout, signal, code });
    });
  });
}

const stores: {
  kind: "jsonl" | "sqlite";
  open: (path: string) => Promise<SessionStore & { close?: () => void }>;
  path: (dir: string) => string;
}[] = [
  { kind: "jsonl", open: async (path) => new JsonlSessionStore({ root: path }), path: (dir) => join(dir, "sessions") },
  {
    kind: "sqlite",
    open: async (path) => new (await import("@agentry/core/sqlite")).SqliteSessionStore({ path }),
    path: (dir) => join(dir, "sessions.db"),
  },
];

describe.each(stores)("crash recovery and restarts over the $kind store", ({ kind, open, path: pathIn }) => {
  it(
    "a process killed (SIGKILL) mid tool call leaves a session the next turn repairs",
    { timeout: TEST_LIMIT_MS },
    async () => {
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
      const turns = after
        .filter((r): r is Extract<HistoryRecord, { kind: "turn" }> => r.kind === "turn")
        .map((r) => `${r.phase}:${r.status ?? ""}`);
      expect(turns).toEqual(["start:", "end:error", "start:", "end:complete"]);
      await runtime.close();
      store.close?.();
    },
  );

  it(
    "an edit killed (SIGKILL) mid-turn: its rewind was stored with the turn, and the next turn repairs it on the edited message",
    { timeout: TEST_LIMIT_MS },
    async () => {
      const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-edit-crash-")));
      const setup = await open(path);
      const { sessionId } = await setup.createSession({ agentId: "worker" });
      await setup.append(sessionId, [
        { id: "u0", kind: "message", frame: null, message: { role: "user", content: "hello" }, messageId: "m1" },
        {
          id: "a0",
          kind: "message",
          frame: null,
          message: { role: "assistant", content: [{ type: "text", text: "hi" }] },
        },
      ]);
      setup.close?.();
      const killed = await runWorker([kind, path, "edit-crash", sessionId], "TOOL_STARTED");
      expect(killed.signal).toBe("SIGKILL");

      const store = await open(path);
      const stored = await store.load(sessionId);
      const start = stored.find((r) => r.kind === "turn")!;
      const rewind = stored.find((r) => r.kind === "rewind")!;
      // One append: the rewind right before the turn's start, the edited message right after it.
      expect(rewind).toMatchObject({ before: "m1", cause: "edit", seq: start.seq - 1 });
      expect(stored[stored.indexOf(start) + 1]).toMatchObject({
        messageId: "m1",
        message: { content: "crash please" },
      });

      const provider = createFakeProvider([{ text: "recovered" }]);
      const runtime = createAgentRuntime({
        registry: createAgentRegistry([{ agentId: "worker", displayName: "Worker" }]),
        store,
        providers: { fake: provider },
        defaultModel: "fake",
        tools: [defineTool({ name: "slow_write", description: "w", input: z.object({}), execute: () => "x" })],
      });
      const result = await runtime.send({ agentId: "worker", content: "are you there?", session: sessionId });
      expect(result).toMatchObject({ status: "complete", text: "recovered" });
      const sent = provider.calls[0]!.messages;
      expect(historyProblems(sent)).toEqual([]);
      expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
      expect(sent[0]).toMatchObject({ role: "user", content: "crash please" });
      expect(JSON.stringify(sent)).not.toContain("hello");
      await runtime.close();
      store.close?.();
    },
  );

  it(
    "an approval suspended in one process is resolved in another; the tool runs once",
    { timeout: TEST_LIMIT_MS },
    async () => {
      const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-approve-")));
      const a = JSON.parse((await runWorker([kind, path, "suspend"])).stdout.trim()) as {
        status: string;
        requestId: string;
      };
      expect(a.status).toBe("suspended");
      expect(existsSync(`${path}.marks`)).toBe(false);
      const b = JSON.parse((await runWorker([kind, path, "resolve", a.requestId])).stdout.trim()) as {
        status: string;
        text: string;
      };
      expect(b).toEqual({ status: "complete", text: 'after tool: "after tool: \\"marked once\\""' });
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
      await expect(runWorker([kind, path, "resolve", a.requestId])).rejects.toThrow(/already resolved/);
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
    },
  );

  it(
    "compacted in another process while it waits on an approval: resolved in a third, the tool runs once",
    { timeout: 4 * WORKER_LIMIT_MS + 10_000 },
    async () => {
      const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-compact-")));
      const { sessionId } = JSON.parse((await runWorker([kind, path, "plain"])).stdout.trim()) as { sessionId: string };
      const a = JSON.parse((await runWorker([kind, path, "suspend-late", sessionId])).stdout.trim()) as {
        status: string;
        requestId: string;
      };
      expect(a.status).toBe("suspended");
      const compacted = JSON.parse((await runWorker([kind, path, "compact", sessionId])).stdout.trim()) as {
        compacted: boolean;
        summarizedMessages: number;
      };
      // Two plain turns are summarized; the third and the waiting one stay (keepRecentTurns 2).
      expect(compacted).toMatchObject({ compacted: true, summarizedMessages: 4 });
      const b = JSON.parse((await runWorker([kind, path, "resolve", a.requestId])).stdout.trim()) as {
        status: string;
        text: string;
      };
      expect(b).toEqual({ status: "complete", text: 'after tool: "after tool: \\"marked once\\""' });
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
      await expect(runWorker([kind, path, "resolve", a.requestId])).rejects.toThrow(/already resolved/);
      expect(readFileSync(`${path}.marks`, "utf8")).toBe("once\n");
    },
  );

  it(
    "a process killed (SIGKILL) while it writes a compaction's summary leaves nothing half done",
    { timeout: TEST_LIMIT_MS },
    async () => {
      const path = pathIn(mkdtempSync(join(tmpdir(), "agentry-compact-crash-")));
      const { sessionId } = JSON.parse((await runWorker([kind, path, "plain"])).stdout.trim()) as { sessionId: string };
      const killed = await runWorker([kind, path, "compact-crash", sessionId], "SUMMARY_STARTED");
      expect(killed.signal).toBe("SIGKILL");

      const store = await open(path);
      const records = await store.load(sessionId);
      // The summary is written before the turn starts: nothing of the killed turn is stored.
      expect(records.some((r) => r.kind === "compaction")).toBe(false);
      expect(records.filter((r) => r.kind === "turn")).toHaveLength(6);
      const provider = createFakeProvider((request) =>
        request.caller?.purpose === "compaction" ? { text: "## Goal\n- hello" } : { text: "back" },
      );
      const runtime = createAgentRuntime({
        registry: createAgentRegistry([{ agentId: "worker", displayName: "Worker" }]),
        store,
        providers: { fake: provider },
        defaultModel: "fake",
        compaction: { triggerTokens: 1, keepRecentTurns: 1 },
      });
      const result = await runtime.send({ agentId: "worker", content: "hello 5", session: sessionId });
      expect(result).toMatchObject({ status: "complete", text: "back" });
      const sent = provider.calls.at(-1)!.messages;
      expect(historyProblems(sent)).toEqual([]);
      expect(sent.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
        expect.stringContaining("## Goal"),
        "hello 5",
      ]);
      // The summary covers the stored turns, never the killed turn's message (it was not stored).
      const asked = JSON.stringify(provider.calls.find((c) => c.caller?.purpose === "compaction")!.messages);
      expect(asked).toContain("hello 3");
      expect(asked).not.toContain("hello 4");
      await runtime.close();
      store.close?.();
    },
  );
});
