import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentConfigError,
  InvalidArgumentError,
  createAgentRegistry,
  createAgentRuntime,
  defineRole,
  defineTool,
  MemorySessionStore,
} from "@agentry/core";
import { SUBTASK_PROMPT_LINE } from "../../src/agents/build-system-prompt.js";
import { createFakeProvider } from "@agentry/core/testing";

const commander = defineRole({
  name: "commander",
  description: "Orchestrates",
  classes: ["safe", "subagent"],
  prompt: "# CURRENT ROLE: COMMANDER\nDelegate edits to the actor.",
});

describe("host roles in the runtime", () => {
  const lookAround = defineTool({
    name: "look",
    description: "Look around",
    input: z.object({}),
    permissionClass: "safe",
    execute: () => "ok",
  });
  const write = defineTool({
    name: "write",
    description: "Write",
    input: z.object({}),
    permissionClass: "workspace_write",
    execute: () => "ok",
  });

  it("accepts an agent role the host defines, with its prompt and classes", async () => {
    const provider = createFakeProvider([{ text: "on it" }]);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "boss", displayName: "Boss", role: "commander" }]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "m",
      tools: [lookAround, write],
      policy: { classes: ["safe", "workspace_write", "subagent"], workspaceRoot: null, allowedMcpServers: [] },
      roles: [commander],
    });
    await runtime.send({ agentId: "boss", content: "go" });
    const request = provider.calls[0]!;
    expect(request.system).toMatch(/# CURRENT ROLE: COMMANDER\nDelegate edits to the actor\.$/);
    const offered = request.tools.map((t) => t.name);
    expect(offered).toContain("look");
    expect(offered).not.toContain("write");
  });

  it("rejects an agent whose role nobody defined, and a role defined twice, before anything runs", () => {
    const base = { store: new MemorySessionStore(), providers: { fake: createFakeProvider([]) }, defaultModel: "m" };
    const registry = createAgentRegistry([{ agentId: "boss", displayName: "Boss", role: "commander" }]);
    expect(() => createAgentRuntime({ ...base, registry })).toThrow(AgentConfigError);
    expect(() => createAgentRuntime({ ...base, registry })).toThrow(
      /agents\[0\]\.role: unknown role "commander" for agent "boss"/,
    );
    expect(() => createAgentRuntime({ ...base, registry, roles: [commander, commander] })).toThrow(
      InvalidArgumentError,
    );
  });

  it("the planner preset offers only declared read-only tools through the runtime", async () => {
    const undeclared = defineTool({ name: "wipe", description: "Wipe", input: z.object({}), execute: () => "wiped" });
    const provider = createFakeProvider([{ text: "plan" }]);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "planner", displayName: "Planner", role: "planner" }]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "m",
      tools: [lookAround, undeclared],
    });
    await runtime.send({ agentId: "planner", content: "plan it" });
    // The runtime's plan tools are declared read-only; "wipe" (no declared class) is not offered.
    expect(provider.calls[0]!.tools.map((t) => t.name)).toEqual([
      "look",
      "ask_user",
      "create_artifact",
      "request_build_mode",
    ]);
  });
});

describe("the root prompt mentions run_subtask when the loop offers it", () => {
  const runWith = async (classes: string[], maxDepth?: number) => {
    const provider = createFakeProvider([{ text: "ok" }]);
    const runtime = createAgentRuntime({
      registry: createAgentRegistry([{ agentId: "a", displayName: "A" }]),
      store: new MemorySessionStore(),
      providers: { fake: provider },
      defaultModel: "m",
      policy: { classes, workspaceRoot: null, allowedMcpServers: [] },
      ...(maxDepth !== undefined && { budget: { maxDepth } }),
    });
    await runtime.send({ agentId: "a", content: "hi" });
    return provider.calls[0]!;
  };

  it("lists it with when to decompose, only with the subagent class and depth to spare", async () => {
    const offered = await runWith(["safe", "subagent"]);
    expect(offered.system).toContain(SUBTASK_PROMPT_LINE);
    expect(offered.tools.map((t) => t.name)).toContain("run_subtask");
    expect((await runWith(["safe"])).system).not.toContain("run_subtask");
    expect((await runWith(["safe", "subagent"], 0)).system).not.toContain("run_subtask");
  });
});
