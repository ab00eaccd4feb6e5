import { describe, expect, it } from "vitest";
import { composeToolbelt, defaultPolicy, defineTool, type Tool, type ToolbeltWarningCode } from "@agentry/core";
import { buildSystemPrompt } from "../../src/agents/build-system-prompt.js";
import { run } from "../loop/helpers.js";

/** A tool as an MCP connection makes it: `mcpServer` set, class "network". */
const mcpTool = (server: string, name: string, execute: () => unknown = () => "ran"): Tool => ({
  ...defineTool({
    name: `${server}.${name}`,
    description: name,
    input: { type: "object" },
    permissionClass: "network",
    execute,
  }),
  mcpServer: server,
});

const toolResults = (messages: { role: string; content: unknown }[]) =>
  messages.filter((m) => m.role === "tool").flatMap((m) => m.content as { result: unknown; isError?: boolean }[]);

describe("MCP servers and the policy (allowedMcpServers)", () => {
  const tools = [
    mcpTool("fs", "read_file"),
    mcpTool("fs", "write_file"),
    mcpTool("web", "fetch"),
    defineTool({
      name: "local",
      description: "l",
      input: { type: "object" },
      permissionClass: "network",
      execute: () => 1,
    }),
  ];

  it("drops every tool of a server the policy does not list (none implied), warning once per server", () => {
    const warnings: [string, ToolbeltWarningCode][] = [];
    const policy = defaultPolicy();
    const belt = composeToolbelt({ tools, policy, onWarning: (message, code) => warnings.push([message, code]) });
    expect(belt.map((t) => t.name)).toEqual(["local"]);
    expect(warnings.map(([, code]) => code)).toEqual(["mcp_server_not_allowed", "mcp_server_not_allowed"]);
    expect(warnings[0]![0]).toMatch(/MCP server "fs"/);
  });

  it("keeps the tools of listed servers", () => {
    const policy = { ...defaultPolicy(), allowedMcpServers: ["fs"] };
    expect(composeToolbelt({ tools, policy }).map((t) => t.name)).toEqual(["fs.read_file", "fs.write_file", "local"]);
  });

  it("refuses at dispatch a call to a tool of a server the policy does not allow, even when the tool was handed to the loop", async () => {
    let ran = false;
    const tool = mcpTool("web", "fetch", () => ((ran = true), "secret page"));
    const { result } = await run({
      script: [{ toolCalls: [{ name: "web.fetch", args: {} }] }, { text: "ok" }],
      tools: [tool],
      policy: { ...defaultPolicy(), allowedMcpServers: ["fs"] },
    });
    const [r] = toolResults(result.messages);
    expect(ran).toBe(false);
    expect(r).toMatchObject({ isError: true });
    expect(String(r!.result)).toMatch(/MCP server "web" is not allowed/);
    expect(result.status).toBe("complete");
  });

  it("runs it when the server is allowed", async () => {
    const { result } = await run({
      script: [{ toolCalls: [{ name: "web.fetch", args: {} }] }, { text: "ok" }],
      tools: [mcpTool("web", "fetch")],
      policy: { ...defaultPolicy(), allowedMcpServers: ["web"] },
    });
    expect(toolResults(result.messages)[0]).toMatchObject({ result: "ran" });
  });

  it("scopes a server named system_fs like any other: its tools are neither exempt from the agent's lists nor hidden from the prompt", async () => {
    let wrote = false;
    const write = mcpTool("system_fs", "write_file", () => ((wrote = true), "written"));
    const policy = { ...defaultPolicy(), allowedMcpServers: ["system_fs"] };
    const agent = { agentId: "notes", displayName: "Notes", toolAllowlist: ["local"] };
    const belt = composeToolbelt({ tools: [write, tools[3]!], policy, agent });
    expect(belt.map((t) => t.name)).toEqual(["local"]);
    const denied = composeToolbelt({
      tools: [write],
      policy,
      agent: { agentId: "a", displayName: "A", toolDenylist: ["system_fs.*"] },
    });
    expect(denied).toEqual([]);
    const capabilities = composeToolbelt({
      tools: [{ ...write, capabilities: ["files.write"] }],
      policy,
      agent: { agentId: "a", displayName: "A", capabilityDenylist: ["files.*"] },
    });
    expect(capabilities).toEqual([]);
    // Unscoped, it is offered and listed: never callable while hidden.
    const open = composeToolbelt({ tools: [write], policy });
    expect(buildSystemPrompt({ tools: open })).toContain("- system_fs.write_file: write_file");
    const { result } = await run({
      script: [{ toolCalls: [{ name: "system_fs.write_file", args: {} }] }, { text: "ok" }],
      tools: belt,
      policy,
    });
    expect(wrote).toBe(false);
    expect(String(toolResults(result.messages)[0]!.result)).toMatch(/Unknown tool "system_fs\.write_file"/);
  });
});
