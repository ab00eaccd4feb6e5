import { describe, expect, it } from "vitest";
import { compileGlobs } from "../../src/internal/glob.js";

const matchesAnyGlob = (patterns: readonly string[], value: string) => compileGlobs(patterns)(value);

describe("matchesAnyGlob", () => {
  it("matches when any pattern matches the whole value", () => {
    expect(matchesAnyGlob(["todo_*", "journal_*"], "journal_write")).toBe(true);
    expect(matchesAnyGlob(["todo_*"], "my_todo_add")).toBe(false);
  });

  it("matches nothing with no patterns", () => {
    expect(matchesAnyGlob([], "anything")).toBe(false);
  });

  it("treats dots and leading dots as ordinary characters", () => {
    expect(matchesAnyGlob(["lists.*"], "lists.read")).toBe(true);
    expect(matchesAnyGlob(["lists.*"], "listsXread")).toBe(false);
    expect(matchesAnyGlob(["*"], ".hidden")).toBe(true);
  });

  it("treats `!` and `#` literally (no negation, no comments)", () => {
    expect(matchesAnyGlob(["!secret"], "public")).toBe(false);
    expect(matchesAnyGlob(["!secret"], "!secret")).toBe(true);
    expect(matchesAnyGlob(["#x"], "#x")).toBe(true);
  });

  it("compiles once for many values", () => {
    const match = compileGlobs(["a?c", "{x,y}z"]);
    expect(["abc", "yz", "xz", "ac", "xyz"].map(match)).toEqual([true, true, true, false, false]);
  });
});
