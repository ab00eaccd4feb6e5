/// <reference types="node" />
import type { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import { dirname, relative, sep } from "node:path";
import { z } from "zod/v4";
import { abortError } from "../internal/abort.js";
import { defineTool } from "../tools/define-tool.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import { openConfinedDirectory } from "./workspace-fs.js";
import { resolveConfinedPath } from "./workspace-path.js";
import { filterOverrides, readGitConfig, SAFE_GIT_ARGS, safeGitEnv } from "./git-safety.js";

/** Settings of `git_status` and `git_diff`, resolved from `WorkspaceToolsOptions`. */
export interface GitSettings {
  timeoutMs: number;
  maxOutputBytes: number;
  env: Record<string, string | undefined>;
}

/** One changed path of `git_status` (porcelain v1 codes). */
export interface GitStatusEntry {
  /** Path relative to the workspace root. */
  path: string;
  /** Status in the index (`M`, `A`, `D`, `R`, `C`, `U`, `?`, `!` or ` `). */
  index: string;
  /** Status in the work tree (same codes). */
  worktree: string;
  /** For a rename or copy: the path it came from. */
  from?: string;
}

/** What `git_status` returns. */
export interface GitStatusResult {
  /** The branch line (`main...origin/main [ahead 1]`), or null when git gave none. */
  branch: string | null;
  entries: GitStatusEntry[];
  /** True when git's output was longer than the limit and the list was cut. */
  truncated: boolean;
}

/** What `git_diff` returns. */
export interface GitDiffResult {
  /** The unified diff (empty when nothing differs). */
  diff: string;
  /** True when git's output was longer than the limit and the diff was cut. */
  truncated: boolean;
}

type ExecFailure = Error & { code?: unknown; killed?: boolean; signal?: unknown };

/** A model-fit error for a failed git run; the workspace's real path never shows. */
function gitError(
  error: ExecFailure,
  stderrBytes: Buffer,
  root: string,
  settings: GitSettings,
  signal: AbortSignal,
): Error {
  if (signal.aborted) return abortError(signal);
  if (error.code === "ENOENT")
    return new Error("git is not available: the git program was not found (is it installed and on PATH?).", {
      cause: error,
    });
  if (error.killed === true || error.signal === "SIGTERM")
    return new Error(`git did not finish within ${settings.timeoutMs} ms and was stopped.`, { cause: error });
  const stderr = stderrBytes.toString("utf8").split(root).join(".").trim().slice(0, 2_000);
  if (/not a git repository/i.test(stderr)) {
    return new Error("The workspace is not a git repository (its root has no .git; run `git init` there first).", {
      cause: error,
    });
  }
  return new Error(`git failed (exit code ${String(error.code)}): ${stderr || "no message"}`, { cause: error });
}

/** Bytes of `git config --list` read at most (a repository's config is a few kilobytes). */
const MAX_CONFIG_BYTES = 1_000_000;

/** The output of one git run, cut at `maxOutputBytes` when longer. */
interface GitOutput {
  stdout: Buffer;
  truncated: boolean;
}

function execGit(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
  realRoot: string,
  settings: GitSettings,
  signal: AbortSignal,
  maxBytes = settings.maxOutputBytes,
): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...SAFE_GIT_ARGS, ...args],
      {
        cwd,
        env,
        encoding: "buffer",
        maxBuffer: maxBytes,
        timeout: settings.timeoutMs,
        signal,
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        const failure = error as ExecFailure | null;
        if (failure === null) return resolve({ stdout, truncated: false });
        if (failure.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER")
          return resolve({ stdout: stdout.subarray(0, maxBytes), truncated: true });
        reject(gitError(failure, stderr, realRoot, settings, signal));
      },
    );
  });
}

/**
 * Runs `git` (no shell) in the workspace root, with git's discovery stopped at the root (a
 * repository above the workspace is never used), a time limit and an output limit: output past
 * `maxOutputBytes` is cut, not an error. No config or environment of the host's or the
 * repository's starts a program (see `git-safety.ts`): git first lists the config it would read,
 * every filter driver named there is turned off for the call, and a repository whose config
 * includes a file of the work tree (which the model can write) is refused.
 */
async function runGit(args: string[], ctx: ToolContext, settings: GitSettings): Promise<GitOutput> {
  const root = await resolveConfinedPath(ctx.policy, ".");
  const cwd = await openConfinedDirectory(root, ".");
  const ceiling = dirname(root.realRoot);
  try {
    const listed = await execGit(
      ["config", "--list", "--show-origin", "-z"],
      cwd.path,
      safeGitEnv(settings.env, ceiling),
      root.realRoot,
      settings,
      ctx.signal,
      MAX_CONFIG_BYTES,
    );
    if (listed.truncated) throw new Error("git_status / git_diff refused: the repository's git config is too large.");
    const config = readGitConfig(listed.stdout.toString("utf8"), root.realRoot);
    if (config.workTreeFiles.length > 0) {
      throw new Error(
        `git_status / git_diff refused: the repository's git config includes ${config.workTreeFiles
          .map((file) => JSON.stringify(file))
          .join(", ")}, a file of the workspace that the workspace tools can change.`,
      );
    }
    const env = safeGitEnv(settings.env, ceiling, filterOverrides(config.filterDrivers));
    return await execGit(args, cwd.path, env, root.realRoot, settings, ctx.signal);
  } finally {
    await cwd.close();
  }
}

/** Parses `git status --porcelain=v1 -z --branch`; a record cut by the output limit is dropped. */
export function parseGitStatus(output: string, truncated: boolean): GitStatusResult {
  const records = output.split("\0");
  if (records[records.length - 1] === "" || truncated) records.pop();
  let branch: string | null = null;
  const entries: GitStatusEntry[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.startsWith("## ")) {
      branch = record.slice(3);
      continue;
    }
    if (record.length < 4) continue;
    const entry: GitStatusEntry = { path: record.slice(3), index: record[0]!, worktree: record[1]! };
    if (entry.index === "R" || entry.index === "C") {
      if (i + 1 >= records.length) break;
      entry.from = records[++i]!;
    }
    entries.push(entry);
  }
  return { branch, entries, truncated };
}

/** The `git_status` and `git_diff` tools (permission class `workspace_read`). See `createWorkspaceTools`. */
export function createGitTools(settings: GitSettings): Tool[] {
  const gitStatus = defineTool({
    name: "git_status",
    description:
      "Show the git status of the workspace: the branch, and each changed, staged or untracked path with its porcelain status codes.",
    input: z.object({}),
    permissionClass: "workspace_read",
    async execute(_input, ctx) {
      const { stdout, truncated } = await runGit(
        ["status", "--porcelain=v1", "-z", "--branch", "--untracked-files=normal", "--ignore-submodules=dirty"],
        ctx,
        settings,
      );
      return parseGitStatus(stdout.toString("utf8"), truncated);
    },
  });

  const gitDiff = defineTool({
    name: "git_diff",
    description:
      "Show a unified diff of the workspace's git changes: work tree against the index, or the index against HEAD (staged: true).",
    input: z.object({
      staged: z
        .boolean()
        .default(false)
        .describe("Diff the staged changes (index against HEAD) instead of the unstaged ones"),
      paths: z
        .array(z.string())
        .max(100)
        .default([])
        .describe("Limit the diff to these files or directories, relative to the workspace root"),
      context_lines: z.number().int().min(0).max(100).default(3).describe("Lines of context around each change"),
    }),
    permissionClass: "workspace_read",
    async execute({ staged = false, paths = [], context_lines = 3 }, ctx) {
      const pathspecs: string[] = [];
      for (const path of paths) {
        const target = await resolveConfinedPath(ctx.policy, path);
        pathspecs.push(relative(target.realRoot, target.real).split(sep).join("/") || ".");
      }
      const args = [
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--ignore-submodules=dirty",
        `--unified=${context_lines}`,
        ...(staged ? ["--cached"] : []),
        "--",
        ...pathspecs,
      ];
      const { stdout, truncated } = await runGit(args, ctx, settings);
      return { diff: stdout.toString("utf8"), truncated } satisfies GitDiffResult;
    },
  });
  return [gitStatus, gitDiff];
}
