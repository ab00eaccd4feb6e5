import { isParsedInside, parsePath, resolveAgainst } from "./lexical-path.js";

/**
 * True when `candidate` is `root` itself or lies below it, judged lexically (no file system
 * access, so symlinks are not followed: the Node workspace tools also check `realpath`).
 *
 * - `"/"` and `"\\"` both separate; `.`, `..` and duplicate separators are normalised, and `..`
 *   cannot climb above an absolute root (`/..` is `/`).
 * - A relative `candidate` is resolved against `root`; an absolute one is compared as is.
 * - Windows drive letters compare case-insensitively (`C:\a` and `c:/a` are the same root); a
 *   different drive, a drive-relative path (`C:foo`) or a UNC path against a local root is outside.
 * - Segments compare exactly: `/a/bc` is not inside `/a/b`, and `/A` is not inside `/a`.
 * - A NUL byte in either path, or an empty root, gives `false`.
 */
export function isPathInside(root: string, candidate: string): boolean {
  if (root === "" || root.includes("\0") || candidate.includes("\0")) return false;
  return isParsedInside(parsePath(root), resolveAgainst(root, candidate));
}
