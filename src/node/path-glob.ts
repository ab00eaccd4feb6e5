import { compileLinearRegex, RegexSubsetError, type LinearRegex } from "../internal/linear-regex.js";

/**
 * File globs of `search_files` (not public), ripgrep-style, over `/`-separated paths relative to
 * the workspace root:
 *
 * - A pattern without `/` matches a name at any depth (`*.ts`, `node_modules`); one with `/`
 *   matches the whole relative path (`src/**\/*.ts`); a leading `/` only anchors (`/dist`).
 * - `*` matches within one name (never `/`), `?` one character of a name, `**` any run of names
 *   (`**\/` also none), `[a-z]` / `[!a-z]` one character of (or not of) a set, `{a,b}` one of the
 *   alternatives, `\x` the character `x`. An unclosed `[` or `{` is literal.
 *
 * Patterns become one anchored pattern of the package's linear-time engine, so matching costs at
 * most (program size x path length) steps whatever the model wrote; a pattern set that compiles
 * to more than the engine's program limit is refused.
 */
export interface PathGlob {
  /** Whether `path` (relative, `/`-separated, no leading `/`) matches one of the patterns. */
  matches(path: string): boolean;
}

/** Most steps one match may take: far above what a compiled pattern set of the engine's size limit needs for a path. */
const MATCH_STEPS = 50_000_000;
const SYNTAX = new Set("^$\\.*+?()[]{}|/".split(""));
const CLASS_SPECIAL = new Set("\\]]^-[".split(""));

const literal = (c: string) => (SYNTAX.has(c) ? `\\${c}` : c);
const classChar = (c: string) => (CLASS_SPECIAL.has(c) ? `\\${c}` : c);

/** The `[...]` set opening at `open`, as engine source, and the index of its `]`; undefined when unclosed. */
function readSet(chars: string[], open: number): { source: string; end: number } | undefined {
  let i = open + 1;
  const negated = chars[i] === "!" || chars[i] === "^";
  if (negated) i++;
  let items = "";
  for (let first = true; i < chars.length; first = false) {
    let c = chars[i]!;
    if (c === "]" && !first) return { source: `[${negated ? "^/" : ""}${items}]`, end: i };
    if (c === "\\" && i + 1 < chars.length) c = chars[++i]!;
    if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
      let to = chars[i + 2]!;
      i += 2;
      if (to === "\\" && i + 1 < chars.length) to = chars[++i]!;
      items += `${classChar(c)}-${classChar(to)}`;
    } else items += classChar(c);
    i++;
  }
  return undefined;
}

/** The index of the `}` closing the `{` at `open` (nesting and escapes respected), or -1. */
function closingBrace(chars: string[], open: number): number {
  let depth = 0;
  for (let i = open; i < chars.length; i++) {
    const c = chars[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Translates glob characters `chars[from, to)` to engine source; `,` at brace depth > 0 separates alternatives. */
function translate(chars: string[], from: number, to: number, inBraces: boolean): string {
  let out = "";
  for (let i = from; i < to; i++) {
    const c = chars[i]!;
    if (c === "\\" && i + 1 < to) out += literal(chars[++i]!);
    else if (c === "*" && chars[i + 1] === "*") {
      while (chars[i + 1] === "*") i++;
      const slashAfter = chars[i + 1] === "/" && i + 1 < to;
      out += slashAfter ? "(?:[\\s\\S]*/)?" : "[\\s\\S]*";
      if (slashAfter) i++;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else if (c === "[") {
      const set = readSet(chars, i);
      if (set && set.end < to) {
        out += set.source;
        i = set.end;
      } else out += "\\[";
    } else if (c === "{") {
      const close = closingBrace(chars, i);
      if (close < 0 || close >= to) out += "\\{";
      else {
        out += `(?:${translate(chars, i + 1, close, true)})`;
        i = close;
      }
    } else if (c === "," && inBraces) out += "|";
    else out += literal(c);
  }
  return out;
}

function compile(patterns: string[]): LinearRegex | undefined {
  if (patterns.length === 0) return undefined;
  const alternatives = patterns.map((p) => {
    const chars = Array.from(p);
    return translate(chars, 0, chars.length, false);
  });
  return compileLinearRegex(`^(?:${alternatives.join("|")})$`);
}

/**
 * Compiles globs (see {@link PathGlob}). An empty list matches nothing. Throws an `Error` fit for
 * the model for a set the engine cannot take (too large once translated).
 */
export function compilePathGlobs(patterns: readonly string[], what: string): PathGlob {
  const trimmed = patterns.map((p) => p.replace(/\/+$/, "")).filter((p) => p !== "");
  let byName: LinearRegex | undefined;
  let byPath: LinearRegex | undefined;
  try {
    byName = compile(trimmed.filter((p) => !p.includes("/")));
    byPath = compile(trimmed.filter((p) => p.includes("/")).map((p) => p.replace(/^\/+/, "")));
  } catch (error) {
    const why = error instanceof RegexSubsetError ? error.message : String(error);
    throw new Error(`Invalid ${what} globs: ${why}.`, { cause: error });
  }
  const test = (regex: LinearRegex | undefined, value: string) =>
    regex !== undefined && regex.test(value, { steps: MATCH_STEPS }) === true;
  return {
    matches: (path) => test(byName, path.slice(path.lastIndexOf("/") + 1)) || test(byPath, path),
  };
}
