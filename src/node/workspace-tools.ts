/// <reference types="node" />
import process from "node:process";
import { z } from "zod/v4";
import { defineTool } from "../tools/define-tool.js";
import type { Tool } from "../contracts/tool.js";
import { createRunCommandTool } from "./workspace-command.js";
import { deleteConfinedFile, listConfinedDirectory, readConfinedFile, writeConfinedFile } from "./workspace-fs.js";
import { createGitTools } from "./workspace-git.js";
import { createApplyPatchTool } from "./workspace-patch.js";
import { refuseGitMetadata, resolveConfinedPath } from "./workspace-path.js";
import { createCommandSandbox, type WorkspaceSandbox } from "./workspace-sandbox.js";
import { createSearchFilesTool } from "./workspace-search.js";

/** Options of {@link createWorkspaceTools}. */
export interface WorkspaceToolsOptions {
  /** Program names `run_command` may start (exact match on the program name). @default [] (none) */
  commandAllowlist?: string[];
  /** Bytes `read_file` returns at most per call; longer files are cut (`truncated: true`). @default 100_000 */
  maxReadBytes?: number;
  /** Entries `list_directory` returns at most. @default 1_000 */
  maxListEntries?: number;
  /**
   * Longest a command may run before it is stopped (SIGTERM, then SIGKILL 2 s later, when the call
   * returns at the latest); a call may ask for less. @default 60_000
   */
  commandTimeoutMs?: number;
  /** Bytes kept from the end of each of stdout and stderr. @default 16_000 */
  maxOutputBytes?: number;
  /**
   * Environment of commands. The default passes only `PATH`, home, temp, locale and Windows
   * system variables from `process.env`, so host secrets do not leak into commands.
   * @default a minimal subset of process.env
   */
  commandEnv?: Record<string, string | undefined>;
  /** Matching lines `search_files` returns at most (a call may ask for fewer). @default 200 */
  maxSearchMatches?: number;
  /** Bytes `search_files` reads at most per call, over all files. @default 20_000_000 */
  maxSearchBytes?: number;
  /** Directory entries `search_files` visits at most per call. @default 50_000 */
  maxSearchEntries?: number;
  /**
   * Steps of the linear-time regex engine per `search_files` call (a step is one instruction of the
   * compiled pattern on one character: at most pattern size x bytes). @default 250_000_000
   */
  maxSearchSteps?: number;
  /** Characters of a matching line `search_files` returns; longer lines are cut. @default 300 */
  maxSearchLineChars?: number;
  /** Longest `git_status` / `git_diff` may run before git is stopped. @default 30_000 */
  gitTimeoutMs?: number;
  /**
   * Bytes of git output `git_status` / `git_diff` keep; longer output is cut (`truncated: true`). @default 1_000_000
   */
  maxGitOutputBytes?: number;
  /** Longest patch `apply_patch` takes, in characters. @default 1_000_000 */
  maxPatchChars?: number;
  /** Largest file `apply_patch` changes, in bytes. @default 10_000_000 */
  maxPatchFileBytes?: number;
  /**
   * Isolation of `run_command`'s programs. `"namespaces"` (Linux): no network, every mount
   * read-only but the workspace, a private process table, no capabilities (see
   * {@link WorkspaceSandbox}). Checked when the tools are created: where it cannot work,
   * `createWorkspaceTools` throws `SandboxUnavailableError`. @default "none"
   */
  sandbox?: WorkspaceSandbox;
}

const ENV_KEYS = [
  "PATH",
  "HOME",
  "USERPROFILE",
  "SYSTEMROOT",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "TEMP",
  "TMP",
  "TMPDIR",
  "LANG",
  "LC_ALL",
];

const pathArg = (what: string) => z.string().describe(`${what}, relative to the workspace root`);

/**
 * File and command tools confined to the session's workspace (`ctx.policy.workspaceRoot`):
 *
 * - `read_file` (`workspace_read`): a regular file's text, from a byte `offset`, at most
 *   `maxReadBytes`.
 * - `list_directory` (`workspace_read`): entries with their type, sorted by name, at most
 *   `maxListEntries` (memory stays bounded however large the directory).
 * - `search_files` (`workspace_read`): lines matching a regular expression, ripgrep-style: file,
 *   line number and line text (cut to `maxSearchLineChars`), files filtered by include / exclude
 *   globs (`*.ts`, `src/**\/*.md`, `node_modules`), `.git` directories and binary files (a NUL
 *   byte) skipped, symlinks not followed. The pattern runs on the package's linear-time engine
 *   (JavaScript syntax without backreferences or lookaround), so its cost is bounded by pattern
 *   size x bytes; matches, bytes read, entries visited and engine steps are capped per call
 *   (`truncated` and `stoppedBy` say which cap stopped it).
 * - `git_status`, `git_diff` (`workspace_read`): run the `git` program (no shell) in the workspace
 *   root, with a time limit (`gitTimeoutMs`) and an output limit (`maxGitOutputBytes`, cut output
 *   is `truncated`; each of the two git runs of a call, the config listing and the command, has the
 *   time limit). Git looks for the repository in the root only (never in a directory above it, and
 *   never a bare repository laid out in the workspace). No config starts a program: the system's
 *   and the user's git config and `GIT_*` variables of `commandEnv` are ignored, and fsmonitor,
 *   hooks, the pager, external diff drivers, textconv, filter drivers (`filter.<x>.clean`,
 *   `smudge`, `process`: files are compared as stored), credential helpers and every transport
 *   are off; submodules are compared by commit only. A repository whose config includes a file of
 *   the work tree is refused. A missing `git` or a workspace that is not a repository is an error
 *   saying so.
 * - `write_file` (`workspace_write` and `workspace_create`, not parallel-safe, lock
 *   `workspace_fs`): creates or replaces a regular file, creating missing parent directories. The
 *   content is written to a temporary file
 *   (`.agentry-<random>.tmp`) in the target's directory, synced and renamed onto the target, so
 *   the file is replaced whole (readers never see half of it; its permission bits are kept, its
 *   owner and other hard links are not: a hard link is never written through). A directory,
 *   symlink, FIFO, socket or device at the target is refused without being opened.
 * - `apply_patch` (`workspace_read` and `workspace_write`, not parallel-safe, lock `workspace_fs`):
 *   applies a unified diff (parsed and applied by jsdiff, no fuzz) to the files it names, all or
 *   nothing: every file is checked and patched in memory first, and a hunk that does not match is
 *   an error naming the file and the hunk, with nothing written. A file the patch creates needs
 *   `workspace_create`, one it deletes `workspace_delete`, a rename both, checked against the
 *   session's policy when the call runs. Writes go as `write_file`'s do; if one fails, the files
 *   already changed are put back.
 * - `delete_file` (`workspace_delete`, not parallel-safe, lock `workspace_fs`): deletes a regular
 *   file (never a directory or a symlink).
 * - `run_command` (`execute`, not parallel-safe, lock `workspace_fs`): starts an allowlisted
 *   program without a shell, in a workspace directory; honours the abort signal and a time limit.
 *   Without a sandbox the allowlist is its boundary: an allowed program can do whatever it can
 *   do. With `sandbox: "namespaces"` it runs with no network, no capabilities, its own process
 *   table, and every mount read-only but the workspace; a sandbox that could not be set up for a
 *   call is an error result (the command did not run). Its exit code is that of the program,
 *   which runs as a child of a small shell: a program ended by a signal reports `128 + signal`.
 *
 * The tools that change files never write, create or delete anything inside `.git` (any letter
 * case): a repository's config can make git run programs, so the model cannot plant one there.
 * `run_command` is different: a `git` in `commandAllowlist` takes the model's arguments
 * (`-c core.pager=...`, aliases), so it can start any program; allow it only with a sandbox.
 *
 * Confinement. Every path is confined lexically (`..`, absolute paths, NUL bytes) and by real path
 * (symlinks leaving the workspace are refused); with no workspace root every path is refused. On
 * Linux (with /proc mounted) it also holds against a concurrent process that swaps directories for
 * symlinks while a tool runs: each file or directory is opened first and the kernel's path of the
 * open handle (`/proc/self/fd/N`) must lie inside the workspace's real root before anything is
 * read, listed or written; files and directories are created, and commands started, through a
 * verified directory handle. Elsewhere (macOS, BSD, Windows) every operation goes by path: the
 * opened file must still be the one (same device and inode) that the re-checked real path names,
 * and checks before and after narrow, but cannot close, the window in which a concurrent swap
 * redirects a read, a listing, a write or a command's working directory (Node has no `openat`). A hard link is the file
 * it links to: reading a
 * hard link that someone placed in the workspace reads that file.
 *
 * Cost. Reads, listings and command output are bounded by the options above. Opening never blocks
 * on a FIFO. When a command reaches its time limit (or the call is aborted) its process group gets
 * SIGTERM, then SIGKILL after a 2 s grace period, and the call returns by then at the latest, with
 * the output read so far, even if something still holds the command's output open. On Linux the
 * signals also reach every process found through /proc that descends from the command (by parent
 * chain, session or process group) or holds its output, `setsid` daemons included; a process that
 * left the command's session, closed its output and lost its parent before the time limit cannot be
 * found and survives. A command counts as running while anything holds its output open; once it
 * has ended and its output is closed, what it left in the background keeps running. Elsewhere
 * only the process group (on Windows: the process) is signalled.
 *
 * Failures throw an `Error` whose message is fit for the model (the loop turns it into an error
 * result). Policy classes decide which tools a session gets: with `defaultPolicy` every tool but
 * `delete_file` and `run_command` (`workspace_delete` and `execute` are opt-in); a policy with
 * `workspace_read` and `workspace_write` only may edit files (`apply_patch`) but not create or
 * delete them.
 *
 * @example
 * const runtime = createAgentRuntime({ ..., tools: createWorkspaceTools({ commandAllowlist: ["npm"] }),
 *   policy: { ...defaultPolicy("thread", { workspaceRoot: "/srv/ws" }) } });
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const maxReadBytes = options.maxReadBytes ?? 100_000;
  const maxListEntries = options.maxListEntries ?? 1_000;
  const env =
    options.commandEnv ??
    Object.fromEntries(ENV_KEYS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));

  const readFile = defineTool({
    name: "read_file",
    description: `Read a text file of the workspace (at most ${maxReadBytes} bytes per call; use offset to read on).`,
    input: z.object({
      path: pathArg("File path"),
      offset: z.number().int().nonnegative().default(0).describe("Byte offset to start at"),
    }),
    permissionClass: "workspace_read",
    async execute({ path, offset = 0 }, ctx) {
      const target = await resolveConfinedPath(ctx.policy, path);
      const { size, bytes } = await readConfinedFile(target, path, { offset, maxBytes: maxReadBytes });
      const truncated = offset + bytes.length < size;
      if (bytes.includes(0)) return { path, size, binary: true, content: "", truncated };
      return { path, size, offset, content: bytes.toString("utf8"), truncated };
    },
  });

  const listDirectory = defineTool({
    name: "list_directory",
    description: "List the entries of a workspace directory (name and type), sorted by name.",
    input: z.object({ path: pathArg("Directory path").default(".") }),
    permissionClass: "workspace_read",
    async execute({ path = "." }, ctx) {
      const target = await resolveConfinedPath(ctx.policy, path);
      return { path, ...(await listConfinedDirectory(target, path, maxListEntries)) };
    },
  });

  const writeFile = defineTool({
    name: "write_file",
    description: "Create or replace a text file in the workspace (missing parent directories are created).",
    input: z.object({ path: pathArg("File path"), content: z.string().describe("The complete new content") }),
    permissionClass: ["workspace_write", "workspace_create"],
    parallelSafe: false,
    exclusiveLock: "workspace_fs",
    async execute({ path, content }, ctx) {
      const target = await resolveConfinedPath(ctx.policy, path);
      refuseGitMetadata(target, path, "write");
      return { path, bytesWritten: await writeConfinedFile(target, path, content) };
    },
  });

  const deleteFile = defineTool({
    name: "delete_file",
    description: "Delete a file of the workspace (not a directory).",
    input: z.object({ path: pathArg("File path") }),
    permissionClass: "workspace_delete",
    parallelSafe: false,
    exclusiveLock: "workspace_fs",
    async execute({ path }, ctx) {
      const target = await resolveConfinedPath(ctx.policy, path);
      refuseGitMetadata(target, path, "delete");
      await deleteConfinedFile(target, path);
      return { path, deleted: true };
    },
  });

  const searchFiles = createSearchFilesTool({
    maxMatches: options.maxSearchMatches ?? 200,
    maxBytes: options.maxSearchBytes ?? 20_000_000,
    maxEntries: options.maxSearchEntries ?? 50_000,
    maxSteps: options.maxSearchSteps ?? 250_000_000,
    maxLineChars: options.maxSearchLineChars ?? 300,
  });
  const gitTools = createGitTools({
    timeoutMs: options.gitTimeoutMs ?? 30_000,
    maxOutputBytes: options.maxGitOutputBytes ?? 1_000_000,
    env,
  });
  const applyPatch = createApplyPatchTool({
    maxPatchChars: options.maxPatchChars ?? 1_000_000,
    maxFileBytes: options.maxPatchFileBytes ?? 10_000_000,
  });

  const runCommand = createRunCommandTool({
    commandAllowlist: [...(options.commandAllowlist ?? [])],
    timeoutMs: options.commandTimeoutMs ?? 60_000,
    maxOutputBytes: options.maxOutputBytes ?? 16_000,
    env,
    sandbox: createCommandSandbox(options.sandbox ?? "none"),
  });
  return [readFile, listDirectory, writeFile, runCommand, searchFiles, ...gitTools, applyPatch, deleteFile];
}
