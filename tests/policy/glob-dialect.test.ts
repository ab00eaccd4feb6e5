import { describe, expect, it } from "vitest";
import { AgentConfigError, createAgentRegistry, scopeTools, type AgentDefinition, type Tool } from "@agentry/core";
import { visibleAgents } from "../../src/agents/agent-visibility.js";
import { compileGlobs, MAX_GLOB_ALTERNATIVES } from "../../src/internal/glob.js";
import { names } from "./helpers.js";

/** A tool object as any host (or an MCP bridge) may build it: names with `/` or `:` included. */
const tool = (name: string, capabilities?: string[]): Tool => ({
  name,
  description: name,
  inputSchema: { type: "object" },
  permissionClass: "safe",
  parallelSafe: true,
  ...(capabilities && { capabilities }),
  execute: () => null,
});

const agent = (extra: Partial<AgentDefinition>): AgentDefinition => ({ agentId: "a", displayName: "A", ...extra });

describe("glob dialect: `*` crosses `/`, `.` and `:`", () => {
  it("a capability deny pattern fails closed: secrets* denies secrets/mail.send", () => {
    const tools = [
      tool("mail_send", ["secrets/mail.send"]),
      tool("mail_read", ["mail.read"]),
      tool("vault", ["secrets:vault.open"]),
    ];
    expect(names(scopeTools(agent({ capabilityDenylist: ["secrets*"] }), tools))).toEqual(["mail_read"]);
  });

  it("allow and deny lists of tool names with `/`, `.` and `:`", () => {
    const tools = [
      tool("fs/read"),
      tool("fs/write"),
      tool("fs.read"),
      tool("mcp:github/issues.list"),
      tool("mcp:github/repo.delete"),
      tool("web"),
    ];
    expect(names(scopeTools(agent({ toolAllowlist: ["fs*"] }), tools))).toEqual(["fs/read", "fs/write", "fs.read"]);
    expect(names(scopeTools(agent({ toolAllowlist: ["fs?read"] }), tools))).toEqual(["fs/read", "fs.read"]);
    expect(names(scopeTools(agent({ toolAllowlist: ["mcp:*"], toolDenylist: ["*delete"] }), tools))).toEqual([
      "mcp:github/issues.list",
    ]);
    expect(names(scopeTools(agent({ toolDenylist: ["*/*"] }), tools))).toEqual(["fs.read", "web"]);
    expect(names(scopeTools(agent({ toolDenylist: ["mcp:github/*"] }), tools))).toEqual([
      "fs/read",
      "fs/write",
      "fs.read",
      "web",
    ]);
  });

  it("capability allowlists with dots and colons: every capability must match", () => {
    const tools = [
      tool("a", ["lists.read"]),
      tool("b", ["lists.read", "lists.admin:purge"]),
      tool("c", ["files.read"]),
    ];
    expect(names(scopeTools(agent({ capabilityAllowlist: ["lists.*"] }), tools))).toEqual(["a", "b"]);
    expect(
      names(scopeTools(agent({ capabilityAllowlist: ["lists.*"], capabilityDenylist: ["*:purge"] }), tools)),
    ).toEqual(["a"]);
  });

  it("agent ids with dots in allow and deny lists", () => {
    const registry = createAgentRegistry([
      agent({ agentId: "lead" }),
      agent({ agentId: "team.alpha.ops" }),
      agent({ agentId: "team.beta" }),
      agent({ agentId: "solo" }),
    ]);
    const from = agent({ agentId: "lead", agentAllowlist: ["team*"], agentDenylist: ["*.ops"] });
    expect(visibleAgents(from, registry).map((a) => a.agentId)).toEqual(["team.beta"]);
  });

  it("`?`, sets, escapes and braces; `!` and `#` are literal", () => {
    const match = compileGlobs(["a?c", "{x,y}z", "[a-c]1", "[!a-c]2", "lit\\*", "!neg", "#c"]);
    expect(["abc", "a/c", "yz", "b1", "d1", "d2", "a2", "lit*", "litx", "!neg", "neg", "#c"].map(match)).toEqual([
      true,
      true,
      true,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it("matching costs pattern × value, never backtracking blow-up", () => {
    const match = compileGlobs(["*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b"]);
    expect(match("a".repeat(10_000))).toBe(false);
  });

  it("rejects brace ranges and expansions over the limit", () => {
    expect(() => compileGlobs(["{1..100000000}"])).toThrow(/brace ranges/);
    expect(() => compileGlobs(["{a,b}".repeat(9)])).toThrow(new RegExp(`more than ${MAX_GLOB_ALTERNATIVES}`));
    expect(compileGlobs(["{a,b}".repeat(8)])("ab".repeat(4))).toBe(true);
  });

  it("the registry reports a brace range as a problem at its path", () => {
    let error: unknown;
    try {
      createAgentRegistry({ agents: [agent({ toolAllowlist: ["ok_*", "tool_{1..100000000}"] })] });
    } catch (thrown) {
      error = thrown;
    }
    expect(AgentConfigError.isInstance(error)).toBe(true);
    const problems = (error as AgentConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe("agents[0].toolAllowlist[1]");
    expect(problems[0]?.message).toMatch(/brace ranges/);
  });
});
