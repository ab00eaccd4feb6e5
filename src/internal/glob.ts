import { Minimatch, type MinimatchOptions } from "minimatch";

// Names, capabilities and ids are matched as plain strings: no comments, no negation (a "!x" in a
// denylist must never mean "deny everything but x"), dots matched like any character, and the
// same result on every platform (no backslash-as-separator on Windows).
const OPTIONS: MinimatchOptions = { dot: true, nocomment: true, nonegate: true, platform: "linux" };

/** A predicate telling whether a value matches at least one of the patterns. */
export type GlobMatcher = (value: string) => boolean;

/**
 * Compiles glob patterns once (`*`, `?`, `[...]`, `{a,b}`, `**`), for matching many values.
 * An empty list matches nothing.
 */
export function compileGlobs(patterns: readonly string[]): GlobMatcher {
  const compiled = patterns.map((pattern) => new Minimatch(pattern, OPTIONS));
  return (value) => compiled.some((m) => m.match(value));
}

/** True when `value` matches at least one of `patterns`; false for an empty list. */
export function matchesAnyGlob(patterns: readonly string[], value: string): boolean {
  return compileGlobs(patterns)(value);
}
