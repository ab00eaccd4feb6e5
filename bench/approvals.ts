/**
 * Approvals at scale (issue 10): `pendingApprovals()` and `resolveApproval()` from "another
 * process" (a second runtime with its own store connection and an empty cache, on the same SQLite
 * file) with 20 and with 20,000 sessions in the store. With the store's approval index both cost
 * the same whatever the number of sessions; the scan fallback (a store without the index) is
 * shown for comparison.
 *
 *   npx tsx bench/approvals.ts        (from the project root; imports ../src)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { z } from "zod";
import {
  createAgentRegistry,
  createAgentRuntime,
  defineTool,
  type AgentRuntime,
  type Message,
  type SessionStore,
} from "../src/index.js";
import { SqliteSessionStore } from "../src/entries/sqlite.js";
import { createFakeProvider, type FakeTurn } from "../src/entries/testing.js";

const SUSPENDED = 12;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const guarded = defineTool({
  name: "guarded",
  description: "Needs approval",
  input: z.object({}),
  requiresApproval: true,
  execute: () => "done",
});
const script = (request: { messages: Message[] }): FakeTurn => {
  const last = request.messages[request.messages.length - 1]!;
  if (last.role === "tool") return { text: "finished" };
  return last.role === "user" && last.content === "guarded please"
    ? { toolCalls: [{ name: "guarded", args: {} }] }
    : { text: "hello" };
};
const registry = createAgentRegistry([{ agentId: "bench", displayName: "Bench" }]);
const runtimeOn = (store: SessionStore): AgentRuntime =>
  createAgentRuntime({
    registry,
    store,
    providers: { fake: createFakeProvider(script, { record: false }) },
    defaultModel: "fake",
    tools: [guarded],
  });

/** Only the required `SessionStore` methods: what a store without the index capability offers. */
function withoutIndex(store: SessionStore): SessionStore {
  return {
    createSession: (init) => store.createSession(init),
    getSession: (id) => store.getSession(id),
    listSessions: (query) => store.listSessions(query),
    updateSession: (id, patch) => store.updateSession(id, patch),
    deleteSession: (id) => store.deleteSession(id),
    append: (id, records) => store.append(id, records),
    load: (id, options) => store.load(id, options),
    clear: (id) => store.clear(id),
  };
}

async function fill(path: string, sessions: number): Promise<void> {
  const database = new Database(path);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = OFF"); // filling only: the measured runtimes use their own connections
  const store = new SqliteSessionStore({ database });
  const runtime = runtimeOn(store);
  for (let i = 0; i < sessions - SUSPENDED; i++) {
    await runtime.send({ agentId: "bench", content: `hello ${i}`, session: "create", scope: `user-${i % 1000}` });
  }
  for (let i = 0; i < SUSPENDED; i++)
    await runtime.send({ agentId: "bench", content: "guarded please", session: "create", scope: `user-${i}` });
  await runtime.close();
  database.close();
}

async function measure(
  sessions: number,
  index: boolean,
): Promise<{ pending: number; pendingScope: number; resolve: number }> {
  const dir = mkdtempSync(join(tmpdir(), "agentry-approvals-bench-"));
  const path = join(dir, "sessions.db");
  try {
    await fill(path, sessions);
    const open = () => (index ? new SqliteSessionStore({ path }) : withoutIndex(new SqliteSessionStore({ path })));
    const host = runtimeOn(open());
    const rounds = index ? 30 : 3;
    const timeCall = async (call: () => Promise<unknown>) => {
      const samples: number[] = [];
      await call();
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        await call();
        samples.push(performance.now() - t0);
      }
      return median(samples);
    };
    const pending = await timeCall(() => host.pendingApprovals());
    const pendingScope = await timeCall(() => host.pendingApprovals({ scope: "user-3" }));
    const requests = (await host.pendingApprovals()).map((p) => p.requestId);
    if (requests.length !== SUSPENDED)
      throw new Error(`expected ${SUSPENDED} pending approvals, found ${requests.length}`);
    // Each resolve from a fresh runtime and connection: another process, knowing nothing.
    const resolves: number[] = [];
    for (const requestId of requests.slice(0, index ? SUSPENDED : 3)) {
      const store = open();
      const other = runtimeOn(store);
      const t0 = performance.now();
      const result = await other.resolveApproval(requestId, { approved: true });
      resolves.push(performance.now() - t0);
      if (result.status !== "complete") throw new Error(`resume ended ${result.status}`);
      await other.close();
    }
    await host.close();
    return { pending, pendingScope, resolve: median(resolves) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const rows: string[] = [];
  const results: Record<string, { pending: number; pendingScope: number; resolve: number }> = {};
  for (const sessions of [20, 20_000]) {
    for (const index of [true, false]) {
      const label = `${sessions.toLocaleString("en-US")} sessions, ${index ? "approval index" : "scan (no index)"}`;
      console.error(`measuring ${label}...`);
      const r = (results[label] = await measure(sessions, index));
      rows.push(
        `| ${label} | ${r.pending.toFixed(2)} ms | ${r.pendingScope.toFixed(2)} ms | ${r.resolve.toFixed(2)} ms |`,
      );
    }
  }
  console.log(
    "| store (SQLite file) | `pendingApprovals()` | `pendingApprovals({ scope })` | `resolveApproval()` from another runtime (incl. the resumed turn) |",
  );
  console.log("| --- | --- | --- | --- |");
  for (const row of rows) console.log(row);
  const small = results["20 sessions, approval index"]!;
  const large = results["20,000 sessions, approval index"]!;
  console.log(
    `\nratio 20,000 / 20 with the index: pendingApprovals ${(large.pending / small.pending).toFixed(2)}x, resolveApproval ${(large.resolve / small.resolve).toFixed(2)}x`,
  );
}

await main();
