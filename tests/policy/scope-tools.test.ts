import { describe, expect, it } from "vitest";
import { scopeTools, type AgentDefinition } from "@agentry/core";
import { asSystemTool } from "../../src/internal/system-tools.js";
import { fakeTool, names } from "./helpers.js";

// The agents of seed 000's configuration example.
const readingList: AgentDefinition = {
  agentId: "reading-list",
  displayName: "Reading List Manager",
  toolAllowlist: ["reading_list_*"],
  toolDenylist: ["reading_list_delete"],
  capabilityAllowlist: ["lists.*"],
  capabilityDenylist: ["lists.write"],
};
const todo: AgentDefinition = { agentId: "todo", displayName: "Todo Manager", toolAllowlist: ["todo_*"] };
const general: AgentDefinition = { agentId: "general", displayName: "General Assistant", toolAllowlist: null };

const tools = [
  fakeTool("reading_list_list", { capabilities: ["lists.read"] }),
  fakeTool("reading_list_add", { capabilities: ["lists.read", "lists.write"] }),
  fakeTool("reading_list_delete", { capabilities: ["lists.read"] }),
  fakeTool("reading_list_search"),
  fakeTool("reading_list_export", { capabilities: ["lists.read", "files.write"] }),
  fakeTool("reading_list_tag", { capabilities: [] }),
  fakeTool("todo_add", { capabilities: ["todos.write"] }),
  fakeTool("web_fetch"),
  // The package's own system tools: exempt by identity (marked when made), not by name.
  asSystemTool(fakeTool("system_clock")),
  asSystemTool(fakeTool("system_lists", { capabilities: ["lists.write"] })),
];

describe("scopeTools (seed 000 getEffectiveTools)", () => {
  it("applies tool allow/deny globs then capability allow/deny globs, keeping the package's system tools", () => {
    expect(names(scopeTools(readingList, tools))).toEqual([
      "reading_list_list", // allowed, capability lists.read allowed
      "reading_list_search", // no capabilities: capability checks skipped
      "reading_list_tag", // empty capabilities: skipped too
      "system_clock", // the package's system tools are always kept
      "system_lists", // ... even with a denied capability
    ]);
  });

  it("drops a tool when any capability is denied, or when not every capability is allowed", () => {
    const kept = names(scopeTools(readingList, tools));
    expect(kept).not.toContain("reading_list_add"); // lists.write denied
    expect(kept).not.toContain("reading_list_export"); // files.write not allowed
    expect(kept).not.toContain("reading_list_delete"); // tool denylist
  });

  it("scopes the todo agent to todo_* (plus the package's system tools)", () => {
    expect(names(scopeTools(todo, tools))).toEqual(["todo_add", "system_clock", "system_lists"]);
  });

  it("gives every tool, in order, to an agent with no scoping, and treats null lists as unset", () => {
    expect(names(scopeTools(general, tools))).toEqual(names(tools));
    const allNull: AgentDefinition = {
      agentId: "n",
      displayName: "N",
      toolAllowlist: null,
      toolDenylist: null,
      capabilityAllowlist: null,
      capabilityDenylist: null,
    };
    expect(names(scopeTools(allNull, tools))).toEqual(names(tools));
    expect(names(scopeTools({ ...allNull, toolDenylist: ["web_*"] }, tools))).toEqual(
      names(tools).filter((n) => n !== "web_fetch"),
    );
  });

  it("treats an empty allowlist as set: only the package's system tools remain", () => {
    expect(names(scopeTools({ agentId: "a", displayName: "A", toolAllowlist: [] }, tools))).toEqual([
      "system_clock",
      "system_lists",
    ]);
  });

  it("applies capability lists alone without restricting tool names", () => {
    const agent: AgentDefinition = { agentId: "a", displayName: "A", capabilityDenylist: ["*.write"] };
    expect(names(scopeTools(agent, tools))).toEqual([
      "reading_list_list",
      "reading_list_delete",
      "reading_list_search",
      "reading_list_tag",
      "web_fetch",
      "system_clock",
      "system_lists",
    ]);
  });

  it("matches whole names with globs: `*` is not a prefix test, braces and `?` work, `!` is literal", () => {
    const only = (toolAllowlist: string[]) =>
      names(scopeTools({ agentId: "a", displayName: "A", toolAllowlist }, tools)).filter(
        (n) => !n.startsWith("system_"),
      );
    expect(only(["reading_list"])).toEqual([]);
    expect(only(["{todo_add,web_fetch}"])).toEqual(["todo_add", "web_fetch"]);
    expect(only(["todo_ad?"])).toEqual(["todo_add"]);
    expect(only(["!todo_add"])).toEqual([]);
  });

  it("scopes a tool named system_* like any other unless the package itself marked that very object", () => {
    const hostClock = fakeTool("system_clock");
    const mcpRead = { ...fakeTool("system_fs.read_file", { capabilities: ["files.read"] }), mcpServer: "system_fs" };
    const copied = { ...tools.find((t) => t.name === "system_lists")! };
    const outside = [hostClock, mcpRead, copied, fakeTool("todo_add")];
    const allowNothing: AgentDefinition = { agentId: "a", displayName: "A", toolAllowlist: [] };
    expect(names(scopeTools(allowNothing, outside))).toEqual([]);
    expect(names(scopeTools({ agentId: "a", displayName: "A", toolDenylist: ["system_*"] }, outside))).toEqual([
      "todo_add",
    ]);
    expect(names(scopeTools({ agentId: "a", displayName: "A", toolAllowlist: ["todo_*"] }, outside))).toEqual([
      "todo_add",
    ]);
    const noFiles: AgentDefinition = { agentId: "a", displayName: "A", capabilityDenylist: ["files.*", "lists.*"] };
    expect(names(scopeTools(noFiles, outside))).toEqual(["system_clock", "todo_add"]);
  });

  it("does not modify its input", () => {
    const copy = [...tools];
    scopeTools(readingList, tools);
    expect(tools).toEqual(copy);
  });
});
