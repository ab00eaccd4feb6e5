import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  composeToolbelt,
  defaultPolicy,
  defineRole,
  defineTool,
  roles,
  type RoleDefinition,
  type ToolPolicy,
} from "@agentry/core";
import { applyRole } from "../../src/modes/roles.js";
import { isDeclaredReadOnly } from "../../src/tools/declared-read-only.js";
import { run } from "../loop/helpers.js";

describe("roles (seed 002)", () => {
  it("planner is read-only: no write, execute, network, editor, sub-agent or secrets classes", () => {
    expect([...roles.planner.classes].sort()).toEqual(["knowledge", "safe", "workspace_read"]);
    for (const c of ["workspace_write", "execute", "network", "editor_mutate", "subagent", "secrets"]) {
      expect(roles.planner.classes).not.toContain(c);
    }
  });

  it("actor has full access except secrets", () => {
    expect([...roles.actor.classes].sort()).toEqual([
      "editor_mutate",
      "execute",
      "knowledge",
      "network",
      "safe",
      "subagent",
      "workspace_create",
      "workspace_delete",
      "workspace_read",
      "workspace_write",
    ]);
  });

  it("carries seed 002's plan and question templates with format_version", () => {
    expect(roles.planner.prompt).toContain('"format_version": "1.0"');
    expect(roles.planner.prompt).toMatch(
      /"goal"[\s\S]*"steps"[\s\S]*"step_number"[\s\S]*"risks"[\s\S]*"prerequisites"/,
    );
    expect(roles.planner.prompt).toContain("create_artifact");
    expect(roles.actor.prompt).toMatch(
      /"type": "question"[\s\S]*"format_version": "1.0"[\s\S]*"severity": "critical" \| "major" \| "minor"/,
    );
    expect(roles.actor.prompt).toContain("ALWAYS ask for: Deleting files, major refactors, security-sensitive changes");
    expect(roles.actor.prompt).toContain("ask_user");
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
    const reviewer: RoleDefinition = {
      name: "reviewer",
      description: "Reviews",
      classes: ["safe", "network"],
      prompt: "",
    };
    expect(applyRole(defaultPolicy(), reviewer).classes).toEqual(["safe", "network"]);
  });
});

describe("defineRole", () => {
  it("declares a host role, frozen", () => {
    const commander = defineRole({
      name: "commander",
      description: "Orchestrates",
      classes: ["safe", "subagent"],
      prompt: "# CURRENT ROLE: COMMANDER",
    });
    expect(commander.name).toBe("commander");
    expect(Object.isFrozen(commander)).toBe(true);
    expect(Object.isFrozen(commander.classes)).toBe(true);
  });

  it("names every problem", () => {
    expect(() => defineRole({ name: "has space", description: 1, classes: "safe", prompt: null } as never)).toThrow(
      /name must match.*description must be a string.*classes must be an array.*prompt must be a string/,
    );
    expect(() => defineRole({ name: "x", description: "", classes: [], prompt: "" }).name).not.toThrow();
  });
});

describe("the planner is truly read-only (seed 002)", () => {
  const declared = defineTool({
    name: "read_notes",
    description: "Read",
    input: z.object({}),
    permissionClass: "safe",
    execute: () => "notes",
  });
  const flagged = defineTool({
    name: "lookup",
    description: "Look up",
    input: z.object({}),
    permissionClass: "network",
    readOnly: true,
    execute: () => "ok",
  });
  let mutations = 0;
  const undeclared = defineTool({
    name: "delete_notes",
    description: "Deletes every note",
    input: z.object({}),
    execute: () => ++mutations,
  });

  it("offers only tools declared read-only: a tool that left its class to the default is not", () => {
    const policy = applyRole({ ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"] }, roles.planner);
    expect(policy.declaredReadOnly).toBe(true);
    const names = composeToolbelt({ tools: [declared, flagged, undeclared], policy }).map((t) => t.name);
    expect(names).toEqual(["read_notes", "lookup"]);
    expect(isDeclaredReadOnly(undeclared, roles.planner.classes)).toBe(false);
    expect(isDeclaredReadOnly(declared, roles.planner.classes)).toBe(true);
    // A read-only flagged tool still needs its class enabled by the host's policy.
    expect(
      composeToolbelt({
        tools: [flagged],
        policy: applyRole({ ...defaultPolicy(), classes: ["safe", "workspace_read"] }, roles.planner),
      }),
    ).toEqual([]);
    // The actor is not read-only: the same tool is offered there.
    expect(
      composeToolbelt({ tools: [undeclared], policy: applyRole(defaultPolicy(), roles.actor) }).map((t) => t.name),
    ).toEqual(["delete_notes"]);
  });

  it("refuses an undeclared mutating tool at dispatch even when the host passes it in the toolbelt", async () => {
    const policy = applyRole(defaultPolicy(), roles.planner);
    const { result, events } = await run({
      tools: [declared, undeclared],
      policy,
      script: [
        {
          toolCalls: [
            { id: "c1", name: "delete_notes", args: {} },
            { id: "c2", name: "read_notes", args: {} },
          ],
        },
        { text: "done" },
      ],
    });
    expect(result.status).toBe("complete");
    expect(mutations).toBe(0);
    const ends = events.filter((e) => e.type === "tool_call_update" && e.status === "end");
    expect(ends.map((e) => e.type === "tool_call_update" && [e.name, e.isError === true])).toEqual([
      ["delete_notes", true],
      ["read_notes", false],
    ]);
    const refusal = ends[0]!.type === "tool_call_update" ? String(ends[0].result) : "";
    expect(refusal).toMatch(/not permitted: it is not declared read-only, and the current role is read-only/);
  });
});
