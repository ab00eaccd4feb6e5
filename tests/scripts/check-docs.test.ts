import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkDocs, documentationFiles, extractBlocks } from "../../scripts/check-docs.js";

const root = resolve(import.meta.dirname, "../..");
const fixtures = "tests/fixtures/docs-check";
const outDir = join(root, `.docs-check-test-${randomUUID()}`);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe("scripts/check-docs.ts", () => {
  it("extracts ts blocks with their markdown line and marker, and nothing else", () => {
    const markdown = [
      "# Title",
      "",
      "```ts",
      "const a = 1;",
      "```",
      "",
      "```json",
      "{}",
      "```",
      "```ts no-check",
      "b;",
      "```",
      "```typescript continues",
      "a;",
      "```",
    ].join("\n");
    expect(extractBlocks(markdown, "x.md")).toEqual([
      { file: "x.md", line: 4, code: "const a = 1;", mode: "check" },
      { file: "x.md", line: 11, code: "b;", mode: "no-check" },
      { file: "x.md", line: 14, code: "a;", mode: "continues" },
    ]);
    expect(() => extractBlocks("```ts skip\nx\n```", "y.md")).toThrow(/unknown code block marker "skip"/);
  });

  it("passes examples that compile and fails a wrong call, a wrong continued call, jargon and a broken link, at their markdown lines", () => {
    const result = checkDocs({ root, files: [`${fixtures}/good.md`, `${fixtures}/bad.md`], against: "src", outDir });
    const bad = `${fixtures}/bad.md`;
    expect(result.checked).toBe(6);
    expect(result.problems.some((problem) => problem.includes("good.md"))).toBe(false);
    // `inputSchema` is not a defineTool option (it is `input`), at line 11 of bad.md (defineTool has
    // overloads, so the first line of the error is "No overload matches this call").
    expect(result.problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${bad}:11:\\d+ error TS\\d+:[\\s\\S]*inputSchema`)),
    );
    // The `continues` block is compiled with the block before it: `callCount` does not exist on the fake provider.
    expect(result.problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${bad}:22:\\d+ error TS2339:.*callCount`)),
    );
    expect(result.problems).toContainEqual(`${bad}:25:1 broken link: ./missing.md`);
    expect(result.problems).toContainEqual(
      expect.stringMatching(new RegExp(`^${bad}:25:1 internal design-source jargon`)),
    );
    expect(result.ok).toBe(false);
  }, 120_000);

  it("checks README.md, CONTRIBUTING.md and the guides in docs/, in order", () => {
    const files = documentationFiles(root);
    expect(files[0]).toBe("README.md");
    expect(files[1]).toBe("CONTRIBUTING.md");
    expect(files).toContain("docs/01-getting-started.md");
    expect(files.slice(1)).toEqual([...files.slice(1)].sort());
  });
});
