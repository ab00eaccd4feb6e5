import { execFileSync } from "node:child_process";
import { constants, closeSync, lstatSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type Tool, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type RunCommandResult } from "@agentry/core/node";
import { validateToolArgs } from "../../src/tools/validate-tool-args.js";

// Hostile workspaces: a concurrent attacker swapping directories for symlinks, and FIFOs. Linux
// (and other POSIX systems) only: Windows has neither FIFOs nor unprivileged symlinks.
const posix = process.platform !== "win32";

let base: string;
let policy: ToolPolicy;
const tools = createWorkspaceTools({ maxReadBytes: 1_000, commandAllowlist: ["pwd"] });
const tool = (name: string): Tool => tools.find((t) => t.name === name)!;

async function call(name: string, args: unknown): Promise<any> {
  const t = tool(name);
  const valid = validateToolArgs(t, args);
  if (!valid.ok) throw new Error(`invalid args: ${valid.message}`);
  return t.execute!(valid.value, {
    toolCallId: "c1",
    depth: 0,
    parentId: null,
    callKey: "test",
    signal: new AbortController().signal,
    policy,
  });
}
const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: error as Error }),
  );

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-ws-race-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/**
 * Swaps `<ws>/dir` between a real directory and a symlink to `outside`, as fast as it can, in a
 * worker thread (truly concurrent with the tools' file system calls), until told to stop.
 */
function startAttacker(ws: string) {
  const stop = new Int32Array(new SharedArrayBuffer(4));
  // Robust against the tools themselves creating a missing `dir` (write_file makes parents): any
  // directory at `dir` that is neither the real one nor the link is moved aside.
  const code = `
    const { lstatSync, renameSync } = require("node:fs");
    const { workerData } = require("node:worker_threads");
    const { ws, realIno, stop } = workerData;
    const j = (n) => ws + "/" + n;
    let strays = 0;
    const clear = () => {
      let info;
      try { info = lstatSync(j("dir")); } catch { return; }
      const to = info.isSymbolicLink() ? "link-parked" : info.ino === realIno ? "real-parked" : "stray-" + strays++;
      try { renameSync(j("dir"), j(to)); } catch {}
    };
    for (let swaps = 0; Atomics.load(stop, 0) === 0 && swaps < 20000000; swaps++) {
      clear();
      try { renameSync(j("link-parked"), j("dir")); } catch {}
      clear();
      try { renameSync(j("real-parked"), j("dir")); } catch {}
    }`;
  const worker = new Worker(code, { eval: true, workerData: { ws, realIno: lstatSync(join(ws, "dir")).ino, stop } });
  return async () => {
    Atomics.store(stop, 0, 1);
    await new Promise((resolve) => worker.once("exit", resolve));
  };
}

/**
 * `<name>/ws/dir` (to be swapped) and `<name>/outside`. `dir/sub` exists on both sides, so the
 * swapped component is sometimes the last one opened (O_NOFOLLOW's case) and sometimes an
 * intermediate one (only a check of the opened handle catches that).
 */
async function prepare(name: string) {
  const ws = join(base, name, "ws");
  const outside = join(base, name, "outside");
  for (const side of [join(ws, "dir"), outside]) await mkdir(join(side, "sub"), { recursive: true });
  for (const at of ["", "sub"]) {
    await writeFile(join(ws, "dir", at, "file"), "inside");
    await writeFile(join(outside, at, "file"), "SECRET");
    await writeFile(join(outside, at, "only-outside"), "");
  }
  const outsideBefore = await readdir(outside, { recursive: true });
  await symlink(outside, join(ws, "link-parked"));
  policy = defaultPolicy("thread", { workspaceRoot: ws });
  return { ws, outside, outsideBefore };
}

describe.skipIf(!posix)("confinement against a concurrent attacker in the workspace", () => {
  it(
    "never reads, lists or writes outside while a directory is swapped for a symlink",
    { timeout: 60_000 },
    async () => {
      const { ws, outside, outsideBefore } = await prepare("files");
      const stopAttacker = startAttacker(ws);
      const leaks: string[] = [];
      let succeeded = 0;
      try {
        for (let round = 0; round < 150; round++) {
          const reads: Promise<unknown>[] = [];
          const writes: Promise<unknown>[] = [];
          const lists: Promise<unknown>[] = [];
          for (const at of ["dir", "dir/sub"]) {
            reads.push(call("read_file", { path: `${at}/file` }), call("read_file", { path: `${at}/file` }));
            lists.push(call("list_directory", { path: at }));
            writes.push(
              call("write_file", { path: `${at}/written`, content: "w" }),
              call("write_file", { path: `${at}/new-${round}/f`, content: "w" }),
            );
          }
          const [read, listed, written] = await Promise.all(
            [reads, lists, writes].map((all) => Promise.all(all.map(settle))),
          );
          for (const result of [...read!, ...listed!, ...written!]) if (result.ok) succeeded++;
          for (const result of [...read!, ...listed!]) {
            if (result.ok && /SECRET|only-outside/.test(JSON.stringify(result.value)))
              leaks.push(`round ${round}: ${JSON.stringify(result.value)}`);
          }
        }
      } finally {
        await stopAttacker();
      }
      // A write that landed outside would show there; a read or listing from outside shows its markers.
      expect((await readdir(outside, { recursive: true })).sort()).toEqual(outsideBefore.sort());
      expect(await readFile(join(outside, "sub", "file"), "utf8")).toBe("SECRET");
      expect(leaks).toEqual([]);
      // The race really was run: calls got through (the attacker does not make every call fail).
      expect(succeeded).toBeGreaterThan(0);
    },
  );

  // Without /proc (macOS, Windows) confinement against a concurrent swap is narrowed, not
  // guaranteed (Node has no openat): that mode is tested against symlinks at rest in
  // workspace-fs.test.ts, not here.

  // Generous limits: these loops run hundreds of calls on a possibly busy machine.
  it("never starts a command outside while a directory is swapped for a symlink", { timeout: 60_000 }, async () => {
    const { ws } = await prepare("commands");
    const realWs = await realpath(ws);
    const stopAttacker = startAttacker(ws);
    const escaped: string[] = [];
    let started = 0;
    try {
      for (let round = 0; round < 50; round++) {
        const results = await Promise.all(
          ["dir", "dir/sub", "dir", "dir/sub"].map((cwd) => settle(call("run_command", { command: "pwd", cwd }))),
        );
        for (const result of results) {
          if (!result.ok) continue;
          started++;
          const cwd = (result.value as RunCommandResult).stdout.trim();
          if (!cwd.startsWith(`${realWs}/`)) escaped.push(cwd);
        }
      }
    } finally {
      await stopAttacker();
    }
    expect(escaped).toEqual([]);
    expect(started).toBeGreaterThan(0);
  });
});

describe.skipIf(!posix)("FIFOs and other non-regular files", () => {
  const fifos: string[] = [];
  afterEach(() => {
    // Releases any writer that an implementation left blocked in open() (the old bug).
    for (const fifo of fifos.splice(0)) closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
  });

  it("refuses to read or write a FIFO without blocking a thread, however many calls ask", async () => {
    const ws = join(base, "fifo-ws");
    await mkdir(ws);
    await writeFile(join(ws, "plain.txt"), "still works");
    const fifo = join(ws, "pipe");
    execFileSync("mkfifo", [fifo]);
    fifos.push(fifo);
    policy = defaultPolicy("thread", { workspaceRoot: ws });

    const calls = Array.from({ length: 8 }, (_, i) =>
      settle(i % 2 === 0 ? call("write_file", { path: "pipe", content: "x" }) : call("read_file", { path: "pipe" })),
    );
    // A failure detector, not a timing assertion: a blocked open never settles.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 10_000)));
    try {
      const results = await Promise.race([Promise.all(calls), hung]);
      expect(results).not.toBe("hung");
      for (const result of results as Awaited<(typeof calls)[number]>[]) {
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.message).toMatch(/"pipe": not a regular file/);
      }
      // No libuv thread is left pinned: ordinary file operations still complete.
      const plain = await Promise.race([readFile(join(ws, "plain.txt"), "utf8"), hung]);
      expect(plain).toBe("still works");
    } finally {
      clearTimeout(timer);
    }
  });
});
