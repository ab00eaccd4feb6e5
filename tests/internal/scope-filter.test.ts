import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "@agentry/core";
import { matchesScopeFilter, prefixUpperBound, scopeFilterOf } from "../../src/internal/scope-filter.js";

/** Code point order, the order of UTF-8 bytes (SQLite BINARY, Postgres "C"); lone surrogates count as U+FFFD as both drivers write them. */
function compareCodePoints(a: string, b: string): number {
  const points = (text: string) =>
    Array.from(text, (char) =>
      char.length === 1 && char >= "\uD800" && char <= "\uDFFF" ? 0xfffd : char.codePointAt(0)!,
    );
  const [left, right] = [points(a), points(b)];
  for (let index = 0; index < Math.min(left.length, right.length); index++)
    if (left[index] !== right[index]) return left[index]! - right[index]!;
  return left.length - right.length;
}

/** A range query as a database runs it: prefix <= scope < bound. */
const inRange = (scope: string, prefix: string) => {
  const bound = prefixUpperBound(prefix);
  return compareCodePoints(prefix, scope) <= 0 && (bound === undefined || compareCodePoints(scope, bound) < 0);
};

// Characters near the edges that matter: NUL, the escape, the last BMP code points before and after the surrogates, astral, the last one.
const edgy = fc.constantFrom(
  "\u0000",
  "\u0001",
  "a",
  "b",
  "%",
  "_",
  "\\",
  "\uD7FF",
  "\uE000",
  "\uFFFD",
  "\uFFFF",
  "😀",
  "\u{10FFFF}",
);
const text = fc.array(edgy, { maxLength: 6 }).map((chars) => chars.join(""));

describe("prefixUpperBound", () => {
  it("makes a prefix match an index range: startsWith(prefix) exactly when prefix <= scope < bound (code point order)", () => {
    fc.assert(
      fc.property(text, text, (prefix, rest) => {
        expect(inRange(prefix + rest, prefix)).toBe(true);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(text, text, (scope, prefix) => {
        expect(inRange(scope, prefix)).toBe(scope.startsWith(prefix));
      }),
      { numRuns: 4000 },
    );
  });

  it("steps over the surrogates and past the last code point", () => {
    expect(prefixUpperBound("a")).toBe("b");
    expect(prefixUpperBound("x\uD7FF")).toBe("x\uE000");
    expect(prefixUpperBound("a\u{10FFFF}")).toBe("b");
    expect(prefixUpperBound("\u{10FFFF}\u{10FFFF}")).toBeUndefined();
    expect(prefixUpperBound("")).toBeUndefined();
    expect(prefixUpperBound("😀")).toBe("😁");
  });
});

describe("scopeFilterOf", () => {
  it("takes scope or scopePrefix, never both; '' is a prefix of every scope and matches no unscoped session", () => {
    expect(scopeFilterOf("op", {}, { allowNull: true })).toEqual({ kind: "any" });
    expect(scopeFilterOf("op", { scope: null }, { allowNull: true })).toEqual({ kind: "unscoped" });
    expect(scopeFilterOf("op", { scopePrefix: "" }, { allowNull: true })).toEqual({ kind: "prefix", prefix: "" });
    expect(() => scopeFilterOf("op", { scope: "a", scopePrefix: "a" }, { allowNull: true })).toThrow(
      InvalidArgumentError,
    );
    expect(() => scopeFilterOf("op", { scope: null }, { allowNull: false })).toThrow(InvalidArgumentError);
    expect(() => scopeFilterOf("op", { scopePrefix: 1 as unknown as string }, { allowNull: true })).toThrow(
      /scopePrefix must be a string/,
    );
    expect(matchesScopeFilter(undefined, { kind: "prefix", prefix: "" })).toBe(false);
    expect(matchesScopeFilter("x", { kind: "prefix", prefix: "" })).toBe(true);
  });
});
