import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPolicy, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools, type SearchFilesResult } from "@agentry/core/node";
import { callTool, toolNamed } from "./workspace-helpers.js";

let base: string;
let root: string;
let policy: ToolPolicy;
const canSymlink = process.platform !== "win32";
const tools = createWorkspaceTools({ maxSearchLineChars: 20 });
const search = (
  args: Record<string, unknown>,
  options: { tools?: typeof tools; policy?: ToolPolicy } = {},
): Promise<SearchFilesResult> => callTool(options.tools ?? tools, "search_files", args, options.policy ?? policy);
const where = (result: SearchFilesResult) => result.matches.map((m) => `${m.file}:${m.line}`);

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-search-"));
  root = join(base, "ws");
  const outside = join(base, "outside");
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await mkdir(join(root, "node_modules", "pkg"), { recursive: true });
  await mkdir(join(root, ".git"), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, "README.md"), "# Title\nTODO: write docs\n");
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\r\n// TODO: fix a\r\nconst b = 2;\r\n");
  await writeFile(join(root, "src", "deep", "c.ts"), `${"x".repeat(50)} TODO long line\nno match\nTODO again\n`);
  await writeFile(join(root, "src", "image.bin"), Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0x00, 0x01]));
  await writeFile(join(root, "node_modules", "pkg", "index.js"), "// TODO in a dependency\n");
  await writeFile(join(root, ".git", "config"), "TODO in git metadata\n");
  await writeFile(join(outside, "secret.ts"), "TODO outside the workspace\n");
  if (canSymlink) {
    await symlink(outside, join(root, "link-out"));
    await symlink(join(outside, "secret.ts"), join(root, "src", "file-link.ts"));
  }
  policy = defaultPolicy("thread", { workspaceRoot: root });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("search_files", () => {
  it("is a workspace_read tool", () => {
    expect(toolNamed(tools, "search_files").permissionClass).toBe("workspace_read");
  });

  it("returns file, line number and line text of every matching line, skipping .git, binary files and symlinks", async () => {
    const result = await search({ pattern: "TODO" });
    expect(where(result).sort()).toEqual([
      "README.md:2",
      "node_modules/pkg/index.js:1",
      "src/a.ts:2",
      "src/deep/c.ts:1",
      "src/deep/c.ts:3",
    ]);
    expect(result.matches.find((m) => m.file === "src/a.ts")).toEqual({
      file: "src/a.ts",
      line: 2,
      text: "// TODO: fix a",
    });
    expect(result.binaryFilesSkipped).toBe(1);
    expect(result.truncated).toBe(false);
    expect(JSON.stringify(result)).not.toContain("outside");
  });

  it("caps the line text it returns", async () => {
    const result = await search({ pattern: "long line" });
    expect(result.matches).toEqual([{ file: "src/deep/c.ts", line: 1, text: "x".repeat(20), textTruncated: true }]);
  });

  it("runs the pattern per line with the regex subset: anchors, classes, alternation", async () => {
    expect(where(await search({ pattern: "^TODO (again|later)$" }))).toEqual(["src/deep/c.ts:3"]);
    expect(where(await search({ pattern: "const [a-z] = \\d;$" }))).toEqual(["src/a.ts:1", "src/a.ts:3"]);
  });

  it("filters files by include and exclude globs, and searches below a given path", async () => {
    expect(where(await search({ pattern: "TODO", include: ["*.md"] }))).toEqual(["README.md:2"]);
    expect(where(await search({ pattern: "TODO", include: ["src/**/*.ts"], exclude: ["deep"] }))).toEqual([
      "src/a.ts:2",
    ]);
    expect(where(await search({ pattern: "TODO", exclude: ["node_modules", "src"] }))).toEqual(["README.md:2"]);
    expect(where(await search({ pattern: "TODO", path: "src/deep" }))).toEqual(["src/deep/c.ts:1", "src/deep/c.ts:3"]);
    expect(where(await search({ pattern: "TODO", path: "README.md" }))).toEqual(["README.md:2"]);
  });

  it("stops at the match limit and says so", async () => {
    const result = await search({ pattern: "TODO", max_matches: 2 });
    expect(result.matches).toHaveLength(2);
    expect(result).toMatchObject({ truncated: true, stoppedBy: "matches" });
  });

  it("stops at the byte limit, the entry limit and the regex step limit", async () => {
    const small = createWorkspaceTools({ maxSearchBytes: 30 });
    const bytes = await search({ pattern: "TODO" }, { tools: small });
    expect(bytes).toMatchObject({ truncated: true, stoppedBy: "bytes" });
    expect(bytes.bytesSearched).toBeLessThanOrEqual(30);
    const few = createWorkspaceTools({ maxSearchEntries: 2 });
    expect(await search({ pattern: "TODO" }, { tools: few })).toMatchObject({ truncated: true, stoppedBy: "entries" });
    const steps = createWorkspaceTools({ maxSearchSteps: 50 });
    expect(await search({ pattern: "(a|b|c|d|e)+z" }, { tools: steps })).toMatchObject({
      truncated: true,
      stoppedBy: "steps",
    });
  });

  it("refuses patterns outside the linear-time subset, with a reason the model can act on", async () => {
    await expect(search({ pattern: "(a)\\1" })).rejects.toThrow(/Invalid pattern .*backreferences/i);
    await expect(search({ pattern: "a(?=b)" })).rejects.toThrow(/lookahead/);
  });

  it.runIf(canSymlink)(
    "is confined like the other workspace tools: .., absolute paths and symlinks leading out are refused",
    async () => {
      await expect(search({ pattern: "TODO", path: "../outside" })).rejects.toThrow(/outside the workspace/);
      await expect(search({ pattern: "TODO", path: join(base, "outside") })).rejects.toThrow(/outside the workspace/);
      await expect(search({ pattern: "TODO", path: "link-out" })).rejects.toThrow(/outside the workspace/);
      await expect(search({ pattern: "TODO", path: "src/file-link.ts" })).rejects.toThrow(/outside the workspace/);
      await expect(search({ pattern: "TODO" }, { policy: { ...policy, workspaceRoot: null } })).rejects.toThrow();
    },
  );
});
