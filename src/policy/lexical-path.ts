// Lexical path handling shared by isPathInside and resolveWorkspacePath. No node:path: the core
// entry runs in browsers and edge runtimes too. Not public.

/** A path split into its parts: `prefix` is "", a drive ("C:") or "//" (UNC). */
export interface ParsedPath {
  prefix: string;
  absolute: boolean;
  /** Normalised: no "", "." or inner ".."; leading ".." only in relative paths. */
  segments: string[];
}

const DRIVE = /^[a-zA-Z]:/;

/**
 * Parses a POSIX or Windows path. Both "/" and "\\" separate; "." and duplicate separators are
 * dropped; ".." removes the previous segment and stops at the root of an absolute path.
 */
export function parsePath(path: string): ParsedPath {
  let rest = path.replace(/\\/g, "/");
  let prefix = "";
  if (DRIVE.test(rest)) {
    prefix = rest.slice(0, 2);
    rest = rest.slice(2);
  } else if (rest.startsWith("//")) {
    prefix = "//";
    rest = rest.slice(2);
  }
  const absolute = prefix === "//" || rest.startsWith("/");
  const segments: string[] = [];
  for (const part of rest.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") segments.push(part);
    else if (segments.length > 0 && segments[segments.length - 1] !== "..") segments.pop();
    else if (!absolute) segments.push("..");
  }
  return { prefix, absolute, segments };
}

/** True for a path with neither a drive, a UNC prefix nor a leading separator. */
export function isRelativePath(parsed: ParsedPath): boolean {
  return parsed.prefix === "" && !parsed.absolute;
}

/**
 * `candidate` resolved against `root`: a relative candidate is joined below the root, anything
 * else is taken as is.
 */
export function resolveAgainst(root: string, candidate: string): ParsedPath {
  const parsed = parsePath(candidate);
  return isRelativePath(parsed) ? parsePath(`${root}/${candidate}`) : parsed;
}

/** Formats a parsed path with the given separator. */
export function formatPath(parsed: ParsedPath, separator: "/" | "\\"): string {
  const body = parsed.segments.join(separator);
  if (parsed.prefix === "//") return `${separator}${separator}${body}`;
  const lead = parsed.absolute ? separator : "";
  const formatted = `${parsed.prefix}${lead}${body}`;
  return formatted === "" ? "." : formatted;
}

/** True when `candidate` is `root` or below it; both already parsed and resolved. */
export function isParsedInside(root: ParsedPath, candidate: ParsedPath): boolean {
  // A drive-relative path ("C:foo") depends on a per-drive current directory: never trusted.
  if ((root.prefix !== "" && !root.absolute) || (candidate.prefix !== "" && !candidate.absolute)) return false;
  // Drive letters are case-insensitive; the rest is compared exactly (refusing is the safe side).
  if (root.prefix.toLowerCase() !== candidate.prefix.toLowerCase()) return false;
  if (root.absolute !== candidate.absolute) return false;
  if (candidate.segments.length < root.segments.length) return false;
  for (let i = 0; i < root.segments.length; i++) {
    if (root.segments[i] !== candidate.segments[i]) return false;
  }
  // Only a relative path keeps ".." segments, all leading: any past the root's climbs out of it.
  return !candidate.segments.slice(root.segments.length).includes("..");
}
