import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { compileLinearRegex, MAX_PROGRAM, RegexSubsetError } from "../../src/internal/linear-regex.js";

const test = (pattern: string, input: string) => compileLinearRegex(pattern).test(input, { steps: 10_000_000 });

describe("compileLinearRegex", () => {
  it("agrees with RegExp (u flag) on typical schema patterns", () => {
    const cases: [string, string[]][] = [
      ["^[a-z0-9_-]+$", ["abc_1", "ABC", "", "a-b", "a b"]],
      ["^\\d{4}-\\d{2}-\\d{2}$", ["2024-01-31", "2024-1-31", "x2024-01-31"]],
      ["^[A-Z]{3}$", ["ABC", "ABCD", "AB"]],
      ["^(foo|bar)baz$", ["foobaz", "barbaz", "bazbaz"]],
      ["colou?r", ["color", "my colour", "colr"]],
      ["^\\w+@\\w+\\.com$", ["a@b.com", "a@b.org"]],
      ["\\bcat\\b", ["a cat!", "concat", "cat"]],
      ["\\Bcat", ["concat", "cat"]],
      ["^[^\\s]+$", ["abc", "a c"]],
      ["^.{2,4}$", ["a", "ab", "abcd", "abcde", "a\nb"]],
      ["^(?:ab)+$", ["abab", "aba"]],
      ["^(?<year>\\d+)$", ["123", "12a"]],
      ["^[\\x41-\\x43]+$", ["ABC", "ABD"]],
      ["^\\u{1F600}$", ["😀", "x"]],
      ["^.$", ["😀", "ab"]],
      ["a{0}b", ["b", "ab"]],
      ["^$", ["", "a"]],
      ["^[\\-a]+$", ["-a-", "b"]],
      ["^(a|a)*$", ["aaaa", "aab"]],
    ];
    for (const [pattern, inputs] of cases) {
      const native = new RegExp(pattern, "u");
      for (const input of inputs)
        expect([pattern, input, test(pattern, input)]).toEqual([pattern, input, native.test(input)]);
    }
  });

  it("agrees with RegExp on random patterns and inputs", () => {
    const atom = fc.constantFrom("a", "b", ".", "[ab]", "[^a]", "\\d", "\\w", "(a|b)", "(?:ab)", "(a*)", "x");
    const quant = fc.constantFrom("", "", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?");
    const piece = fc.tuple(atom, quant).map(([a, q]) => a + q);
    const pattern = fc
      .tuple(
        fc.boolean(),
        fc.array(piece, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.option(fc.array(piece, { maxLength: 3 })),
      )
      .map(
        ([start, pieces, end, other]) =>
          (start ? "^" : "") + pieces.join("") + (end ? "$" : "") + (other ? "|" + other.join("") : ""),
      );
    fc.assert(
      fc.property(pattern, fc.stringMatching(/^[abx1 ]{0,8}$/), (p, input) => {
        expect(test(p, input)).toBe(new RegExp(p, "u").test(input));
      }),
      { numRuns: 2000 },
    );
  });

  it("costs program × input steps: ^(a|a)*$ on 100,000 characters", () => {
    const regex = compileLinearRegex("^(a|a)*$");
    const budget = { steps: 10_000_000 };
    expect(regex.test("a".repeat(100_000) + "!", budget)).toBe(false);
    expect(10_000_000 - budget.steps).toBeLessThan(100_000 * 10);
  });

  it("answers undefined when the step budget runs out", () => {
    expect(compileLinearRegex("(a|b)*c").test("ab".repeat(1000), { steps: 100 })).toBeUndefined();
  });

  it("rejects what it does not support, saying what", () => {
    for (const [pattern, message] of [
      ["(a)\\1", /backreferences/],
      ["(?=a)", /lookahead/],
      ["(?<!a)b", /lookahead and lookbehind/],
      ["\\p{L}", /property escapes/],
      ["a{5000}", /over 1000/],
      ["(a{1000}){3}", new RegExp(`over ${MAX_PROGRAM}`)],
      ["a**", /nothing to repeat/],
      ["(a", /unterminated/],
      ["a)", /unmatched/],
      ["[a", /unterminated class/],
      ["\\q", /invalid escape/],
    ] as const) {
      expect(() => compileLinearRegex(pattern), pattern).toThrow(RegexSubsetError);
      expect(() => compileLinearRegex(pattern), pattern).toThrow(message);
    }
  });
});
