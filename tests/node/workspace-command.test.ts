import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type RunCommandResult } from "@agentry/core/node";

// A command's descendants are tracked through /proc: Linux only. Elsewhere only the process group
// is killed (documented), which a `setsid` descendant escapes.
const linux = process.platform === "linux";

let base: string;
let policy: ToolPolicy;
const [, , , runCommand] = createWorkspaceTools({ commandAllowlist: ["sh"], commandTimeoutMs: 10_000 });
const run = (script: string, timeoutMs: number): Promise<RunCommandResult> =>
  runCommand!.execute!(
    { command: "sh", args: ["-c", script], cwd: ".", timeout_ms: timeoutMs },
    { toolCallId: "c", depth: 0, parentId: null, callKey: "test", signal: new AbortController().signal, policy },
  );

/** Alive and not a zombie (a zombie whose parent is gone waits for init, which may never reap it). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
/** Waits (boundedly: a failure detector, not a timing assertion) for `pid` to be gone. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !isAlive(pid);
}
const pidsIn = (text: string) => [...text.matchAll(/pid=(\d+)/g)].map((m) => Number(m[1]));
const killAll = (pids: number[]) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
};

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-cmd-"));
  await mkdir(join(base, "ws"));
  policy = defaultPolicy("thread", { workspaceRoot: join(base, "ws") });
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.skipIf(!linux)("run_command's time limit against descendants", () => {
  // `setsid` puts the grandchild in a new session and process group: killing the command's group
  // does not reach it, and it holds the output open, so waiting for the output to close would wait
  // for it (30 s here, past the test's own 20 s limit).
  const grandchild = `setsid sh -c 'echo pid=$$; exec sleep 30' &`;

  it("ends a setsid grandchild while the command still runs, and returns", async () => {
    const result = await run(`${grandchild} echo started; sleep 30`, 300);
    const pids = pidsIn(result.stdout);
    try {
      expect(result.timedOut).toBe(true);
      expect(result.stdout).toContain("started");
      expect(pids).toHaveLength(1);
      expect(await gone(pids[0]!)).toBe(true);
    } finally {
      killAll(pids);
    }
  });

  it("ends a setsid grandchild that keeps the output open after the command exited", async () => {
    const result = await run(`${grandchild} sleep 0.1; echo parent-done`, 300);
    const pids = pidsIn(result.stdout);
    try {
      expect(result).toMatchObject({ timedOut: true, exitCode: 0 });
      expect(result.stdout).toContain("parent-done");
      expect(pids).toHaveLength(1);
      expect(await gone(pids[0]!)).toBe(true);
    } finally {
      killAll(pids);
    }
  });

  it("kills descendants that ignore SIGTERM after the grace period", async () => {
    const stubborn = `setsid sh -c 'trap "" TERM; echo pid=$$; sleep 30; echo never' &`;
    const result = await run(`trap "" TERM; ${stubborn} echo pid=$$; sleep 30`, 300);
    const pids = pidsIn(result.stdout);
    try {
      expect(result.timedOut).toBe(true);
      expect(result.stdout).not.toContain("never");
      expect(pids).toHaveLength(2);
      for (const pid of pids) expect(await gone(pid)).toBe(true);
    } finally {
      killAll(pids);
    }
  });

  it("a command that exits normally still returns its result", async () => {
    const result = await run("echo out; echo err >&2; exit 4", 5_000);
    expect(result).toMatchObject({ exitCode: 4, timedOut: false, stdout: "out\n", stderr: "err\n" });
  });
});

describe.skipIf(process.platform === "win32")("run_command's working directory", () => {
  it("refuses a FIFO as working directory without blocking", async () => {
    execFileSync("mkfifo", [join(base, "ws", "fifo")]);
    await expect(
      runCommand!.execute!(
        { command: "sh", args: ["-c", "pwd"], cwd: "fifo" },
        { toolCallId: "c", depth: 0, parentId: null, callKey: "test", signal: new AbortController().signal, policy },
      ),
    ).rejects.toThrow(/"fifo" is not a directory/);
  });
});
