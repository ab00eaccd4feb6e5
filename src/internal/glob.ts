import { InvalidArgumentError } from "../errors/errors.js";

/**
 * The one glob dialect of tool names, capabilities, skill (plugin) ids and agent ids.
 *
 * - `*` matches any run of characters, including none, and crosses `/`, `.` and `:`
 *   (`secrets*` matches `secrets/mail.send`; there are no path segments). `**` is the same as `*`.
 * - `?` matches exactly one character (one code point).
 * - `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` match one character of (or not of) a set.
 * - `{a,b,c}` matches one of the alternatives (which may hold globs and nest); at most
 *   {@link MAX_GLOB_ALTERNATIVES} alternatives per pattern after expansion. Ranges such as
 *   `{1..9}` are not supported and rejected (their expansion is unbounded).
 * - `\x` matches `x` literally. Everything else matches itself: `!` and `#` have no meaning,
 *   so a denylist entry can never mean "everything but". An unclosed `[` or `{` is literal.
 *
 * Matching is over the whole value, case-sensitive, and costs O(pattern × value) per
 * alternative: no regex, no backtracking blow-up.
 */

/** A predicate telling whether a value matches at least one of the patterns. */
export type GlobMatcher = (value: string) => boolean;

/** Most alternatives one pattern may expand to through `{...}`. */
export const MAX_GLOB_ALTERNATIVES = 256;

type Token =
  | { kind: "star" }
  | { kind: "one" }
  | { kind: "char"; value: string }
  | { kind: "set"; negated: boolean; items: [string, string][] };

/** The index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(pattern: string, open: number): number {
  let depth = 0;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** Splits the inside of a brace group at its top-level commas. */
function splitAlternatives(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** Expands `{a,b}` groups, refusing ranges and more than MAX_GLOB_ALTERNATIVES results. */
function expandBraces(pattern: string): string[] {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c !== "{") continue;
    const close = closingBrace(pattern, i);
    if (close < 0) return [pattern]; // unclosed: literal
    const inner = pattern.slice(i + 1, close);
    const alternatives = splitAlternatives(inner);
    if (alternatives.length === 1) {
      if (/^[^{},]*\.\.[^{},]*$/.test(inner))
        throw new InvalidArgumentError(
          `glob: brace ranges such as "{${inner}}" are not supported: list the alternatives, as in {a,b}`,
        );
      continue; // "{x}" is literal, as in shells
    }
    const head = pattern.slice(0, i);
    const tails = expandBraces(pattern.slice(close + 1));
    const out: string[] = [];
    for (const alternative of alternatives) {
      for (const middle of expandBraces(alternative)) {
        for (const tail of tails) {
          out.push(head + middle + tail);
          if (out.length > MAX_GLOB_ALTERNATIVES)
            throw new InvalidArgumentError(`glob: expands to more than ${MAX_GLOB_ALTERNATIVES} alternatives`);
        }
      }
    }
    return out;
  }
  return [pattern];
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === "\\" && i + 1 < chars.length) tokens.push({ kind: "char", value: chars[++i]! });
    else if (c === "*") {
      if (tokens[tokens.length - 1]?.kind !== "star") tokens.push({ kind: "star" });
    } else if (c === "?") tokens.push({ kind: "one" });
    else if (c === "[") {
      const set = readSet(chars, i);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: "char", value: c });
    } else tokens.push({ kind: "char", value: c });
  }
  return tokens;
}

function readSet(chars: string[], open: number): { token: Token; end: number } | undefined {
  let i = open + 1;
  const negated = chars[i] === "!" || chars[i] === "^";
  if (negated) i++;
  const items: [string, string][] = [];
  for (let first = true; i < chars.length; first = false) {
    let c = chars[i]!;
    if (c === "]" && !first) return { token: { kind: "set", negated, items }, end: i };
    if (c === "\\" && i + 1 < chars.length) c = chars[++i]!;
    if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
      let to = chars[i + 2]!;
      i += 2;
      if (to === "\\" && i + 1 < chars.length) to = chars[++i]!;
      items.push([c, to]);
    } else items.push([c, c]);
    i++;
  }
  return undefined; // unclosed: literal "["
}

function matchesToken(token: Exclude<Token, { kind: "star" }>, c: string): boolean {
  if (token.kind === "one") return true;
  if (token.kind === "char") return token.value === c;
  const code = c.codePointAt(0)!;
  const inside = token.items.some(([from, to]) => code >= from.codePointAt(0)! && code <= to.codePointAt(0)!);
  return inside !== token.negated;
}

/** Whole-value wildcard match, greedy with one backtrack point (the last `*`): O(tokens × chars). */
function matchTokens(tokens: Token[], value: string[]): boolean {
  let t = 0;
  let v = 0;
  let starT = -1;
  let starV = 0;
  while (v < value.length) {
    const token = tokens[t];
    if (token && token.kind !== "star" && matchesToken(token, value[v]!)) {
      t++;
      v++;
    } else if (token?.kind === "star") {
      starT = t++;
      starV = v;
    } else if (starT >= 0) {
      t = starT + 1;
      v = ++starV;
    } else return false;
  }
  while (tokens[t]?.kind === "star") t++;
  return t === tokens.length;
}

/**
 * Compiles glob patterns once (see the dialect above), for matching many values. An empty list
 * matches nothing. Throws {@link InvalidArgumentError} for a brace range or an expansion over the limit.
 */
export function compileGlobs(patterns: readonly string[]): GlobMatcher {
  const compiled: Token[][] = [];
  for (const pattern of patterns) for (const alternative of expandBraces(pattern)) compiled.push(tokenize(alternative));
  return (value) => {
    const chars = Array.from(value);
    return compiled.some((tokens) => matchTokens(tokens, chars));
  };
}
