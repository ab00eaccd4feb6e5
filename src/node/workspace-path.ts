/// <reference types="node" />
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { isPathInside } from "../policy/is-path-inside.js";
import { resolveWorkspacePath } from "../policy/resolve-workspace-path.js";
import type { ToolPolicy } from "../contracts/tool-policy.js";

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

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** A model-supplied path confined to the workspace, as {@link resolveConfinedPath} returns it. */
export interface ConfinedPath {
  /** Real path of the workspace root. */
  realRoot: string;
  /** Real path of the target (for a missing target: its nearest existing ancestor's real path joined with the rest). */
  real: string;
  /** Real path of the nearest existing ancestor of the target, or of the target itself when it exists. */
  existing: string;
  /** The names below `existing` that do not exist yet, outermost first (none when the target exists). */
  missing: string[];
}

/**
 * The real path of `path`'s nearest existing ancestor (the path itself when it exists) and the
 * names missing below it (which, being lexically normalised, hold no `..`).
 */
async function realpathOfNearestExisting(
  path: string,
  shown: string,
): Promise<{ existing: string; missing: string[] }> {
  const missing: string[] = [];
  for (let current = path; ;) {
    try {
      return { existing: await realpath(current), missing: missing.reverse() };
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
 * existing parent. Throws an `Error` whose message is fit for the model (it names the given path,
 * never the root).
 *
 * This check alone is a snapshot: a directory swapped for a symlink right after it can still
 * redirect a later open. The workspace tools therefore open through `workspace-fs.ts`, which
 * verifies what was actually opened.
 */
export async function resolveConfinedPath(policy: ToolPolicy, path: string): Promise<ConfinedPath> {
  const lexical = resolveWorkspacePath(policy, path);
  if (!lexical.ok) throw new Error(lexical.reason);
  let realRoot: string;
  try {
    realRoot = await realpath(policy.workspaceRoot as string);
  } catch (error) {
    throw new Error(`The workspace root cannot be used: ${describeFsError(error)}.`, { cause: error });
  }
  const { existing, missing } = await realpathOfNearestExisting(lexical.path, path);
  const real = join(existing, ...missing);
  if (!isPathInside(realRoot, real)) throw outsideError(path);
  return { realRoot, real, existing, missing };
}

/** The error for a path that leads outside the workspace. */
export function outsideError(path: string): Error {
  return new Error(`Path ${JSON.stringify(path)} resolves outside the workspace (through a symbolic link).`);
}

/**
 * Refuses a write, creation or deletion inside git metadata (a `.git` file or directory anywhere
 * in the real path, any letter case): a repository's config can make `git` run programs (fsmonitor,
 * filters), so the tools that change files never touch it and `git_status` / `git_diff` stay read-only.
 */
export function refuseGitMetadata(target: ConfinedPath, shown: string, action: string): void {
  const parts = relative(target.realRoot, target.real).split(sep);
  if (parts.some((part) => part.toLowerCase() === ".git")) {
    throw new Error(
      `Cannot ${action} ${JSON.stringify(shown)}: it is inside .git (git metadata is not changed by the workspace tools).`,
    );
  }
}
