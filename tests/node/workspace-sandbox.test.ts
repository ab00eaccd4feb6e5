import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import {
  createWorkspaceTools,
  SandboxUnavailableError,
  type RunCommandResult,
  type WorkspaceSandbox,
} from "@agentry/core/node";
import { callTool } from "./workspace-helpers.js";

// Namespaces are Linux-only; CI runs as root, which can make them with or without a user namespace.
const linux = process.platform === "linux";
const root = typeof process.getuid === "function" && process.getuid() === 0;

let base: string;
let ws: string;
let policy: ToolPolicy;
let server: Server;
let port: number;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-sandbox-test-"));
  ws = join(base, "ws");
  await mkdir(ws);
  policy = defaultPolicy("thread", { workspaceRoot: ws });
  policy = { ...policy, classes: [...policy.classes, "execute"] };
  server = createServer((socket) => socket.on("error", () => {}).end("hello"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(base, { recursive: true, force: true });
});

const connectScript = (target: number) =>
  `require("net").connect(${target}, "127.0.0.1").on("connect", () => { console.log("connected"); process.exit(0); })` +
  `.on("error", (e) => { console.log("refused " + e.code); process.exit(2); })`;

function tools(sandbox: WorkspaceSandbox) {
  return createWorkspaceTools({ commandAllowlist: ["sh", process.execPath], commandTimeoutMs: 20_000, sandbox });
}
const sh = (list: ReturnType<typeof tools>, script: string, timeoutMs?: number): Promise<RunCommandResult> =>
  callTool(
    list,
    "run_command",
    { command: "sh", args: ["-c", script], ...(timeoutMs ? { timeout_ms: timeoutMs } : {}) },
    policy,
  );

describe.skipIf(!linux)("run_command without a sandbox (the baseline the sandbox changes)", () => {
  it("can write outside the workspace and reach the network", async () => {
    const list = tools("none");
    const outside = join(base, "written-by-plain");
    expect((await sh(list, `echo x > '${outside}'`)).exitCode).toBe(0);
    expect((await stat(outside)).isFile()).toBe(true);
    const net = await callTool(
      list,
      "run_command",
      { command: process.execPath, args: ["-e", connectScript(port)] },
      policy,
    );
    expect(net.stdout).toContain("connected");
  });
});

const modes: [string, WorkspaceSandbox][] = [
  ["in a user namespace", { kind: "namespaces", userNamespace: true }],
  ...(root
    ? [
        ["as root, without a user namespace", { kind: "namespaces", userNamespace: false }] as [
          string,
          WorkspaceSandbox,
        ],
      ]
    : []),
];

describe.skipIf(!linux).each(modes)("run_command sandboxed with namespaces, %s", (_name, sandbox) => {
  const list = linux ? tools(sandbox) : [];

  it("writes inside the workspace, in the working directory it was given", async () => {
    await mkdir(join(ws, "sub"), { recursive: true });
    const result = await callTool(
      list,
      "run_command",
      { command: "sh", args: ["-c", "echo inside > made.txt; pwd"], cwd: "sub" },
      policy,
    );
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(ws, "sub", "made.txt"), "utf8")).toBe("inside\n");
  });

  it("cannot write outside the workspace, nor remount to make it writable", async () => {
    const outside = join(base, "escape.txt");
    const write = await sh(list, `echo x > '${outside}'`);
    expect(write.exitCode).not.toBe(0);
    expect(write.stderr).toMatch(/Read-only file system/);
    const remount = await sh(list, `mount -o remount,rw / && echo x > '${outside}'`);
    expect(remount.exitCode).not.toBe(0);
    const shm = await sh(list, "echo x > /dev/shm/agentry-sandbox-escape");
    expect(shm.exitCode).not.toBe(0);
    await expect(stat(outside)).rejects.toThrow();
  });

  it("has no network: a server on the host's loopback is unreachable", async () => {
    const net = await callTool(
      list,
      "run_command",
      { command: process.execPath, args: ["-e", connectScript(port)] },
      policy,
    );
    expect(net.stdout).not.toContain("connected");
    expect(net.stdout).toMatch(/refused E/);
  });

  it("sees only its own processes", async () => {
    const result = await sh(
      list,
      `test -e /proc/${process.pid}/environ && echo visible || echo hidden; ls /proc | grep -c '^[0-9]'`,
    );
    expect(result.stdout).toContain("hidden");
    expect(Number(result.stdout.trim().split("\n").pop())).toBeLessThan(10);
  });

  it("still stops a command at its time limit", async () => {
    const result = await sh(list, "echo started; sleep 30", 300);
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toContain("started");
  });
});

describe.skipIf(!linux)("the sandbox's own programs", () => {
  it("are found once, on the host's PATH: a command environment without PATH still runs sandboxed", async () => {
    const list = createWorkspaceTools({ commandAllowlist: ["/bin/sh"], commandEnv: {}, sandbox: "namespaces" });
    const result = await callTool(
      list,
      "run_command",
      { command: "/bin/sh", args: ["-c", `echo x > '${join(base, "no-path.txt")}'`] },
      policy,
    );
    expect(result.stderr).toMatch(/Read-only file system/);
    await expect(stat(join(base, "no-path.txt"))).rejects.toThrow();
  });
});

describe.skipIf(!linux)("a sandbox that cannot work here", () => {
  it("is a SandboxUnavailableError when the tools are created, not at the first call", () => {
    const saved = process.env.PATH;
    process.env.PATH = join(base, "no-such-dir");
    try {
      expect(() => createWorkspaceTools({ sandbox: "namespaces" })).toThrow(SandboxUnavailableError);
      expect(() => createWorkspaceTools({ sandbox: "namespaces" })).toThrow(/unshare/);
    } finally {
      process.env.PATH = saved;
    }
  });
});
