/// <reference types="node" />
import { link, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { SessionStoreError } from "../errors/errors.js";

/** The `code` of a Node system error. */
export const errorCode = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** Parsed JSON of a file, or `undefined` when it does not exist. */
export async function readJsonFile<T>(path: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new SessionStoreError(`Corrupt session file ${path}: not valid JSON`, { cause: error });
  }
}

async function writeFileExclusive(path: string, data: string, fsync: boolean): Promise<void> {
  const handle = await open(path, "wx");
  try {
    await handle.writeFile(data);
    if (fsync) await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeTemp(path: string, data: string, fsync: boolean): Promise<string> {
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await writeFileExclusive(temp, data, fsync);
  return temp;
}

/** Flushes a directory's entries (renames, new files). A no-op where directories cannot be opened. */
export async function syncDirectory(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, "r");
    await handle.sync();
  } catch (error) {
    if (!["EISDIR", "EPERM", "EACCES", "EINVAL", "EBADF"].includes(errorCode(error) as string)) throw error;
  } finally {
    await handle?.close();
  }
}

/** Replaces `path` atomically: readers see the old or the new content, never a mix. */
export async function writeFileAtomic(path: string, data: string, fsync: boolean): Promise<void> {
  const temp = await writeTemp(path, data, fsync);
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (fsync) await syncDirectory(dirname(path));
}

/** Creates `path` atomically unless it exists; false when it does. */
export async function createFileExclusive(path: string, data: string, fsync: boolean): Promise<boolean> {
  const temp = await writeTemp(path, data, fsync);
  try {
    await link(temp, path);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    if (!["EPERM", "ENOTSUP", "ENOSYS", "EOPNOTSUPP"].includes(errorCode(error) as string)) throw error;
    // No hard links here (some network and FUSE file systems): exclusive, though not atomic.
    try {
      await writeFileExclusive(path, data, fsync);
    } catch (fallbackError) {
      if (errorCode(fallbackError) === "EEXIST") return false;
      throw fallbackError;
    }
  } finally {
    await rm(temp, { force: true });
  }
  if (fsync) await syncDirectory(dirname(path));
  return true;
}
