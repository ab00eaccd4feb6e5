import { access, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { composeToolbelt, defaultPolicy, type ToolPolicy } from "@agentry/core";
import { createWorkspaceTools } from "@agentry/core/node";
import { callTool, toolNamed } from "./workspace-helpers.js";

let base: string;
let root: string;
let policy: ToolPolicy;
const tools = createWorkspaceTools();
const withClasses = (...extra: string[]): ToolPolicy => ({ ...policy, classes: [...policy.classes, ...extra] });
const patch = (text: string, p: ToolPolicy = policy) => callTool(tools, "apply_patch", { patch: text }, p);
const read = (path: string) => readFile(join(root, path), "utf8");
const exists = (path: string) =>
  access(join(root, path)).then(
    () => true,
    () => false,
  );

const EDIT_A = ["--- a/a.txt", "+++ b/a.txt", "@@ -1,3 +1,3 @@", " one", "-two", "+2", " three", ""].join("\n");
const CREATE_C = ["--- /dev/null", "+++ b/dir/c.txt", "@@ -0,0 +1,2 @@", "+new", "+file", ""].join("\n");
const DELETE_B = ["--- a/b.txt", "+++ /dev/null", "@@ -1,2 +0,0 @@", "-bee", "-bop", ""].join("\n");

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "agentry-patch-"));
  root = join(base, "ws");
  await mkdir(join(root, ".git"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(root, "a.txt"), "one\ntwo\nthree\n");
  await writeFile(join(root, "b.txt"), "bee\nbop\n");
  await writeFile(join(root, "long.txt"), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
  await writeFile(join(root, ".git", "config"), "[core]\n");
  policy = defaultPolicy("thread", { workspaceRoot: root });
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("apply_patch", () => {
  it("needs workspace_read and workspace_write", () => {
    expect(toolNamed(tools, "apply_patch").permissionClass).toEqual(["workspace_read", "workspace_write"]);
  });

  it("applies a unified diff (git-style a/ b/ paths) and reports what it changed", async () => {
    expect(await patch(EDIT_A)).toEqual({ files: [{ path: "a.txt", action: "modified", hunks: 1 }] });
    expect(await read("a.txt")).toBe("one\n2\nthree\n");
  });

  it("is all-or-nothing: a hunk that does not apply is named, and no file is changed", async () => {
    const second = ["--- long.txt", "+++ long.txt", "@@ -2,3 +2,3 @@", " line 2", "-line 3", "+LINE 3", " line 4"];
    const broken = ["@@ -20,3 +20,3 @@", " line 20", "-line 99", "+LINE 21", " line 22", ""];
    await expect(patch([EDIT_A, ...second, ...broken].join("\n"))).rejects.toThrow(
      /does not apply to "long\.txt": hunk 2 of 2 \(@@ -20,3 \+20,3 @@\) does not match .*Nothing was changed/,
    );
    expect(await read("a.txt")).toBe("one\ntwo\nthree\n");
    expect(await read("long.txt")).toContain("line 3\n");
  });

  it("creates a file only with workspace_create, deletes one only with workspace_delete", async () => {
    const noCreate = { ...policy, classes: policy.classes.filter((c) => c !== "workspace_create") };
    await expect(patch(CREATE_C, noCreate)).rejects.toThrow(
      /Creating "dir\/c\.txt" needs the permission class "workspace_create"/,
    );
    await expect(patch(`${EDIT_A}${DELETE_B}`)).rejects.toThrow(
      /Deleting "b\.txt" needs the permission class "workspace_delete"/,
    );
    expect(await read("a.txt")).toBe("one\ntwo\nthree\n");
    expect(await patch(CREATE_C)).toEqual({ files: [{ path: "dir/c.txt", action: "created", hunks: 1 }] });
    expect(await read("dir/c.txt")).toBe("new\nfile\n");
    expect(await patch(DELETE_B, withClasses("workspace_delete"))).toEqual({
      files: [{ path: "b.txt", action: "deleted", hunks: 1 }],
    });
    expect(await exists("b.txt")).toBe(false);
  });

  it("renames a file (git rename headers) with workspace_create and workspace_delete", async () => {
    const rename = [
      "diff --git a/b.txt b/d.txt",
      "similarity index 100%",
      "rename from b.txt",
      "rename to d.txt",
      "",
    ].join("\n");
    await expect(patch(rename)).rejects.toThrow(/Renaming "d\.txt" needs the permission class "workspace_delete"/);
    expect(await patch(rename, withClasses("workspace_delete"))).toEqual({
      files: [{ path: "d.txt", action: "renamed", from: "b.txt", hunks: 0 }],
    });
    expect(await read("d.txt")).toBe("bee\nbop\n");
    expect(await exists("b.txt")).toBe(false);
  });

  it("refuses to create a file that exists, or to delete a file with lines left over", async () => {
    const again = ["--- /dev/null", "+++ b/a.txt", "@@ -0,0 +1 @@", "+x", ""].join("\n");
    await expect(patch(again)).rejects.toThrow(/already exists/);
    const partial = ["--- a/b.txt", "+++ /dev/null", "@@ -1,1 +0,0 @@", "-bee", ""].join("\n");
    await expect(patch(partial, withClasses("workspace_delete"))).rejects.toThrow(/b\.txt/);
    expect(await read("b.txt")).toBe("bee\nbop\n");
  });

  it("confines every path of the patch like other writes, and never touches .git", async () => {
    const outside = ["--- /dev/null", "+++ b/../outside/x.txt", "@@ -0,0 +1 @@", "+x", ""].join("\n");
    await expect(patch(`${EDIT_A}${outside}`)).rejects.toThrow(/outside the workspace/);
    expect(await read("a.txt")).toBe("one\ntwo\nthree\n");
    const absolute = ["--- /dev/null", `+++ ${join(base, "outside", "y.txt")}`, "@@ -0,0 +1 @@", "+y", ""].join("\n");
    await expect(patch(absolute)).rejects.toThrow(/outside the workspace/);
    const git = [
      "--- a/.git/config",
      "+++ b/.git/config",
      "@@ -1 +1,2 @@",
      " [core]",
      "+\tfsmonitor = /bin/evil",
      "",
    ].join("\n");
    await expect(patch(git)).rejects.toThrow(/inside \.git/);
    if (process.platform !== "win32") {
      await symlink(join(base, "outside"), join(root, "out"));
      const viaLink = ["--- /dev/null", "+++ b/out/z.txt", "@@ -0,0 +1 @@", "+z", ""].join("\n");
      await expect(patch(viaLink)).rejects.toThrow(/outside the workspace/);
    }
    expect(await readFile(join(root, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("puts back the files it changed when a later write fails", async () => {
    // Planned fine (neither exists yet); writing the second fails once the first is a file.
    const clash = [
      "--- /dev/null",
      "+++ b/q",
      "@@ -0,0 +1 @@",
      "+q",
      "--- /dev/null",
      "+++ b/q/r.txt",
      "@@ -0,0 +1 @@",
      "+r",
      "",
    ].join("\n");
    await expect(patch(`${EDIT_A}${clash}`)).rejects.toThrow(/Applying the patch failed: .*restored/);
    expect(await read("a.txt")).toBe("one\ntwo\nthree\n");
    expect(await exists("q")).toBe(false);
  });

  it("refuses text that holds no file change", async () => {
    await expect(patch("just some words\n")).rejects.toThrow(/no file changes/);
  });
});

describe('"may edit but not delete" with the workspace tools', () => {
  it("a policy with read and write only offers apply_patch, not write_file (it creates) or delete_file, and refuses deleting by patch", async () => {
    const editOnly: ToolPolicy = { ...policy, classes: ["workspace_read", "workspace_write"] };
    const offered = composeToolbelt({ tools, policy: editOnly }).map((t) => t.name);
    expect(offered).toEqual(["read_file", "list_directory", "search_files", "git_status", "git_diff", "apply_patch"]);
    expect(await patch(EDIT_A, editOnly)).toMatchObject({ files: [{ path: "a.txt", action: "modified" }] });
    await expect(patch(DELETE_B, editOnly)).rejects.toThrow(/workspace_delete/);
    const withCreate = composeToolbelt({
      tools,
      policy: { ...editOnly, classes: [...editOnly.classes, "workspace_create"] },
    }).map((t) => t.name);
    expect(withCreate).toContain("write_file");
    expect(withCreate).not.toContain("delete_file");
  });

  it("asks for approval of a patch that deletes when the policy asks for workspace_delete", async () => {
    const asking: ToolPolicy = { ...withClasses("workspace_delete"), approval: { classes: ["workspace_delete"] } };
    const ctx = {
      toolCallId: "c",
      depth: 0,
      parentId: null,
      callKey: "k",
      signal: new AbortController().signal,
      policy: asking,
    };
    const requires = toolNamed(tools, "apply_patch").requiresApproval as (args: unknown, c: typeof ctx) => boolean;
    expect(requires({ patch: DELETE_B }, ctx)).toBe(true);
    expect(requires({ patch: EDIT_A }, ctx)).toBe(false);
    expect(requires({ patch: DELETE_B }, { ...ctx, policy: withClasses("workspace_delete") })).toBe(false);
  });
});
