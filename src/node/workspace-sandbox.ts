/// <reference types="node" />
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, isAbsolute, join } from "node:path";
import process from "node:process";
import { SandboxUnavailableError } from "../errors/errors.js";

/**
 * How `run_command` isolates the programs it starts (`WorkspaceToolsOptions.sandbox`):
 *
 * - `"none"`: no isolation beyond the command allowlist, the confined working directory, the
 *   minimal environment and the time limit.
 * - `"namespaces"` (Linux): each command runs in new mount, network and PID namespaces (`unshare`
 *   from util-linux): no network (a fresh network namespace with only a loopback device that is down), every
 *   mount read-only but the session's workspace, a private `/proc` that shows only the command's
 *   own processes, and no capabilities (`setpriv`), so nothing in it can remount, unshare its way
 *   back out or signal a process outside. Run by root, the namespaces are made directly; by
 *   another user, inside a new user namespace (root in it maps to that user).
 * - `{ kind: "namespaces", userNamespace }`: the same, choosing whether a user namespace is made
 *   (`true` works as root too; `false` needs root).
 */
export type WorkspaceSandbox = "none" | "namespaces" | NamespaceSandboxOptions;

/** `WorkspaceSandbox` in object form. */
export interface NamespaceSandboxOptions {
  kind: "namespaces";
  /** Make a user namespace as well. @default true unless the process runs as root */
  userNamespace?: boolean;
}

/** A program and its arguments, as passed to `spawn`. */
export interface SandboxedCommand {
  command: string;
  args: string[];
}

/** Wraps a command so that it runs in the sandbox, writable only in `workspace`. */
export interface CommandSandbox {
  wrap(command: string, args: string[], workspace: string): Promise<SandboxedCommand>;
}

/**
 * The exit code and stderr prefix of a sandbox that could not be set up (a mount failed): the
 * command did not run. A command that prints this itself and exits 125 only makes its own call fail.
 */
export const SANDBOX_SETUP_EXIT = 125;
export const SANDBOX_SETUP_MARK = "agentry-sandbox:";

// $1 workspace, $2 its mount options, $3 and $4 the mount and setpriv programs, $5 count of
// mounts, then (path, options) pairs, then the command. Every mount is made read-only first (any failure stops: fail
// closed), then the
// workspace is bind-mounted over itself read-write. The shell stays as PID 1 of the namespace
// (PID 1 ignores SIGTERM it has no handler for) and passes SIGTERM on.
const SETUP_SCRIPT = `
fail() { echo "${SANDBOX_SETUP_MARK} $1" >&2; exit ${SANDBOX_SETUP_EXIT}; }
ws=$1; wsopts=$2; mountbin=$3; setprivbin=$4; n=$5; shift 5
while [ "$n" -gt 0 ]; do
  "$mountbin" -o "remount,bind,$2" "$1" 2>/dev/null || fail "cannot make $1 read-only"
  shift 2; n=$((n - 1))
done
"$mountbin" --bind "$ws" "$ws" && "$mountbin" -o "remount,bind,$wsopts" "$ws" || fail "cannot mount the workspace"
here=$(pwd -P) && cd "$here" || fail "cannot enter the working directory"
case "$here/" in "$ws"/*) ;; *) fail "the working directory left the workspace" ;; esac
trap 'kill -TERM "$c" 2>/dev/null' TERM HUP INT
"$setprivbin" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@" &
c=$!
while :; do wait "$c"; s=$?; kill -0 "$c" 2>/dev/null || exit "$s"; done
`;

interface MountEntry {
  path: string;
  options: string;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
const unescapeMount = (text: string) =>
  text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** Mount points and per-mount options (from `/proc/self/mountinfo`), in the order listed. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const [path, options] = [fields[4], fields[5]];
    if (path === undefined || options === undefined) continue;
    entries.push({ path: unescapeMount(path), options });
  }
  return entries;
}

/** Options with `rw` / `ro` replaced by `mode`; other flags kept (a user namespace may not drop them). */
const withMode = (options: string, mode: "ro" | "rw", extra: string[] = []) => {
  const kept = options.split(",").filter((flag) => flag !== "rw" && flag !== "ro" && !extra.includes(flag));
  return [mode, ...kept, ...extra].join(",");
};

/** The mount that holds `path` (the longest mount point above it). */
function mountOf(entries: MountEntry[], path: string): MountEntry | undefined {
  let best: MountEntry | undefined;
  for (const entry of entries) {
    const prefix = entry.path.endsWith("/") ? entry.path : `${entry.path}/`;
    const inside = path === entry.path || path.startsWith(prefix);
    if (inside && (best === undefined || entry.path.length >= best.path.length)) best = entry;
  }
  return best;
}

/** Where the programs the sandbox runs are (absolute paths, found once: a command's `PATH` may differ). */
interface SandboxPrograms {
  unshare: string;
  mount: string;
  setpriv: string;
}

/** The absolute path of an executable `name` on the host's `PATH` (absolute entries only), or undefined. */
function findProgram(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter).filter((entry) => isAbsolute(entry))) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

function findPrograms(): SandboxPrograms {
  const found = { unshare: findProgram("unshare"), mount: findProgram("mount"), setpriv: findProgram("setpriv") };
  const missing = Object.entries(found).flatMap(([name, path]) => (path === undefined ? [name] : []));
  if (missing.length > 0 || !existsSync("/bin/sh")) {
    const names = [...missing, ...(existsSync("/bin/sh") ? [] : ["/bin/sh"])];
    throw new SandboxUnavailableError(
      `Command sandbox unavailable: ${names.join(", ")} not found (util-linux and a POSIX shell are needed).`,
    );
  }
  return found as SandboxPrograms;
}

function unshareArgs(
  programs: SandboxPrograms,
  userNamespace: boolean,
  entries: MountEntry[],
  workspace: string,
  command: string,
  args: string[],
): string[] {
  const holder = mountOf(entries, workspace);
  const wsOptions = withMode(holder?.options ?? "rw", "rw", ["nosuid", "nodev"]);
  // Mounts below /proc are hidden by the namespace's own /proc (mounted over it): not reachable.
  const reachable = entries.filter((entry) => !entry.path.startsWith("/proc/"));
  const pairs = reachable.flatMap((entry) => [entry.path, withMode(entry.options, "ro")]);
  return [
    ...(userNamespace ? ["--user", "--map-root-user"] : []),
    "--mount",
    "--net",
    "--pid",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "--",
    "/bin/sh",
    "-c",
    SETUP_SCRIPT,
    "agentry-sandbox",
    workspace,
    wsOptions,
    programs.mount,
    programs.setpriv,
    String(reachable.length),
    ...pairs,
    command,
    ...args,
  ];
}

function resolveUserNamespace(sandbox: NamespaceSandboxOptions): boolean {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (sandbox.userNamespace === false && !root) {
    throw new SandboxUnavailableError("userNamespace: false needs a process running as root.");
  }
  return sandbox.userNamespace ?? !root;
}

/** Runs `true` in the sandbox once, in a scratch workspace: throws when it cannot work here. */
function probe(programs: SandboxPrograms, userNamespace: boolean): void {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "agentry-sandbox-")));
  try {
    const entries = parseMountInfo(readFileSync("/proc/self/mountinfo", "utf8"));
    const args = unshareArgs(programs, userNamespace, entries, scratch, "true", []);
    const run = spawnSync(programs.unshare, args, {
      cwd: scratch,
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "ignore", "pipe"],
    });
    if (run.error !== undefined) {
      const missing = (run.error as { code?: unknown }).code === "ENOENT";
      const why = missing ? "the unshare program (util-linux) was not found" : run.error.message;
      throw new SandboxUnavailableError(`Command sandbox unavailable: ${why}.`, { cause: run.error });
    }
    if (run.status !== 0) {
      const stderr = (run.stderr ?? "").trim().slice(0, 500);
      const how = userNamespace ? "in a user namespace (are unprivileged user namespaces enabled?)" : "as root";
      throw new SandboxUnavailableError(
        `Command sandbox unavailable: namespaces could not be set up ${how}: ${stderr || `exit ${run.status ?? run.signal}`}.`,
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The sandbox `sandbox` asks for, or `undefined` for `"none"`. A namespace sandbox is tried once
 * here (a throwaway command in a scratch directory); where the platform, the kernel or the tools
 * do not allow it, this throws {@link SandboxUnavailableError}: never a silent fallback.
 */
export function createCommandSandbox(sandbox: WorkspaceSandbox): CommandSandbox | undefined {
  if (sandbox === "none") return undefined;
  const options: NamespaceSandboxOptions = sandbox === "namespaces" ? { kind: "namespaces" } : sandbox;
  if (options.kind !== "namespaces") {
    throw new SandboxUnavailableError(`Unknown sandbox kind ${JSON.stringify((options as { kind: unknown }).kind)}.`);
  }
  if (process.platform !== "linux") {
    throw new SandboxUnavailableError(
      `Command sandbox unavailable: namespaces need Linux (this is ${process.platform}).`,
    );
  }
  const userNamespace = resolveUserNamespace(options);
  const programs = findPrograms();
  probe(programs, userNamespace);
  return {
    async wrap(command, args, workspace) {
      const entries = parseMountInfo(await readFile("/proc/self/mountinfo", "utf8"));
      return {
        command: programs.unshare,
        args: unshareArgs(programs, userNamespace, entries, workspace, command, args),
      };
    },
  };
}
