/// <reference types="node" />
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isPathInside } from "../policy/is-path-inside.js";
import { resolveWorkspacePath } from "../policy/resolve-workspace-path.js";
import type { ToolPolicy } from "../policy/tool-policy.js";

/** A short, path-free description of a file system error, fit for the model. */
export function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "a parent is not a directory";
    case "ELOOP":
      return "is a symbolic link (not followed)";
    default:
      return typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  }
}

const exists = (path: string) => lstat(path).then(
  () => true,
  () => false,
);

/**
 * The real path of `path`, or, when it does not exist yet, the real path of its nearest existing
 * ancestor joined with the missing rest (which, being lexically normalised, holds no `..`).
 */
async function realpathOfNearestExisting(path: string, shown: string): Promise<string> {
  const missing: string[] = [];
  for (let current = path; ; ) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") {
        throw new Error(`Cannot resolve path ${JSON.stringify(shown)}: ${describeFsError(error)}.`, { cause: error });
      }
      // realpath fails on a dangling symlink while lstat sees it: writing would follow it anywhere.
      if (await exists(current)) throw new Error(`Path ${JSON.stringify(shown)} goes through a broken symbolic link.`);
      const parent = dirname(current);
      if (parent === current) throw new Error(`Cannot resolve path ${JSON.stringify(shown)}: no existing parent.`);
      missing.push(basename(current));
      current = parent;
    }
  }
}

/**
 * Confines a model-supplied path to `policy.workspaceRoot`: lexically (`..`, absolute paths, NUL
 * bytes, no root configured) and then by real path, so a symbolic link inside the workspace that
 * points outside it is refused too. A path that does not exist yet is checked through its nearest
 * existing parent. Returns the real absolute path to use; throws an `Error` whose message is fit
 * for the model (it names the given path, never the root).
 *
 * Checks happen before the file operation: a concurrent swap of a directory for a symlink in
 * between is not covered (callers open the final component with `O_NOFOLLOW` where available).
 */
export async function confineWorkspacePath(policy: ToolPolicy, path: string): Promise<string> {
  const lexical = resolveWorkspacePath(policy, path);
  if (!lexical.ok) throw new Error(lexical.reason);
  let realRoot: string;
  try {
    realRoot = await realpath(policy.workspaceRoot as string);
  } catch (error) {
    throw new Error(`The workspace root cannot be used: ${describeFsError(error)}.`, { cause: error });
  }
  const real = await realpathOfNearestExisting(lexical.path, path);
  if (!isPathInside(realRoot, real)) {
    throw new Error(`Path ${JSON.stringify(path)} resolves outside the workspace (through a symbolic link).`);
  }
  return real;
}
