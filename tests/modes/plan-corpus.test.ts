import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parsePlan } from "@agentry/core";

/** Plan texts in the shapes models write, each beside the plan it must parse to (`NN-name.md|.txt` + `NN-name.json`). */
const dir = fileURLToPath(new URL("../fixtures/plans/", import.meta.url));
const inputs = readdirSync(dir)
  .filter((name) => name.endsWith(".md") || name.endsWith(".txt"))
  .sort();

describe("parsePlan on a corpus of plan texts", () => {
  it("has at least 20 cases, each with its expected plan", () => {
    expect(inputs.length).toBeGreaterThanOrEqual(20);
    const expected = readdirSync(dir).filter((name) => name.endsWith(".json"));
    expect(expected.sort()).toEqual(inputs.map((name) => name.replace(/\.(md|txt)$/, ".json")));
  });

  it("parses every case to exactly its expected plan", () => {
    const mismatches = inputs.flatMap((name) => {
      const parsed = parsePlan(readFileSync(dir + name, "utf8"));
      const expected: unknown = JSON.parse(readFileSync(dir + name.replace(/\.(md|txt)$/, ".json"), "utf8"));
      const actual = parsed.ok ? parsed.plan : parsed;
      return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [{ name, actual, expected }];
    });
    expect(mismatches).toEqual([]);
  });

  it("keeps the CRLF case in CRLF (line endings are part of what it tests)", () => {
    expect(readFileSync(dir + "13-crlf.md", "utf8")).toContain("\r\n");
  });
});
