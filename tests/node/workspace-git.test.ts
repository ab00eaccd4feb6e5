import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type GitDiffResult, type GitStatusResult } from "@agentry/core/node";
import { callTool, toolNamed } from "./workspace-helpers.js";

let base: string;
let repo: string;
let policy: ToolPolicy;
const tools = createWorkspaceTools();
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args],
    { cwd, stdio: "pipe" },
  );

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-git-"));
  repo = join(base, "repo");
  await mkdir(repo);
  git(repo, "init", "-q");
  await writeFile(join(repo, "a.txt"), "one\ntwo\nthree\n");
  await writeFile(join(repo, "b.txt"), "bee\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "first");
  await writeFile(join(repo, "a.txt"), "one\n2\nthree\n");
  await writeFile(join(repo, "b.txt"), "bee\nstaged\n");
  git(repo, "add", "b.txt");
  await writeFile(join(repo, "new file.txt"), "untracked\n");
  policy = defaultPolicy("thread", { workspaceRoot: repo });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("git_status and git_diff", () => {
  it("are workspace_read tools", () => {
    expect(toolNamed(tools, "git_status").permissionClass).toBe("workspace_read");
    expect(toolNamed(tools, "git_diff").permissionClass).toBe("workspace_read");
  });

  it("git_status lists the branch and each changed, staged and untracked path", async () => {
    const status: GitStatusResult = await callTool(tools, "git_status", {}, policy);
    expect(status.branch).toMatch(/^main/);
    expect(status.entries).toEqual([
      { path: "a.txt", index: " ", worktree: "M" },
      { path: "b.txt", index: "M", worktree: " " },
      { path: "new file.txt", index: "?", worktree: "?" },
    ]);
    expect(status.truncated).toBe(false);
  });

  it("git_diff shows unstaged changes, staged ones, and only the paths asked for", async () => {
    const unstaged: GitDiffResult = await callTool(tools, "git_diff", {}, policy);
    expect(unstaged.diff).toContain("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
    expect(unstaged.diff).not.toContain("b.txt");
    const staged: GitDiffResult = await callTool(tools, "git_diff", { staged: true }, policy);
    expect(staged.diff).toContain("+staged");
    expect(staged.diff).not.toContain("a.txt");
    const limited: GitDiffResult = await callTool(tools, "git_diff", { paths: ["b.txt"] }, policy);
    expect(limited.diff).toBe("");
  });

  it("cuts output at the byte limit and says so", async () => {
    const small = createWorkspaceTools({ maxGitOutputBytes: 40 });
    const diff: GitDiffResult = await callTool(small, "git_diff", {}, policy);
    expect(diff).toMatchObject({ truncated: true });
    expect(diff.diff.length).toBeLessThanOrEqual(40);
    const status: GitStatusResult = await callTool(small, "git_status", {}, policy);
    expect(status.truncated).toBe(true);
  });

  it("confines git_diff paths like the other workspace tools", async () => {
    await expect(callTool(tools, "git_diff", { paths: ["../outside"] }, policy)).rejects.toThrow(
      /outside the workspace/,
    );
    await expect(callTool(tools, "git_diff", { paths: ["/etc/passwd"] }, policy)).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("says so when the workspace is not a repository, even inside one", async () => {
    const plain = join(base, "plain");
    await mkdir(plain);
    const error = /not a git repository/;
    await expect(callTool(tools, "git_status", {}, { ...policy, workspaceRoot: plain })).rejects.toThrow(error);
    // A directory inside the repository is not a repository of its own: git never looks above the root.
    const inside = join(repo, "sub");
    await mkdir(inside);
    await expect(callTool(tools, "git_diff", {}, { ...policy, workspaceRoot: inside })).rejects.toThrow(error);
  });

  it("says so when git is not installed", async () => {
    const noGit = createWorkspaceTools({ commandEnv: { PATH: join(base, "empty-bin") } });
    await expect(callTool(noGit, "git_status", {}, policy)).rejects.toThrow(/git is not available/);
  });

  it.runIf(process.platform !== "win32")("stops git at the time limit", async () => {
    const bin = join(base, "slow-bin");
    await mkdir(bin);
    await writeFile(join(bin, "git"), "#!/bin/sh\nexec /bin/sleep 30\n", { mode: 0o755 });
    const slow = createWorkspaceTools({ commandEnv: { PATH: bin }, gitTimeoutMs: 300 });
    await expect(callTool(slow, "git_status", {}, policy)).rejects.toThrow(/did not finish within 300 ms/);
  });

  it("does not run a repository's fsmonitor program", async () => {
    const marker = join(base, "fsmonitor-ran");
    const hooked = join(base, "hooked");
    await mkdir(hooked);
    git(hooked, "init", "-q");
    await writeFile(join(hooked, "monitor.sh"), `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`, { mode: 0o755 });
    git(hooked, "config", "core.fsmonitor", join(hooked, "monitor.sh"));
    await callTool(tools, "git_status", {}, { ...policy, workspaceRoot: hooked });
    await expect(import("node:fs/promises").then((fs) => fs.access(marker))).rejects.toThrow();
  });
});
