import { execFileSync } from "node:child_process";
import { constants, closeSync, lstatSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type Tool, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools } from "@agentry/core/node";
import { validateToolArgs } from "../../src/tools/validate-tool-args.js";

// Hostile workspaces: a concurrent attacker swapping directories for symlinks, and FIFOs. Linux
// (and other POSIX systems) only: Windows has neither FIFOs nor unprivileged symlinks.
const posix = process.platform !== "win32";

let base: string;
let policy: ToolPolicy;
const tools = createWorkspaceTools({ maxReadBytes: 1_000 });
const tool = (name: string): Tool => tools.find((t) => t.name === name)!;

async function call(name: string, args: unknown): Promise<any> {
  const t = tool(name);
  const valid = validateToolArgs(t, args);
  if (!valid.ok) throw new Error(`invalid args: ${valid.message}`);
  return t.execute(valid.value, { toolCallId: "c1", depth: 0, parentId: null, signal: new AbortController().signal, policy });
}
const settle = (promise: Promise<unknown>) => promise.then(
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

describe.skipIf(!posix)("confinement against a concurrent attacker in the workspace", () => {
  it("never reads, lists or writes outside while a directory is swapped for a symlink", async () => {
    const ws = join(base, "ws");
    const outside = join(base, "outside");
    await mkdir(join(ws, "dir"), { recursive: true });
    await mkdir(outside);
    await writeFile(join(ws, "dir", "file"), "inside");
    await writeFile(join(outside, "file"), "SECRET");
    await writeFile(join(outside, "only-outside"), "");
    await symlink(outside, join(ws, "link-parked"));
    policy = defaultPolicy("thread", { workspaceRoot: ws });

    const stopAttacker = startAttacker(ws);
    const leaks: string[] = [];
    let readsOk = 0;
    let writesOk = 0;
    try {
      for (let round = 0; round < 300; round++) {
        const reads = Array.from({ length: 4 }, () => settle(call("read_file", { path: "dir/file" })));
        const lists = Array.from({ length: 2 }, () => settle(call("list_directory", { path: "dir" })));
        const writes = [
          settle(call("write_file", { path: "dir/written", content: "w" })),
          settle(call("write_file", { path: `dir/new-${round}/f`, content: "w" })),
        ];
        for (const read of await Promise.all(reads)) {
          if (!read.ok) continue;
          readsOk++;
          if (JSON.stringify(read.value).includes("SECRET")) leaks.push(`read ${round}`);
        }
        for (const list of await Promise.all(lists)) if (list.ok && JSON.stringify(list.value).includes("only-outside")) leaks.push(`list ${round}`);
        for (const write of await Promise.all(writes)) if (write.ok) writesOk++;
      }
    } finally {
      await stopAttacker();
    }
    // Every write that landed outside shows up there; each call either stayed inside or failed.
    if (process.env.RACE_DEBUG) console.log({ readsOk, writesOk, leaks, outside: await readdir(outside) });
    expect(await readFile(join(outside, "file"), "utf8")).toBe("SECRET");
    expect((await readdir(outside)).sort()).toEqual(["file", "only-outside"]);
    expect(leaks).toEqual([]);
    // The race really was run: some calls got through (the attacker does not block everything).
    expect(readsOk + writesOk).toBeGreaterThan(0);
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
