import { describe, expect, it } from "vitest";
import { defaultPolicy } from "@agentry/core";

const THREAD = ["safe", "knowledge", "subagent", "network", "workspace_read", "workspace_write", "workspace_create"];

describe("defaultPolicy (seed 001 defaults table)", () => {
  it("thread: safe, knowledge, subagent, network and workspace classes on; editor, secrets, execute off", () => {
    const policy = defaultPolicy("thread");
    expect([...policy.classes].sort()).toEqual([...THREAD].sort());
    for (const off of ["editor_mutate", "secrets", "execute", "workspace_delete"])
      expect(policy.classes).not.toContain(off);
  });

  it("editor: the thread classes plus editor_mutate; secrets and execute still off", () => {
    const policy = defaultPolicy("editor");
    expect([...policy.classes].sort()).toEqual([...THREAD, "editor_mutate"].sort());
    expect(policy.classes).not.toContain("secrets");
    expect(policy.classes).not.toContain("execute");
  });

  it("defaults to thread, and treats unknown kinds like thread", () => {
    expect(defaultPolicy().classes).toEqual(defaultPolicy("thread").classes);
    expect(defaultPolicy("review").classes).not.toContain("editor_mutate");
  });

  it("has no workspace root (workspace tools refuse everything) and no MCP servers unless set", () => {
    expect(defaultPolicy()).toMatchObject({ workspaceRoot: null, allowedMcpServers: [] });
    expect(defaultPolicy("editor", { workspaceRoot: "/srv/ws" }).workspaceRoot).toBe("/srv/ws");
    expect(defaultPolicy("thread", { workspaceRoot: null }).workspaceRoot).toBeNull();
  });

  it("returns a fresh object each time, so a caller's change cannot leak into other sessions", () => {
    const first = defaultPolicy();
    first.classes.push("execute");
    first.allowedMcpServers.push("github");
    expect(defaultPolicy().classes).not.toContain("execute");
    expect(defaultPolicy().allowedMcpServers).toEqual([]);
  });
});
