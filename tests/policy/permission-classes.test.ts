import { describe, expect, it } from "vitest";
import {
  composeToolbelt,
  defaultPolicy,
  defineTool,
  InvalidArgumentError,
  roles,
  type LoopEvent,
  type Tool,
  type ToolbeltWarningCode,
  type ToolPolicy,
} from "@agentry/core";
import { applyRole } from "../../src/modes/roles.js";
import { isDeclaredReadOnly } from "../../src/tools/declared-read-only.js";
import { run } from "../loop/helpers.js";
import { fakeTool, names } from "./helpers.js";

const WORKSPACE: ToolPolicy = {
  classes: ["workspace_read", "workspace_write", "workspace_create", "workspace_delete"],
  workspaceRoot: "/ws",
  allowedMcpServers: [],
};
const withClasses = (...classes: string[]): ToolPolicy => ({ ...WORKSPACE, classes });

const read = fakeTool("read", { permissionClass: "workspace_read" });
const edit = fakeTool("edit", { permissionClass: ["workspace_read", "workspace_write"] });
const create = fakeTool("create", { permissionClass: ["workspace_write", "workspace_create"] });
const remove = fakeTool("remove", { permissionClass: ["workspace_read", "workspace_delete"] });
const all = [read, edit, create, remove];

const ends = (events: LoopEvent[]) => events.filter((e) => e.type === "tool_call_update" && e.status === "end");

describe("several permission classes per tool (all needed)", () => {
  it("offers a tool only when the policy enables every one of its classes", () => {
    expect(names(composeToolbelt({ tools: all, policy: WORKSPACE }))).toEqual(["read", "edit", "create", "remove"]);
    expect(names(composeToolbelt({ tools: all, policy: withClasses("workspace_read") }))).toEqual(["read"]);
    expect(names(composeToolbelt({ tools: all, policy: withClasses("workspace_write", "workspace_create") }))).toEqual([
      "create",
    ]);
  });

  it('expresses "may edit but not delete"', () => {
    const policy = withClasses("workspace_read", "workspace_write");
    expect(names(composeToolbelt({ tools: all, policy }))).toEqual(["read", "edit"]);
    const andCreate = withClasses("workspace_read", "workspace_write", "workspace_create");
    expect(names(composeToolbelt({ tools: all, policy: andCreate }))).toEqual(["read", "edit", "create"]);
  });

  it("names the missing classes when a context-gated tool is dropped", () => {
    const warnings: { message: string; code: ToolbeltWarningCode }[] = [];
    const gated = fakeTool("rewrite", {
      permissionClass: ["workspace_read", "workspace_write", "workspace_delete"],
      contexts: ["editor"],
    });
    composeToolbelt({
      tools: [gated],
      policy: withClasses("workspace_read"),
      chatContext: { kind: "editor" },
      onWarning: (message, code) => warnings.push({ message, code }),
    });
    expect(warnings).toEqual([
      {
        code: "context_tool_dropped",
        message: expect.stringContaining(
          'its permission classes "workspace_write", "workspace_delete" are not enabled by the policy',
        ) as string,
      },
    ]);
  });

  it("checks every class again at dispatch: a call to a tool the policy only half enables is refused", async () => {
    let ran = false;
    const tool = defineTool({
      name: "edit",
      description: "Edit",
      input: { type: "object" },
      permissionClass: ["workspace_read", "workspace_write"],
      execute: () => ((ran = true), "edited"),
    });
    const { events, result } = await run({
      tools: [tool],
      policy: withClasses("workspace_read", "subagent"),
      script: [{ toolCalls: [{ id: "e", name: "edit", args: {} }] }, { text: "done" }],
    });
    expect(ran).toBe(false);
    expect(ends(events)[0]).toMatchObject({ refused: "not_permitted" });
    expect(JSON.stringify(result.messages)).toContain(
      'its permission class \\"workspace_write\\" is not enabled by the policy',
    );
  });

  it("runs a several-class tool under the loop's default policy (no policy given), which lists each class", async () => {
    const tool = defineTool({
      name: "edit",
      description: "Edit",
      input: { type: "object" },
      permissionClass: ["workspace_read", "workspace_write"],
      execute: (_args, ctx) => ctx.policy.classes,
    });
    const { events } = await run({
      tools: [tool],
      script: [{ toolCalls: [{ id: "e", name: "edit", args: {} }] }, { text: "done" }],
    });
    expect(ends(events)[0]).not.toHaveProperty("refused");
    expect(ends(events)[0]).toMatchObject({ result: ["subagent", "workspace_read", "workspace_write"] });
  });

  it("asks for approval when any of the tool's classes is in policy.approval.classes", async () => {
    const asked: string[] = [];
    const { events } = await run({
      tools: [remove, read],
      policy: {
        ...WORKSPACE,
        classes: [...WORKSPACE.classes, "subagent"],
        approval: { classes: ["workspace_delete"] },
      },
      approve: async (request) => (asked.push(request.name), { approved: true }),
      script: [
        {
          toolCalls: [
            { id: "r", name: "remove", args: {} },
            { id: "l", name: "read", args: {} },
          ],
        },
        { text: "done" },
      ],
    });
    expect(asked).toEqual(["remove"]);
    expect(ends(events)).toHaveLength(2);
  });

  it("a tool is read-only for the planner only if ALL its classes are read classes", () => {
    const lookup = fakeTool("lookup", { permissionClass: ["safe", "workspace_read"] });
    expect(isDeclaredReadOnly(lookup, roles.planner.classes)).toBe(true);
    expect(isDeclaredReadOnly(edit, roles.planner.classes)).toBe(false);
    const planning = applyRole({ ...WORKSPACE, classes: [...WORKSPACE.classes, "safe"] }, roles.planner);
    expect(names(composeToolbelt({ tools: [lookup, ...all], policy: planning }))).toEqual(["lookup", "read"]);
    // A hand-made tool with no class at all is not vacuously read-only, nor offered anywhere.
    const empty: Tool = { ...read, name: "empty", permissionClass: [] };
    expect(isDeclaredReadOnly(empty, ["workspace_read"])).toBe(false);
    expect(names(composeToolbelt({ tools: [empty, read], policy: WORKSPACE }))).toEqual(["read"]);
  });

  it("defineTool copies and deduplicates a list, and refuses an empty list or an empty class", () => {
    const classes = ["workspace_read", "workspace_write", "workspace_read"];
    const tool = defineTool({
      name: "t",
      description: "t",
      input: { type: "object" },
      permissionClass: classes,
      execute: () => null,
    });
    classes.push("execute");
    expect(tool.permissionClass).toEqual(["workspace_read", "workspace_write"]);
    expect(() =>
      defineTool({ name: "t", description: "t", input: { type: "object" }, permissionClass: [], execute: () => null }),
    ).toThrow(InvalidArgumentError);
    expect(() =>
      defineTool({
        name: "t",
        description: "t",
        input: { type: "object" },
        permissionClass: ["safe", ""],
        execute: () => null,
      }),
    ).toThrow(/permissionClass/);
  });
});

describe("presets", () => {
  it("defaultPolicy lets tools read, change and create files, not delete them", () => {
    for (const kind of ["thread", "editor"]) {
      expect(defaultPolicy(kind).classes).toEqual(
        expect.arrayContaining(["workspace_read", "workspace_write", "workspace_create"]),
      );
      expect(defaultPolicy(kind).classes).not.toContain("workspace_delete");
    }
  });

  it("the actor may create and delete where the policy allows it; the planner may not", () => {
    expect(roles.actor.classes).toEqual(expect.arrayContaining(["workspace_create", "workspace_delete"]));
    expect(roles.planner.classes).not.toContain("workspace_create");
    expect(roles.planner.classes).not.toContain("workspace_delete");
    expect(applyRole(defaultPolicy(), roles.actor).classes).not.toContain("workspace_delete");
    expect(applyRole(WORKSPACE, roles.actor).classes).toContain("workspace_delete");
  });
});
