import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeToolbelt, defaultPolicy, type Tool, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type RunCommandResult } from "@agentry/core/node";
import { validateToolArgs } from "../../src/tools/validate-tool-args.js";

let base: string;
let root: string;
let outside: string;
let policy: ToolPolicy;
const canSymlink = process.platform !== "win32";

const tools = createWorkspaceTools({ commandAllowlist: ["node"], maxReadBytes: 64, commandTimeoutMs: 10_000 });
const tool = (name: string): Tool => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

/** Calls a tool the way the loop does: validate (applying defaults), then execute. */
async function call(
  name: string,
  args: unknown,
  options: { policy?: ToolPolicy; signal?: AbortSignal } = {},
): Promise<any> {
  const t = tool(name);
  const valid = validateToolArgs(t, args);
  if (!valid.ok) throw new Error(`invalid args: ${valid.message}`);
  const signal = options.signal ?? new AbortController().signal;
  return t.execute!(valid.value, {
    toolCallId: "c1",
    depth: 0,
    parentId: null,
    callKey: "test",
    signal,
    policy: options.policy ?? policy,
  });
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-ws-"));
  root = join(base, "ws");
  outside = join(base, "outside");
  await mkdir(join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "a.txt"), "hello workspace");
  await writeFile(join(root, "sub", "b.txt"), "nested");
  await writeFile(join(outside, "secret.txt"), "SECRET");
  if (canSymlink) {
    await symlink(outside, join(root, "link-out"));
    await symlink(join(outside, "secret.txt"), join(root, "file-link"));
    await symlink(join(outside, "not-yet.txt"), join(root, "dangling"));
    await symlink(join(root, "sub"), join(root, "link-in"));
  }
  policy = defaultPolicy("thread", { workspaceRoot: root });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("workspace tool declarations", () => {
  it("declares permission classes, concurrency and locks", () => {
    expect(tools.map((t) => [t.name, t.permissionClass, t.parallelSafe])).toEqual([
      ["read_file", "workspace_read", true],
      ["list_directory", "workspace_read", true],
      ["write_file", ["workspace_write", "workspace_create"], false],
      ["run_command", "execute", false],
      ["search_files", "workspace_read", true],
      ["git_status", "workspace_read", true],
      ["git_diff", "workspace_read", true],
      ["apply_patch", ["workspace_read", "workspace_write"], false],
      ["delete_file", "workspace_delete", false],
    ]);
    for (const name of ["write_file", "apply_patch", "delete_file", "run_command"])
      expect(tool(name).exclusiveLock).toBe("workspace_fs");
  });

  it("defaultPolicy offers every tool but delete_file and run_command (workspace_delete and execute are opt-in)", () => {
    const offered = composeToolbelt({ tools, policy }).map((t) => t.name);
    expect(offered).toEqual([
      "read_file",
      "list_directory",
      "write_file",
      "search_files",
      "git_status",
      "git_diff",
      "apply_patch",
    ]);
  });
});

describe("delete_file", () => {
  const deleting = () => ({ ...policy, classes: [...policy.classes, "workspace_delete"] });

  it("deletes a regular file, and refuses directories, missing files and the root", async () => {
    await writeFile(join(root, "doomed.txt"), "bye");
    expect(await call("delete_file", { path: "doomed.txt" }, { policy: deleting() })).toEqual({
      path: "doomed.txt",
      deleted: true,
    });
    await expect(readFile(join(root, "doomed.txt"))).rejects.toThrow();
    await expect(call("delete_file", { path: "sub" }, { policy: deleting() })).rejects.toThrow(/is a directory/);
    await expect(call("delete_file", { path: "doomed.txt" }, { policy: deleting() })).rejects.toThrow(/no such file/);
    await expect(call("delete_file", { path: "." }, { policy: deleting() })).rejects.toThrow(/is a directory/);
  });

  it.skipIf(!canSymlink)(
    "is confined: paths and symlinks leading outside are refused, the outside file stays",
    async () => {
      await expect(call("delete_file", { path: "../outside/secret.txt" }, { policy: deleting() })).rejects.toThrow(
        /outside the workspace/,
      );
      await expect(call("delete_file", { path: "file-link" }, { policy: deleting() })).rejects.toThrow(
        /outside the workspace/,
      );
      await expect(call("delete_file", { path: "link-out/secret.txt" }, { policy: deleting() })).rejects.toThrow(
        /outside the workspace/,
      );
      expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
    },
  );
});

describe("git metadata", () => {
  it("write_file and delete_file never touch .git, in any letter case", async () => {
    await mkdir(join(root, ".git"), { recursive: true });
    await writeFile(join(root, ".git", "config"), "[core]\n");
    await expect(
      call("write_file", { path: ".git/config", content: "[core]\n\tfsmonitor = /bin/evil\n" }),
    ).rejects.toThrow(/inside \.git/);
    await expect(call("write_file", { path: "sub/.GIT/hooks/x", content: "" })).rejects.toThrow(/inside \.git/);
    await expect(call("write_file", { path: ".git", content: "gitdir: /elsewhere" })).rejects.toThrow(/inside \.git/);
    const deleting = { ...policy, classes: [...policy.classes, "workspace_delete"] };
    await expect(call("delete_file", { path: ".git/config" }, { policy: deleting })).rejects.toThrow(/inside \.git/);
    expect(await readFile(join(root, ".git", "config"), "utf8")).toBe("[core]\n");
    if (canSymlink) {
      await symlink(join(root, ".git"), join(root, "meta"));
      await expect(call("write_file", { path: "meta/config", content: "x" })).rejects.toThrow(/inside \.git/);
    }
  });
});

describe("inside the workspace", () => {
  it("reads, writes (creating parents) and lists", async () => {
    expect(await call("read_file", { path: "a.txt" })).toMatchObject({ content: "hello workspace", truncated: false });
    expect(await call("write_file", { path: "new/deep/c.txt", content: "écrit" })).toEqual({
      path: "new/deep/c.txt",
      bytesWritten: 6,
    });
    expect(await readFile(join(root, "new", "deep", "c.txt"), "utf8")).toBe("écrit");
    const listing = await call("list_directory", { path: "." });
    expect(listing.entries).toContainEqual({ name: "sub", type: "directory" });
    expect(listing.entries).toContainEqual({ name: "a.txt", type: "file" });
    const listed = listing.entries.map((e: { name: string }) => e.name);
    expect(listed).toEqual([...listed].sort());
  });

  it("accepts an absolute path inside the root", async () => {
    expect(await call("read_file", { path: join(root, "sub", "b.txt") })).toMatchObject({ content: "nested" });
  });

  it.skipIf(!canSymlink)("follows a symlink that stays inside the workspace", async () => {
    expect(await call("read_file", { path: "link-in/b.txt" })).toMatchObject({ content: "nested" });
  });

  it("reads at most maxReadBytes per call and can continue from an offset", async () => {
    await writeFile(join(root, "long.txt"), "x".repeat(100) + "END");
    const first = await call("read_file", { path: "long.txt" });
    expect(first).toMatchObject({ size: 103, truncated: true });
    expect(first.content).toHaveLength(64);
    expect(await call("read_file", { path: "long.txt", offset: 64 })).toMatchObject({
      truncated: false,
      content: "x".repeat(36) + "END",
    });
  });

  it("explains reading a directory or a missing file", async () => {
    await expect(call("read_file", { path: "sub" })).rejects.toThrow(/directory; use list_directory/);
    await expect(call("read_file", { path: "missing.txt" })).rejects.toThrow(
      /"missing.txt": no such file or directory/,
    );
  });
});

describe("seed 001 acceptance criterion 7: paths outside workspaceRoot are refused", () => {
  const escapes = ["../outside/secret.txt", "sub/../../outside/secret.txt", "a\0.txt"];

  it.each(escapes)("write_file and read_file refuse %j", async (path) => {
    await expect(call("write_file", { path, content: "pwned" })).rejects.toThrow(/outside the workspace|NUL/);
    await expect(call("read_file", { path })).rejects.toThrow(/outside the workspace|NUL/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
  });

  it("refuses an absolute path outside the root", async () => {
    const target = join(outside, "abs.txt");
    await expect(call("write_file", { path: target, content: "pwned" })).rejects.toThrow(/outside the workspace/);
    await expect(readFile(target)).rejects.toThrow();
    await expect(call("read_file", { path: join(outside, "secret.txt") })).rejects.toThrow(/outside the workspace/);
  });

  it.skipIf(!canSymlink)("refuses symlinks that lead outside, for existing and new files", async () => {
    await expect(call("read_file", { path: "file-link" })).rejects.toThrow(/outside the workspace/);
    await expect(call("write_file", { path: "file-link", content: "pwned" })).rejects.toThrow(/outside the workspace/);
    await expect(call("read_file", { path: "link-out/secret.txt" })).rejects.toThrow(/outside the workspace/);
    await expect(call("write_file", { path: "link-out/new.txt", content: "pwned" })).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(call("list_directory", { path: "link-out" })).rejects.toThrow(/outside the workspace/);
    await expect(call("write_file", { path: "dangling", content: "pwned" })).rejects.toThrow(/symbolic link/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("SECRET");
    await expect(readFile(join(outside, "new.txt"))).rejects.toThrow();
    await expect(readFile(join(outside, "not-yet.txt"))).rejects.toThrow();
  });

  it("refuses every path, inside ones included, when no workspace root is configured", async () => {
    const noRoot = defaultPolicy("thread");
    await expect(call("read_file", { path: "a.txt" }, { policy: noRoot })).rejects.toThrow(/no workspace root/i);
    await expect(call("write_file", { path: "z.txt", content: "" }, { policy: noRoot })).rejects.toThrow(
      /no workspace root/i,
    );
    await expect(call("list_directory", {}, { policy: noRoot })).rejects.toThrow(/no workspace root/i);
    await expect(call("run_command", { command: "node", args: ["-e", ""] }, { policy: noRoot })).rejects.toThrow(
      /no workspace root/i,
    );
    await expect(call("read_file", { path: join(root, "a.txt") }, { policy: noRoot })).rejects.toThrow(
      /no workspace root/i,
    );
  });
});

describe("run_command", () => {
  it("refuses commands that are not on the allowlist, before running anything", async () => {
    await expect(call("run_command", { command: "sh", args: ["-c", "echo hi > pwned.txt"] })).rejects.toThrow(
      /"sh" is not allowed\. Allowed commands: node/,
    );
    await expect(readFile(join(root, "pwned.txt"))).rejects.toThrow();
    await expect(call("run_command", { command: "node -e 1" })).rejects.toThrow(/Pass the arguments in "args"/);
    await expect(call("run_command", { command: "/usr/bin/node" })).rejects.toThrow(/not allowed/);
  });

  it("runs an allowed command in the workspace without a shell and returns exit code and output", async () => {
    const script =
      "process.stdout.write(process.cwd() + '|' + process.argv[1]); process.stderr.write('warn'); process.exit(3)";
    const result: RunCommandResult = await call("run_command", { command: "node", args: ["-e", script, "$HOME;*"] });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, stderr: "warn" });
    expect(result.stdout).toBe(`${await realpath(root)}|$HOME;*`);
  });

  it("runs in a workspace subdirectory and refuses one outside", async () => {
    const result: RunCommandResult = await call("run_command", {
      command: "node",
      args: ["-e", "process.stdout.write(process.cwd())"],
      cwd: "sub",
    });
    expect(result.stdout).toBe(await realpath(join(root, "sub")));
    await expect(call("run_command", { command: "node", args: ["-e", ""], cwd: "../outside" })).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("does not pass the host's environment secrets by default", async () => {
    process.env.AGENTRY_TEST_SECRET = "top-secret";
    try {
      const result: RunCommandResult = await call("run_command", {
        command: "node",
        args: ["-e", "process.stdout.write(String(process.env.AGENTRY_TEST_SECRET))"],
      });
      expect(result.stdout).toBe("undefined");
    } finally {
      delete process.env.AGENTRY_TEST_SECRET;
    }
  });

  it("kills a command at its time limit", async () => {
    const result: RunCommandResult = await call("run_command", {
      command: "node",
      args: ["-e", "setTimeout(() => {}, 20000)"],
      timeout_ms: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
  });

  it("stops the command and rejects with an AbortError when the signal aborts", async () => {
    const controller = new AbortController();
    const running = call(
      "run_command",
      { command: "node", args: ["-e", "setTimeout(() => {}, 20000)"] },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 200);
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
  });

  it("reports an allowed program that is not installed", async () => {
    const [, , , runCommand] = createWorkspaceTools({ commandAllowlist: ["agentry-no-such-program"] });
    const running = runCommand!.execute!(
      { command: "agentry-no-such-program", args: [], cwd: "." },
      { toolCallId: "c", depth: 0, parentId: null, callKey: "test", signal: new AbortController().signal, policy },
    );
    await expect(running).rejects.toThrow(/"agentry-no-such-program" could not be started: not found/);
  });

  it("keeps only the tail of long output", async () => {
    const [, , , runCommand] = createWorkspaceTools({ commandAllowlist: ["node"], maxOutputBytes: 10 });
    const result = await runCommand!.execute!(
      { command: "node", args: ["-e", "process.stdout.write('a'.repeat(50000) + '0123456789')"], cwd: "." },
      { toolCallId: "c", depth: 0, parentId: null, callKey: "test", signal: new AbortController().signal, policy },
    );
    expect(result).toMatchObject({ stdout: "0123456789", stdoutTruncated: true, stderrTruncated: false });
  });
});
