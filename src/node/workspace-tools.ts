/// <reference types="node" />
import process from "node:process";
import { z } from "zod/v4";
import { defineTool } from "../tools/define-tool.js";
import type { Tool } from "../contracts/tool.js";
import { createRunCommandTool } from "./workspace-command.js";
import { listConfinedDirectory, readConfinedFile, writeConfinedFile } from "./workspace-fs.js";
import { resolveConfinedPath } from "./workspace-path.js";

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
}

const ENV_KEYS = ["PATH", "HOME", "USERPROFILE", "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "TMPDIR", "LANG", "LC_ALL"];

const pathArg = (what: string) => z.string().describe(`${what}, relative to the workspace root`);

/**
 * File and command tools confined to the session's workspace (`ctx.policy.workspaceRoot`):
 *
 * - `read_file` (`workspace_read`): a regular file's text, from a byte `offset`, at most
 *   `maxReadBytes`.
 * - `list_directory` (`workspace_read`): entries with their type, sorted by name, at most
 *   `maxListEntries` (memory stays bounded however large the directory).
 * - `write_file` (`workspace_write`, not parallel-safe, lock `workspace_fs`): creates or replaces a
 *   regular file, creating missing parent directories. The content is written to a temporary file
 *   (`.agentry-<random>.tmp`) in the target's directory, synced and renamed onto the target, so
 *   the file is replaced whole (readers never see half of it; its permission bits are kept, its
 *   owner and other hard links are not: a hard link is never written through). A directory,
 *   symlink, FIFO, socket or device at the target is refused without being opened.
 * - `run_command` (`execute`, not parallel-safe, lock `workspace_fs`): starts an allowlisted
 *   program without a shell, in a workspace directory; honours the abort signal and a time limit.
 *   The allowlist is its boundary: an allowed program can do whatever it can do.
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
 * redirects a read, a listing, a write or a command's working directory (Node has no `openat`). A hard link is the file it links to: reading a
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
 * result). Policy classes decide which tools a session gets: `execute` is off by default.
 *
 * @example
 * const runtime = createAgentRuntime({ ..., tools: createWorkspaceTools({ commandAllowlist: ["npm"] }),
 *   policy: { ...defaultPolicy("thread", { workspaceRoot: "/srv/ws" }) } });
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const maxReadBytes = options.maxReadBytes ?? 100_000;
  const maxListEntries = options.maxListEntries ?? 1_000;
  const env = options.commandEnv ?? Object.fromEntries(ENV_KEYS.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));

  const readFile = defineTool({
    name: "read_file",
    description: `Read a text file of the workspace (at most ${maxReadBytes} bytes per call; use offset to read on).`,
    input: z.object({ path: pathArg("File path"), offset: z.number().int().nonnegative().default(0).describe("Byte offset to start at") }),
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
    permissionClass: "workspace_write",
    parallelSafe: false,
    exclusiveLock: "workspace_fs",
    async execute({ path, content }, ctx) {
      const target = await resolveConfinedPath(ctx.policy, path);
      return { path, bytesWritten: await writeConfinedFile(target, path, content) };
    },
  });

  const runCommand = createRunCommandTool({
    commandAllowlist: [...(options.commandAllowlist ?? [])],
    timeoutMs: options.commandTimeoutMs ?? 60_000,
    maxOutputBytes: options.maxOutputBytes ?? 16_000,
    env,
  });
  return [readFile, listDirectory, writeFile, runCommand];
}
