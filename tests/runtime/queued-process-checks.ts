import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import type { SessionStore } from "@agentry/core";
import { bundleForNode } from "../helpers/bundle-for-node.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** A hung child fails its test after this (far above what a run takes). */
const CHILD_LIMIT_MS = 60_000;

/** fixtures/queue-worker.ts, bundled once (each child then starts with plain `node`). */
export interface QueueWorker {
  path: string;
  remove: () => void;
}

export async function bundleQueueWorker(): Promise<QueueWorker> {
  const require = createRequire(join(root, "package.json"));
  // Native or optional-native packages stay outside the bundle, loaded from this checkout.
  const outside = new Map(["better-sqlite3", "pg"].map((name) => [name, require.resolve(name)]));
  return bundleForNode(fileURLToPath(new URL("./fixtures/queue-worker.ts", import.meta.url)), {
    plugins: [
      {
        name: "native-outside",
        setup: (plugin) =>
          void plugin.onResolve({ filter: /^(better-sqlite3|pg)$/ }, (args) => ({
            path: outside.get(args.path)!,
            external: true,
          })),
      },
    ],
  });
}

/** Where one check runs: the worker's first arguments (kind, path), its environment, a store on the same data. */
export interface QueuePlace {
  args: string[];
  env: Record<string, string>;
  store: SessionStore;
  /** The lines the workers appended to the marks file. */
  marks: () => string;
}

interface Child {
  /** Resolves with stdout when the child exits (or was killed on `killOn`). */
  done: Promise<string>;
  /** Resolves once the child printed READY. */
  ready: Promise<void>;
  go: () => void;
}

function start(worker: QueueWorker, place: QueuePlace, args: string[], killOn?: string): Child {
  const child = spawn(process.execPath, [worker.path, ...place.args, ...args], {
    cwd: root,
    env: { ...process.env, ...place.env },
  });
  let stdout = "";
  let stderr = "";
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const done = new Promise<string>((resolve, reject) => {
    const limit = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`queue worker ${args.join(" ")} still running; stdout: ${stdout}; stderr: ${stderr}`));
    }, CHILD_LIMIT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes("READY")) onReady();
      if (killOn !== undefined && stdout.includes(killOn)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("exit", (code, signal) => {
      clearTimeout(limit);
      if (code === 0 || (killOn !== undefined && signal === "SIGKILL")) resolve(stdout);
      else reject(new Error(`queue worker ${args.join(" ")} failed (${code ?? signal}): ${stderr}`));
    });
  });
  return { done, ready, go: () => child.stdin.write("GO\n") };
}

/** The JSON line of a child's stdout (its last one, or the one before `before`). */
function json<T>(stdout: string, before?: string): T {
  const lines = stdout.trim().split("\n");
  const end = before === undefined ? lines.length : lines.indexOf(before);
  return JSON.parse(lines[end - 1]!) as T;
}

/** The root conversation's user messages and answers, as `role: text`. */
async function transcript(store: SessionStore, sessionId: string): Promise<string[]> {
  return (await store.load(sessionId)).flatMap((r) => {
    if (r.kind !== "message" || r.frame !== null || r.message.role === "tool") return [];
    const text =
      typeof r.message.content === "string"
        ? r.message.content
        : r.message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    return text === "" ? [] : [`${r.message.role}: ${text}`];
  });
}

/** Suspends a turn on an approval, then queues `n` messages in a process that is SIGKILLed once they are stored. */
async function suspendAndQueue(worker: QueueWorker, place: QueuePlace, n: number) {
  const { sessionId, requestId } = json<{ sessionId: string; requestId: string }>(
    await start(worker, place, ["suspend"]).done,
  );
  const accepted = await start(worker, place, ["queue", sessionId, String(n)], "QUEUED").done;
  const { statuses } = json<{ statuses: string[] }>(accepted, "QUEUED");
  return { sessionId, requestId, statuses };
}

/**
 * The checks every store that runs in several processes passes: a queued message survives the
 * SIGKILL of the process that accepted it, runs in the process that decides, and runs exactly once
 * in arrival order however processes race or die.
 */
export function queuedProcessChecks(worker: () => QueueWorker, place: () => QueuePlace): void {
  it("a message queued in a process that is then SIGKILLed survives, and runs in the process that decides, in order, once", async () => {
    const at = place();
    const { sessionId, requestId, statuses } = await suspendAndQueue(worker(), at, 3);
    expect(statuses).toEqual(["queued", "queued", "queued"]);
    const decided = json<{ status: string; ran: string[]; latencyMs: number; problems: string[] }>(
      await start(worker(), at, ["decide", requestId, "3"]).done,
    );
    expect(decided).toMatchObject({
      status: "complete",
      ran: ["re: queued 0", "re: queued 1", "re: queued 2"],
      problems: [],
    });
    // The model request of the first queued message was made by the deciding process.
    expect(decided.latencyMs).toBeGreaterThan(0);
    expect(at.marks()).toBe("approved\nqueued 0\nqueued 1\nqueued 2\n");
    expect(await transcript(at.store, sessionId)).toEqual([
      "user: write please",
      "assistant: written it",
      "user: queued 0",
      "assistant: re: queued 0",
      "user: queued 1",
      "assistant: re: queued 1",
      "user: queued 2",
      "assistant: re: queued 2",
    ]);
  });

  it("two processes racing to release after the decider died: the decision resumes once, each queued message runs once, in order", async () => {
    const at = place();
    const { sessionId, requestId } = await suspendAndQueue(worker(), at, 3);
    await start(worker(), at, ["decide-and-die", requestId]).done;
    const racers = [start(worker(), at, ["race", sessionId, "a"]), start(worker(), at, ["race", sessionId, "b"])];
    await Promise.all(racers.map((racer) => racer.ready));
    for (const racer of racers) racer.go();
    const outcomes = (await Promise.all(racers.map((racer) => racer.done))).map((stdout) =>
      json<{ status: string; problems: string[] }>(stdout),
    );
    expect(outcomes).toEqual([
      { status: "complete", problems: [] },
      { status: "complete", problems: [] },
    ]);
    expect(at.marks()).toBe("approved\nqueued 0\nqueued 1\nqueued 2\n");
    const lines = await transcript(at.store, sessionId);
    expect(lines.slice(0, 8)).toEqual([
      "user: write please",
      "assistant: written it",
      "user: queued 0",
      "assistant: re: queued 0",
      "user: queued 1",
      "assistant: re: queued 1",
      "user: queued 2",
      "assistant: re: queued 2",
    ]);
    expect(lines.slice(8).sort()).toEqual([
      "assistant: re: racer a",
      "assistant: re: racer b",
      "user: racer a",
      "user: racer b",
    ]);
  });

  it("a process SIGKILLed after its queued turn started loses nothing and doubles nothing: the next process continues that turn", async () => {
    const at = place();
    const { sessionId, requestId } = await suspendAndQueue(worker(), at, 2);
    await start(worker(), at, ["decide-and-hang", requestId], "CLAIMED").done;
    const racer = start(worker(), at, ["race", sessionId, "a"]);
    await racer.ready;
    racer.go();
    expect(json<{ status: string; problems: string[] }>(await racer.done)).toEqual({
      status: "complete",
      problems: [],
    });
    // Asked once in the killed process (never answered), once by the continuation.
    expect(at.marks()).toBe("approved\nqueued 0\nqueued 0\nqueued 1\n");
    expect(await transcript(at.store, sessionId)).toEqual([
      "user: write please",
      "assistant: written it",
      "user: queued 0",
      "assistant: re: queued 0",
      "user: queued 1",
      "assistant: re: queued 1",
      "user: racer a",
      "assistant: re: racer a",
    ]);
  });
}
