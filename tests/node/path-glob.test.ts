import { describe, expect, it } from "vitest";
import { compilePathGlobs } from "../../src/node/path-glob.js";

const matches = (patterns: string[], path: string) => compilePathGlobs(patterns, "include").matches(path);

describe("search_files globs", () => {
  it("match a name at any depth when the pattern has no slash", () => {
    expect(matches(["*.ts"], "src/deep/a.ts")).toBe(true);
    expect(matches(["*.ts"], "a.tsx")).toBe(false);
    expect(matches(["node_modules"], "pkg/node_modules")).toBe(true);
  });

  it("match the whole relative path when it has one: * and ? stay in a name, ** crosses directories", () => {
    expect(matches(["src/*.ts"], "src/a.ts")).toBe(true);
    expect(matches(["src/*.ts"], "src/x/a.ts")).toBe(false);
    expect(matches(["src/**/*.ts"], "src/a.ts")).toBe(true);
    expect(matches(["src/**/*.ts"], "src/x/y/a.ts")).toBe(true);
    expect(matches(["src/**"], "src/x/y")).toBe(true);
    expect(matches(["?.md"], "ab.md")).toBe(false);
    expect(matches(["/dist"], "dist")).toBe(true);
    expect(matches(["/dist"], "pkg/dist")).toBe(false);
  });

  it("support sets, alternatives and escapes; regex characters are literal", () => {
    expect(matches(["*.{ts,js}"], "a.js")).toBe(true);
    expect(matches(["{a,b{c,d}}.x"], "bd.x")).toBe(true);
    expect(matches(["[!a]*.txt"], "b.txt")).toBe(true);
    expect(matches(["[!a]*.txt"], "a.txt")).toBe(false);
    expect(matches(["a+b(c)|d.txt"], "a+b(c)|d.txt")).toBe(true);
    expect(matches(["a+b(c)|d.txt"], "aab(c)|d.txt")).toBe(false);
    expect(matches(["a[b"], "a[b")).toBe(true);
    expect(matches(["\\*"], "*")).toBe(true);
  });

  it("refuse a set too large for the linear-time engine, with an error for the model", () => {
    expect(() => compilePathGlobs(["a".repeat(3_000)], "exclude")).toThrow(/Invalid exclude globs: pattern too large/);
  });
});
