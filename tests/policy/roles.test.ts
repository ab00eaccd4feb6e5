import { describe, expect, it } from "vitest";
import { applyRole, defaultPolicy, roles, type RoleDefinition, type ToolPolicy } from "@agentry/core";

describe("roles (seed 002)", () => {
  it("planner is read-only: no write, execute, network, editor, sub-agent or secrets classes", () => {
    expect([...roles.planner.classes].sort()).toEqual(["knowledge", "safe", "workspace_read"]);
    for (const c of ["workspace_write", "execute", "network", "editor_mutate", "subagent", "secrets"]) {
      expect(roles.planner.classes).not.toContain(c);
    }
  });

  it("actor has full access except secrets", () => {
    expect([...roles.actor.classes].sort()).toEqual(
      ["editor_mutate", "execute", "knowledge", "network", "safe", "subagent", "workspace_read", "workspace_write"],
    );
  });

  it("carries the seed's role prompts", () => {
    expect(roles.planner.name).toBe("planner");
    expect(roles.planner.prompt).toContain("# CURRENT ROLE: PLANNER");
    expect(roles.planner.prompt).toContain("You CANNOT modify any files");
    expect(roles.actor.prompt).toContain("# CURRENT ROLE: ACTOR");
    expect(roles.actor.prompt).toContain("Execute the approved plan");
    expect(roles.planner.prompt + roles.actor.prompt).not.toMatch(/[\u2705\u274C]/u);
  });

  it("cannot be modified by one caller for everyone", () => {
    expect(Object.isFrozen(roles.planner)).toBe(true);
    expect(() => (roles.planner.classes as string[]).push("execute")).toThrow(TypeError);
  });
});

describe("applyRole", () => {
  const policy: ToolPolicy = {
    ...defaultPolicy("editor", { workspaceRoot: "/ws" }),
    approval: { classes: ["network"] },
  };

  it("narrows a policy to the planner's read-only classes and keeps the other fields", () => {
    const narrowed = applyRole(policy, roles.planner);
    expect([...narrowed.classes].sort()).toEqual(["knowledge", "safe", "workspace_read"]);
    expect(narrowed.workspaceRoot).toBe("/ws");
    expect(narrowed.approval).toEqual({ classes: ["network"] });
    expect(policy.classes).toContain("workspace_write");
  });

  it("never widens: the actor gets execute only if the policy already enables it", () => {
    expect(applyRole(defaultPolicy("thread"), roles.actor).classes).not.toContain("execute");
    const withExecute = { ...defaultPolicy(), classes: [...defaultPolicy().classes, "execute", "secrets"] };
    const narrowed = applyRole(withExecute, roles.actor);
    expect(narrowed.classes).toContain("execute");
    expect(narrowed.classes).not.toContain("secrets");
  });

  it("works with a host-defined role", () => {
    const reviewer: RoleDefinition = { name: "reviewer", description: "Reviews", classes: ["safe", "network"], prompt: "" };
    expect(applyRole(defaultPolicy(), reviewer).classes).toEqual(["safe", "network"]);
  });
});
