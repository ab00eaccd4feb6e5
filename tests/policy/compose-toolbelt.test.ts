import { describe, expect, it } from "vitest";
import { composeToolbelt, defaultPolicy, type AgentDefinition, type ToolbeltWarningCode } from "@agentry/core";
import { fakeTool, names } from "./helpers.js";

const collect = () => {
  const warnings: { message: string; code: ToolbeltWarningCode }[] = [];
  return { warnings, onWarning: (message: string, code: ToolbeltWarningCode) => warnings.push({ message, code }) };
};

const buildWorkflow = fakeTool("build_workflow", { permissionClass: "editor_mutate", contexts: ["editor"] });
const common = [
  fakeTool("memory_read", { permissionClass: "knowledge" }),
  fakeTool("web_search", { permissionClass: "network" }),
  fakeTool("shell", { permissionClass: "execute" }),
  fakeTool("vault_read", { permissionClass: "secrets" }),
  fakeTool("clock"),
];

describe("composeToolbelt", () => {
  it("is registered ∩ policy classes ∩ agent scope, in registration order", () => {
    const agent: AgentDefinition = { agentId: "helper", displayName: "Helper", toolDenylist: ["web_*"] };
    const tools = composeToolbelt({ tools: common, policy: defaultPolicy(), agent });
    expect(names(tools)).toEqual(["memory_read", "clock"]);
  });

  it("offers opt-in classes only when the policy enables them", () => {
    const policy = { ...defaultPolicy(), classes: [...defaultPolicy().classes, "execute"] };
    expect(names(composeToolbelt({ tools: common, policy }))).toEqual(["memory_read", "web_search", "shell", "clock"]);
  });

  describe("seed 001 acceptance criterion 6 (editor context)", () => {
    const registered = [...common, buildWorkflow];

    it("offers build_workflow in an editor context under the editor policy, without warnings", () => {
      const { warnings, onWarning } = collect();
      const tools = composeToolbelt({
        tools: registered,
        policy: defaultPolicy("editor"),
        chatContext: { kind: "editor", workflowId: "wf_1" },
        onWarning,
      });
      expect(names(tools)).toContain("build_workflow");
      expect(warnings).toEqual([]);
    });

    it("does not offer build_workflow in a thread context, even under a policy that enables editor_mutate", () => {
      const { warnings, onWarning } = collect();
      for (const chatContext of [undefined, { kind: "thread" }]) {
        const tools = composeToolbelt({ tools: registered, policy: defaultPolicy("editor"), chatContext, onWarning });
        expect(names(tools)).not.toContain("build_workflow");
        expect(names(tools)).toContain("memory_read");
      }
      expect(warnings).toEqual([]);
    });

    it("warns when an editor context has no editor-gated tool registered (misconfiguration)", () => {
      const { warnings, onWarning } = collect();
      const tools = composeToolbelt({
        tools: common,
        policy: defaultPolicy("editor"),
        chatContext: { kind: "editor", workflowId: "wf_1" },
        onWarning,
      });
      expect(names(tools)).toEqual(["memory_read", "web_search", "clock"]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.code).toBe("context_without_tools");
      expect(warnings[0]?.message).toContain('"editor"');
    });
  });

  it("warns when the policy drops a tool the context unlocks, naming the tool and the class", () => {
    const { warnings, onWarning } = collect();
    const tools = composeToolbelt({
      tools: [buildWorkflow],
      policy: defaultPolicy("thread"),
      chatContext: { kind: "editor" },
      onWarning,
    });
    expect(tools).toEqual([]);
    expect(warnings).toEqual([
      {
        code: "context_tool_dropped",
        message: expect.stringMatching(/build_workflow.*"editor".*editor_mutate.*policy/),
      },
    ]);
  });

  it("warns when the agent's scope drops a tool the context unlocks, naming the agent", () => {
    const { warnings, onWarning } = collect();
    const agent: AgentDefinition = { agentId: "writer", displayName: "Writer", toolAllowlist: ["memory_*"] };
    composeToolbelt({
      tools: [buildWorkflow],
      policy: defaultPolicy("editor"),
      agent,
      chatContext: { kind: "editor" },
      onWarning,
    });
    expect(warnings.map((w) => w.code)).toEqual(["context_tool_dropped"]);
    expect(warnings[0]?.message).toContain('agent "writer"');
    expect(warnings[0]?.message).not.toContain("policy");
  });

  it("does not warn about ordinary tools the policy leaves out", () => {
    const { warnings, onWarning } = collect();
    composeToolbelt({ tools: common, policy: defaultPolicy(), onWarning });
    expect(warnings).toEqual([]);
  });

  it("offers context-gated tools only in their kinds, and ungated tools everywhere", () => {
    const reviewTool = fakeTool("approve_diff", { contexts: ["review", "editor"] });
    const tools = [fakeTool("clock"), reviewTool, buildWorkflow];
    const policy = defaultPolicy("editor");
    expect(names(composeToolbelt({ tools, policy, chatContext: { kind: "review" } }))).toEqual([
      "clock",
      "approve_diff",
    ]);
    expect(names(composeToolbelt({ tools, policy, chatContext: { kind: "editor" } }))).toEqual([
      "clock",
      "approve_diff",
      "build_workflow",
    ]);
    expect(names(composeToolbelt({ tools, policy }))).toEqual(["clock"]);
  });

  it("keeps the first of tools sharing a name and warns about the rest", () => {
    const first = fakeTool("clock");
    const second = fakeTool("clock", { permissionClass: "network" });
    const { warnings, onWarning } = collect();
    const tools = composeToolbelt({
      tools: [first, fakeTool("memory_read"), second],
      policy: defaultPolicy(),
      onWarning,
    });
    expect(tools[0]).toBe(first);
    expect(names(tools)).toEqual(["clock", "memory_read"]);
    expect(warnings).toEqual([{ code: "duplicate_tool", message: expect.stringContaining('"clock"') }]);
  });

  it("never throws for misconfiguration when no onWarning is given", () => {
    expect(() =>
      composeToolbelt({
        tools: [buildWorkflow, buildWorkflow],
        policy: defaultPolicy(),
        chatContext: { kind: "editor" },
      }),
    ).not.toThrow();
  });
});
