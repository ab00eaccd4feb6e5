import { execFileSync } from "node:child_process";
import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type GitDiffResult, type GitStatusResult } from "@agentry/core/node";
import { callTool } from "./workspace-helpers.js";

// A repository's or the user's git config names programs that git starts (filter drivers, the
// fsmonitor, hooks...): none of them may run when the model calls git_status or git_diff.

let base: string;
let marker: string;
let script: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args],
    { cwd, stdio: "pipe", env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } },
  );
const ran = () =>
  access(marker).then(
    () => true,
    () => false,
  );

/** A repository with one committed file, changed since. */
async function repository(name: string): Promise<{ repo: string; policy: ToolPolicy }> {
  const repo = join(base, name);
  await mkdir(repo);
  git(repo, "init", "-q");
  await writeFile(join(repo, "a.txt"), "one\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "first");
  await writeFile(join(repo, "a.txt"), "one\ntwo\n");
  return { repo, policy: defaultPolicy("thread", { workspaceRoot: repo }) };
}

/** git_status and git_diff work and report the change to a.txt. */
async function expectGitToolsWork(tools: ReturnType<typeof createWorkspaceTools>, policy: ToolPolicy) {
  const status: GitStatusResult = await callTool(tools, "git_status", {}, policy);
  expect(status.entries).toContainEqual({ path: "a.txt", index: " ", worktree: "M" });
  const diff: GitDiffResult = await callTool(tools, "git_diff", {}, policy);
  expect(diff.diff).toContain("+two");
}

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-git-config-"));
  marker = join(base, "program-ran");
  script = join(base, "evil.sh");
  await writeFile(script, `#!/bin/sh\ntouch ${JSON.stringify(marker)}\ncat\n`, { mode: 0o755 });
});

beforeEach(async () => {
  await rm(marker, { force: true });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe.runIf(process.platform !== "win32")("git_status and git_diff start no program from git config", () => {
  it("a repository's filter driver (clean, smudge, process) named by a .gitattributes the model wrote", async () => {
    const { repo, policy } = await repository("filter");
    git(repo, "config", "filter.evil.clean", script);
    git(repo, "config", "filter.evil.smudge", script);
    git(repo, "config", "filter.evil.required", "true");
    git(repo, "config", "filter.proc.process", script);
    const tools = createWorkspaceTools();
    await callTool(
      tools,
      "write_file",
      { path: ".gitattributes", content: "*.txt filter=evil\n*.md filter=proc\n" },
      policy,
    );
    await writeFile(join(repo, "b.md"), "bee\n");
    await expectGitToolsWork(tools, policy);
    const staged: GitDiffResult = await callTool(tools, "git_diff", { staged: true }, policy);
    expect(staged.diff).toBe("");
    expect(await ran()).toBe(false);
    // The same repository, read by git itself, does run the filter: the test sees what it claims to.
    execFileSync("git", ["diff"], { cwd: repo, stdio: "pipe", env: { PATH: process.env.PATH } });
    expect(await ran()).toBe(true);
  });

  it("the user's own git config (a global filter driver, pager and fsmonitor)", async () => {
    const { repo, policy } = await repository("user-config");
    const home = join(base, "home");
    await mkdir(home);
    await writeFile(
      join(home, ".gitconfig"),
      `[filter "lfs"]\n\tclean = ${script}\n\tprocess = ${script}\n[core]\n\tfsmonitor = ${script}\n\tpager = ${script}\n`,
    );
    await writeFile(join(repo, ".gitattributes"), "* filter=lfs\n");
    const tools = createWorkspaceTools({ commandEnv: { PATH: process.env.PATH, HOME: home } });
    await expectGitToolsWork(tools, policy);
    expect(await ran()).toBe(false);
  });

  it("GIT_* variables of the host's environment", async () => {
    const { policy } = await repository("env");
    const other = await repository("env-other");
    await writeFile(join(other.repo, "other-only.txt"), "x\n");
    const tools = createWorkspaceTools({
      commandEnv: {
        PATH: process.env.PATH,
        GIT_DIR: join(other.repo, ".git"),
        GIT_WORK_TREE: other.repo,
        GIT_EXTERNAL_DIFF: script,
        GIT_CONFIG_PARAMETERS: `'core.fsmonitor=${script}'`,
      },
    });
    const status: GitStatusResult = await callTool(tools, "git_status", {}, policy);
    expect(status.entries.map((e) => e.path)).not.toContain("other-only.txt");
    await expectGitToolsWork(tools, policy);
    expect(await ran()).toBe(false);
  });

  it("refuses a repository whose config includes a file of the work tree", async () => {
    const { repo, policy } = await repository("include");
    git(repo, "config", "include.path", "../team.gitconfig");
    const tools = createWorkspaceTools();
    await callTool(
      tools,
      "write_file",
      { path: "team.gitconfig", content: `[core]\n\tworktree = ${base}\n[filter "x"]\n\tclean = ${script}\n` },
      policy,
    );
    await writeFile(join(repo, ".gitattributes"), "* filter=x\n");
    await expect(callTool(tools, "git_status", {}, policy)).rejects.toThrow(/includes "team.gitconfig"/);
    await expect(callTool(tools, "git_diff", {}, policy)).rejects.toThrow(/includes "team.gitconfig"/);
    expect(await ran()).toBe(false);
  });

  it("never uses a bare repository the model laid out in the workspace", async () => {
    const root = join(base, "bare");
    await mkdir(root);
    const policy = defaultPolicy("thread", { workspaceRoot: root });
    const tools = createWorkspaceTools();
    const files = {
      HEAD: "ref: refs/heads/main\n",
      config: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${base}\n[filter "x"]\n\tclean = ${script}\n`,
      "objects/info/keep": "",
      "refs/heads/keep": "",
      "info/attributes": "* filter=x\n",
    };
    for (const [path, content] of Object.entries(files)) await callTool(tools, "write_file", { path, content }, policy);
    await expect(callTool(tools, "git_status", {}, policy)).rejects.toThrow(/bare repository|not a git repository/);
    expect(await ran()).toBe(false);
  });
});
