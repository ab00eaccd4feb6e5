import { describe, expect, it } from "vitest";
import { createAgentRegistry, type AgentDefinition } from "@agentry/core";
import { agentVisibility, canSeeAgent, visibleAgents } from "../../src/agents/agent-visibility.js";
import { seedConfig } from "./helpers.js";

const def = (agentId: string, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  agentId,
  displayName: agentId.toUpperCase(),
  ...extra,
});
const ids = (agents: AgentDefinition[]) => agents.map((a) => a.agentId);

const registry = createAgentRegistry([
  def("general"),
  def("todo"),
  def("journal"),
  def("code-reviewer"),
  def("code-writer"),
  def("secret-ops", { uiVisible: false }),
]);

describe("agent visibility (seed 000)", () => {
  it("the seed's reading-list agent sees exactly its allowlisted peers, in registry order", () => {
    const seed = createAgentRegistry(seedConfig());
    expect(ids(visibleAgents(seed.get("reading-list")!, seed))).toEqual(["todo", "journal"]);
    // general has no lists: it sees everyone but itself.
    expect(ids(visibleAgents(seed.get("general")!, seed))).toEqual(["reading-list", "todo", "journal"]);
  });

  it("unset lists allow every other visible agent; the agent itself and hidden agents are left out", () => {
    expect(ids(visibleAgents(registry.get("general")!, registry))).toEqual([
      "todo",
      "journal",
      "code-reviewer",
      "code-writer",
    ]);
  });

  it("matches allowlist and denylist globs, the denylist after the allowlist", () => {
    const from = def("lead", { agentAllowlist: ["code-*", "journal"], agentDenylist: ["*-writer"] });
    expect(ids(visibleAgents(from, registry))).toEqual(["journal", "code-reviewer"]);
    expect(ids(visibleAgents(def("lead", { agentDenylist: ["{todo,journal}"] }), registry))).toEqual([
      "general",
      "code-reviewer",
      "code-writer",
    ]);
  });

  it("lists in registry order, whatever the allowlist order", () => {
    expect(ids(visibleAgents(def("lead", { agentAllowlist: ["journal", "todo"] }), registry))).toEqual([
      "todo",
      "journal",
    ]);
  });

  it("an empty allowlist allows no one; null lists are unset", () => {
    expect(visibleAgents(def("lead", { agentAllowlist: [] }), registry)).toEqual([]);
    expect(ids(visibleAgents(def("lead", { agentAllowlist: null, agentDenylist: null }), registry))).toEqual([
      "general",
      "todo",
      "journal",
      "code-reviewer",
      "code-writer",
    ]);
  });

  it("gives the reason an agent cannot be seen", () => {
    const from = def("lead", { agentAllowlist: ["*"], agentDenylist: ["code-writer"] });
    expect(agentVisibility(from, def("todo"))).toEqual({ visible: true });
    expect(agentVisibility(from, def("lead"))).toEqual({
      visible: false,
      code: "self",
      reason: 'Agent "lead" cannot delegate to itself.',
    });
    expect(agentVisibility(from, registry.get("secret-ops")!)).toEqual({
      visible: false,
      code: "hidden",
      reason: 'Agent "secret-ops" is hidden (uiVisible: false).',
    });
    expect(agentVisibility(from, def("code-writer"))).toEqual({
      visible: false,
      code: "denied",
      reason: 'Agent "code-writer" matches the agentDenylist of "lead".',
    });
    expect(agentVisibility(def("lead", { agentAllowlist: ["todo"] }), def("journal"))).toEqual({
      visible: false,
      code: "not_allowed",
      reason: 'Agent "journal" is not in the agentAllowlist of "lead".',
    });
  });

  it("a hidden agent stays hidden even when allowlisted by name; uiVisible true or unset is visible", () => {
    const from = def("lead", { agentAllowlist: ["secret-ops", "todo"] });
    expect(canSeeAgent(from, registry.get("secret-ops")!)).toBe(false);
    expect(canSeeAgent(from, def("todo", { uiVisible: true }))).toBe(true);
    expect(canSeeAgent(from, def("todo"))).toBe(true);
  });

  it("an agent never sees itself, even through a matching allowlist", () => {
    const general = registry.get("general")!;
    expect(canSeeAgent(def("general", { agentAllowlist: ["*"] }), general)).toBe(false);
    expect(ids(visibleAgents(def("general", { agentAllowlist: ["*"] }), registry))).not.toContain("general");
  });
});
