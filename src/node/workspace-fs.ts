/// <reference types="node" />
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  access,
  lstat,
  mkdir,
  open,
  opendir,
  readlink,
  realpath,
  rename,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import { isPathInside } from "../policy/is-path-inside.js";
import { describeFsError, type ConfinedPath } from "./workspace-path.js";

// Confined file operations for the workspace tools (not public). Confinement holds against a
// concurrent attacker in the workspace by verifying what was opened, not the path beforehand:
//
// - With /proc (Linux): every file and directory is opened first, then the kernel's path of the
//   open handle (`/proc/self/fd/N`) must lie inside the workspace's real root. Creating, renaming
//   and listing go through `/proc/self/fd/<dir>/name`, i.e. relative to a directory handle that was
//   verified, so swapping a directory for a symlink meanwhile cannot redirect them.
// - Without /proc (macOS, BSD, Windows): after opening, the path's real path must lie inside, the
//   opened handle must be the same file (dev/ino) as that real path names, and the real path must
//   not have changed meanwhile. Every operation goes by path there: these checks narrow the window
//   in which a concurrent swap of a directory for a symlink can redirect a read, a write or a
//   listing, but cannot close it (Node has no openat). Symlinks at rest are always refused.

/** How the confined operations verify what they opened. */
export interface WorkspaceFsOptions {
  /**
   * Verify through `/proc/self/fd`; `false` forces the portable fallback. @default true on Linux when /proc is mounted
   */
  procFd?: boolean;
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// Opening a FIFO without a writer must not block a libuv thread (no effect on regular files).
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const DIR_FLAGS = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;
const PROC_FD = "/proc/self/fd/";

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;
const failWith =
  (action: string, shown: string) =>
  (error: unknown): never => {
    throw new Error(`Cannot ${action} ${JSON.stringify(shown)}: ${describeFsError(error)}.`, { cause: error });
  };
const changed = (shown: string) =>
  new Error(`Path ${JSON.stringify(shown)} resolves outside the workspace (it changed while being opened).`);

/**
 * Whether confined operations verify through `/proc/self/fd` (resolve once for many operations: pass it as `procFd`).
 */
export async function useProcFd(options: WorkspaceFsOptions = {}): Promise<boolean> {
  if (options.procFd !== undefined) return options.procFd;
  if (process.platform !== "linux") return false;
  return access(PROC_FD).then(
    () => true,
    () => false,
  );
}

/** What an open handle is, checked to lie inside the workspace (see the module comment). */
async function verifyHandle(
  handle: FileHandle,
  expectedPath: string,
  root: string,
  shown: string,
  proc: boolean,
): Promise<void> {
  if (proc) {
    const opened = await readlink(PROC_FD + handle.fd).catch(() => undefined);
    if (opened === undefined || !isPathInside(root, opened)) throw changed(shown);
    return;
  }
  // One after the other, each on what the one before resolved: checked concurrently, a swap
  // between the lstat and the realpath let an outside file pass (lstat through the link, realpath
  // after the swap back).
  const opened = await handle.stat({ bigint: true });
  const real = await realpath(expectedPath).catch(() => undefined);
  if (real === undefined || !isPathInside(root, real)) throw changed(shown);
  const named = await lstat(real, { bigint: true }).catch(() => undefined);
  if (named === undefined || opened.dev !== named.dev || opened.ino !== named.ino) throw changed(shown);
  if ((await realpath(expectedPath).catch(() => undefined)) !== real) throw changed(shown);
}

/**
 * A directory verified to lie inside the workspace. `path` names it for further calls: with /proc
 * it is `/proc/self/fd/N`, which keeps naming the very directory opened, wherever it moves.
 */
interface ConfinedDirectory {
  path: string;
  /** Throws unless the directory still lies inside the workspace. */
  verify(): Promise<void>;
  close(): Promise<void>;
}

async function openDirectory(
  path: string,
  root: string,
  shown: string,
  proc: boolean,
  action: string,
): Promise<ConfinedDirectory> {
  if (proc) {
    const handle = await open(path, DIR_FLAGS).catch(failWith(action, shown));
    const verify = () => verifyHandle(handle, path, root, shown, true);
    try {
      await verify();
    } catch (error) {
      await handle.close();
      throw error;
    }
    return { path: PROC_FD + handle.fd, verify, close: () => handle.close() };
  }
  // Fallback: no directory handles (Windows cannot open them); compare identities instead.
  const before = await lstat(path, { bigint: true }).catch(failWith(action, shown));
  if (!before.isDirectory()) throw new Error(`Cannot ${action} ${JSON.stringify(shown)}: not a directory.`);
  const verify = async () => {
    const [now, real] = await Promise.all([
      lstat(path, { bigint: true }).catch(() => undefined),
      realpath(path).catch(() => undefined),
    ]);
    if (
      now === undefined ||
      real === undefined ||
      !isPathInside(root, real) ||
      now.dev !== before.dev ||
      now.ino !== before.ino
    ) {
      throw changed(shown);
    }
  };
  await verify();
  return { path, verify, close: async () => {} };
}

/**
 * Reads at most `maxBytes` of a confined regular file from `offset`. Refuses directories, FIFOs,
 * sockets and devices without blocking, and anything that resolves outside the workspace.
 */
export async function readConfinedFile(
  target: ConfinedPath,
  shown: string,
  range: { offset: number; maxBytes: number },
  options: WorkspaceFsOptions = {},
): Promise<{ size: number; bytes: Buffer }> {
  const proc = await useProcFd(options);
  const handle = await open(target.real, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: unknown) => {
    if (codeOf(error) === "EISDIR") throw isDirectoryError(shown);
    return failWith("read", shown)(error);
  });
  try {
    await verifyHandle(handle, target.real, target.realRoot, shown, proc);
    const info = await handle.stat();
    if (info.isDirectory()) throw isDirectoryError(shown);
    if (!info.isFile()) throw new Error(`Cannot read ${JSON.stringify(shown)}: not a regular file.`);
    const buffer = Buffer.alloc(Math.max(0, Math.min(range.maxBytes, info.size - range.offset)));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, range.offset);
    return { size: info.size, bytes: buffer.subarray(0, bytesRead) };
  } finally {
    await handle.close();
  }
}

const isDirectoryError = (shown: string) =>
  new Error(`Cannot read ${JSON.stringify(shown)}: it is a directory; use list_directory.`);

/** An entry of a listed directory. */
export interface ConfinedEntry {
  name: string;
  type: "directory" | "file" | "symlink" | "other";
}

/**
 * Lists a confined directory: its first `max` entries by name (UTF-16 order), and whether there
 * were more. Memory stays bounded by `max` however large the directory is.
 */
export async function listConfinedDirectory(
  target: ConfinedPath,
  shown: string,
  max: number,
  options: WorkspaceFsOptions = {},
): Promise<{ entries: ConfinedEntry[]; truncated: boolean }> {
  const proc = await useProcFd(options);
  const dir = await openDirectory(target.real, target.realRoot, shown, proc, "list").catch((error: unknown) => {
    if (codeOf((error as Error).cause) === "ENOTDIR")
      throw new Error(`Cannot list ${JSON.stringify(shown)}: not a directory.`);
    throw error;
  });
  try {
    const byName = (a: ConfinedEntry, b: ConfinedEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    let entries: ConfinedEntry[] = [];
    let total = 0;
    for await (const d of await opendir(dir.path).catch(failWith("list", shown))) {
      total++;
      entries.push({
        name: d.name,
        type: d.isDirectory() ? "directory" : d.isFile() ? "file" : d.isSymbolicLink() ? "symlink" : "other",
      });
      if (entries.length >= 2 * max + 64) entries = entries.sort(byName).slice(0, max);
    }
    await dir.verify();
    return { entries: entries.sort(byName).slice(0, max), truncated: total > max };
  } finally {
    await dir.close();
  }
}

/**
 * Creates or replaces a confined regular file with `content`, creating missing parent
 * directories. The content goes to a new temporary file in the verified parent directory, is
 * synced, and is renamed onto the target, so a reader never sees half a file and nothing but a
 * regular file is ever replaced: an existing directory, symlink, FIFO, socket or device is refused
 * without being opened. An existing file keeps its permission bits (not its owner or hard links).
 * Returns the number of bytes written.
 */
export async function writeConfinedFile(
  target: ConfinedPath,
  shown: string,
  content: string,
  options: WorkspaceFsOptions = {},
): Promise<number> {
  if (target.missing.length === 0 && target.real === target.realRoot)
    throw new Error(`Cannot write ${JSON.stringify(shown)}: it is a directory.`);
  const proc = await useProcFd(options);
  const root = target.realRoot;
  const [start, toCreate, name] =
    target.missing.length === 0
      ? [dirname(target.real), [], basename(target.real)]
      : [target.existing, target.missing.slice(0, -1), target.missing[target.missing.length - 1] as string];

  let dir = await openDirectory(start, root, shown, proc, "write");
  try {
    for (const part of toCreate) {
      await mkdir(join(dir.path, part)).catch((error: unknown) => {
        if (codeOf(error) !== "EEXIST") failWith("create the parent of", shown)(error);
      });
      const next = await openDirectory(join(dir.path, part), root, shown, proc, "create the parent of");
      await dir.close();
      dir = next;
    }
    const at = (entry: string) => join(dir.path, entry);
    let mode = 0o666;
    const existing = await lstat(at(name)).catch((error: unknown) =>
      codeOf(error) === "ENOENT" ? undefined : failWith("write", shown)(error),
    );
    if (existing !== undefined) {
      if (existing.isDirectory()) throw new Error(`Cannot write ${JSON.stringify(shown)}: it is a directory.`);
      if (existing.isSymbolicLink())
        throw new Error(`Cannot write ${JSON.stringify(shown)}: it is a symbolic link (not followed).`);
      if (!existing.isFile()) throw new Error(`Cannot write ${JSON.stringify(shown)}: not a regular file.`);
      await access(at(name), constants.W_OK).catch(failWith("write", shown));
      mode = existing.mode & 0o777;
    }

    const temporary = `.agentry-${randomBytes(8).toString("hex")}.tmp`;
    const handle = await open(
      at(temporary),
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW,
      mode,
    ).catch(failWith("write", shown));
    let placed = false;
    try {
      let written;
      try {
        if (existing !== undefined) await handle.chmod(mode);
        await handle.writeFile(content, "utf8");
        await handle.sync();
        await verifyHandle(handle, at(temporary), root, shown, proc);
        written = await handle.stat({ bigint: true });
      } finally {
        await handle.close();
      }
      await rename(at(temporary), at(name)).catch(failWith("write", shown));
      placed = true;
      if (!proc) {
        // Without directory handles the rename went by path: check it landed where verified.
        const landed = await lstat(at(name), { bigint: true }).catch(() => undefined);
        if (landed === undefined || landed.dev !== written.dev || landed.ino !== written.ino) throw changed(shown);
      }
      // The directory may have been moved out of the workspace meanwhile: take the file back
      // (with /proc only: by path, the name might now lead somewhere else entirely).
      await dir.verify().catch(async (error: unknown) => {
        if (proc) await unlink(at(name)).catch(() => {});
        throw error;
      });
    } finally {
      if (!placed) await unlink(at(temporary)).catch(() => {});
    }
    return Buffer.byteLength(content, "utf8");
  } finally {
    await dir.close();
  }
}

/**
 * Opens a confined directory for a child process to start in. `path` names the verified
 * directory until `close()`: with /proc it is `/proc/self/fd/N`, which a child inherits and
 * `chdir`s through before it runs (Node spawns by fork and exec), so a swap cannot redirect it.
 */
export async function openConfinedDirectory(
  target: ConfinedPath,
  shown: string,
  options: WorkspaceFsOptions = {},
): Promise<{ path: string; close(): Promise<void> }> {
  const proc = await useProcFd(options);
  return openDirectory(target.real, target.realRoot, shown, proc, "use").catch((error: unknown) => {
    const cause = (error as Error).cause;
    if (codeOf(cause) === "ENOTDIR" || /not a directory/.test((error as Error).message)) {
      throw new Error(`Working directory ${JSON.stringify(shown)} is not a directory.`);
    }
    if (cause === undefined) throw error;
    throw new Error(`Cannot use ${JSON.stringify(shown)} as working directory: ${describeFsError(cause)}.`, { cause });
  });
}

/**
 * Deletes a confined regular file: the name is removed through the verified parent directory
 * (with /proc: its handle), so a swap of a parent for a symlink cannot redirect the deletion. A
 * directory, symlink, FIFO, socket or device is refused, as is a missing file.
 */
export async function deleteConfinedFile(
  target: ConfinedPath,
  shown: string,
  options: WorkspaceFsOptions = {},
): Promise<void> {
  if (target.missing.length > 0) throw new Error(`Cannot delete ${JSON.stringify(shown)}: no such file.`);
  if (target.real === target.realRoot) throw new Error(`Cannot delete ${JSON.stringify(shown)}: it is a directory.`);
  const proc = await useProcFd(options);
  const dir = await openDirectory(dirname(target.real), target.realRoot, shown, proc, "delete");
  try {
    const at = join(dir.path, basename(target.real));
    const info = await lstat(at).catch(failWith("delete", shown));
    if (info.isDirectory()) throw new Error(`Cannot delete ${JSON.stringify(shown)}: it is a directory.`);
    if (info.isSymbolicLink())
      throw new Error(`Cannot delete ${JSON.stringify(shown)}: it is a symbolic link (not followed).`);
    if (!info.isFile()) throw new Error(`Cannot delete ${JSON.stringify(shown)}: not a regular file.`);
    await dir.verify();
    await unlink(at).catch(failWith("delete", shown));
  } finally {
    await dir.close();
  }
}
