import { formatPath, isParsedInside, parsePath, resolveAgainst } from "./lexical-path.js";
import type { ToolPolicy } from "../contracts/tool-policy.js";

/** The outcome of {@link resolveWorkspacePath}: the normalised absolute path, or why it is refused. */
export type WorkspacePathResult = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Resolves a path a tool received against `policy.workspaceRoot` and confines it there,
 * lexically (see {@link isPathInside}). Never throws.
 *
 * Refused, with a `reason` fit to show the model: no workspace root configured (`null` or empty
 * root: every path is refused), a path that is not a string or holds a NUL byte, and a path that
 * resolves outside the root. An accepted path is normalised and joined with the root's separator
 * style (`\` when the root uses only backslashes, else `/`). The reason never reveals the root.
 */
export function resolveWorkspacePath(policy: ToolPolicy, path: string): WorkspacePathResult {
  const root = policy.workspaceRoot;
  if (root === null || root === "") {
    return {
      ok: false,
      reason: "No workspace root is configured (policy.workspaceRoot is null): workspace tools refuse every path.",
    };
  }
  if (typeof path !== "string") return { ok: false, reason: "The path must be a string." };
  if (path.includes("\0")) return { ok: false, reason: "The path contains a NUL byte." };
  if (root.includes("\0")) return { ok: false, reason: "The workspace root is invalid (NUL byte)." };
  const resolved = resolveAgainst(root, path);
  if (!isParsedInside(parsePath(root), resolved)) {
    return {
      ok: false,
      reason: `Path ${JSON.stringify(path)} is outside the workspace; use a path relative to the workspace root.`,
    };
  }
  const separator = root.includes("\\") && !root.includes("/") ? "\\" : "/";
  return { ok: true, path: formatPath(resolved, separator) };
}
