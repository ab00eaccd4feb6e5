import { describe, expect, it } from "vitest";
import { defaultPolicy, isPathInside } from "@agentry/core";
import { resolveWorkspacePath } from "../../src/policy/resolve-workspace-path.js";

describe("isPathInside", () => {
  it.each([
    ["/work/ws", "/work/ws"],
    ["/work/ws", "/work/ws/"],
    ["/work/ws", "/work/ws/a/b.txt"],
    ["/work/ws", "a/b.txt"],
    ["/work/ws", "./a/../b"],
    ["/work/ws", "a//b///c"],
    ["/work/ws/", "/work/ws/a"],
    ["/work/ws", "/work/other/../ws/x"],
    ["/", "/anything/at/all"],
    ["C:\\work\\ws", "C:\\work\\ws\\src\\a.ts"],
    ["C:\\work\\ws", "c:/work/ws/src"],
    ["C:/work/ws", "src\\a.ts"],
    ["\\\\server\\share\\ws", "\\\\server\\share\\ws\\a"],
    ["ws", "ws/a"],
    ["ws", "a"],
  ])("%j contains %j", (root, candidate) => {
    expect(isPathInside(root, candidate)).toBe(true);
  });

  it.each([
    ["/work/ws", "../x"],
    ["/work/ws", "a/../../x"],
    ["/work/ws", "/etc/passwd"],
    ["/work/ws", "/work"],
    ["/work/ws", "/work/wsx/file"],
    ["/a/b", "/a/bc"],
    ["/work/ws", "/work/ws/../wsx"],
    ["/work/ws", "/work/ws/a\0b"],
    ["/work/ws", "a\0"],
    ["/work/ws\0", "/work/ws/a"],
    ["/work/ws", "\\work\\ws2"],
    ["/work/ws", "..\\..\\etc"],
    ["/work/ws", "C:/work/ws/a"],
    ["/work/ws", "//host/share"],
    ["C:\\work\\ws", "D:\\work\\ws\\a"],
    ["C:\\work\\ws", "C:\\work\\ws2"],
    ["C:\\work\\ws", "C:\\work\\ws\\..\\..\\Windows"],
    ["C:\\work\\ws", "C:ws\\a"],
    ["C:\\work\\ws", "\\work\\ws\\a"],
    ["/Work/ws", "/work/ws/a"],
    ["ws", "../ws2"],
    [".", "../x"],
    ["..", "../../x"],
    ["../ws", "../../ws/a"],
    ["ws", "/ws/a"],
    ["", "a"],
  ])("%j does not contain %j", (root, candidate) => {
    expect(isPathInside(root, candidate)).toBe(false);
  });

  it("does not let `..` climb above the file system root to come back in", () => {
    expect(isPathInside("/ws", "/../../ws/a")).toBe(true);
    expect(isPathInside("/ws", "/../../etc")).toBe(false);
  });
});

describe("resolveWorkspacePath", () => {
  const policy = defaultPolicy("thread", { workspaceRoot: "/srv/ws" });

  it("refuses every path while no workspace root is configured", () => {
    for (const path of [".", "a.txt", "/srv/ws/a.txt"]) {
      const result = resolveWorkspacePath(defaultPolicy(), path);
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(/no workspace root is configured/i) });
    }
  });

  it("returns the normalised absolute path of an inside path", () => {
    expect(resolveWorkspacePath(policy, "src/../lib//a.ts")).toEqual({ ok: true, path: "/srv/ws/lib/a.ts" });
    expect(resolveWorkspacePath(policy, "/srv/ws/b")).toEqual({ ok: true, path: "/srv/ws/b" });
    expect(resolveWorkspacePath(policy, ".")).toEqual({ ok: true, path: "/srv/ws" });
  });

  it("keeps a Windows root's separator style", () => {
    const windows = { ...policy, workspaceRoot: "C:\\ws" };
    expect(resolveWorkspacePath(windows, "src/a.ts")).toEqual({ ok: true, path: "C:\\ws\\src\\a.ts" });
  });

  it("refuses outside paths and NUL bytes with a reason, without revealing the root", () => {
    for (const path of ["../x", "/etc/passwd", "a\0b"]) {
      const result = resolveWorkspacePath(policy, path);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).not.toContain("/srv/ws");
    }
    expect(resolveWorkspacePath(policy, "../x")).toEqual({
      ok: false,
      reason: expect.stringContaining("outside the workspace"),
    });
    expect(resolveWorkspacePath(policy, "a\0b")).toEqual({ ok: false, reason: expect.stringContaining("NUL") });
  });
});
