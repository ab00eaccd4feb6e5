import { describe, expect, it } from "vitest";
import { createAgentRegistry } from "@agentry/core";

const registry = createAgentRegistry([
  { agentId: "general", displayName: "General" },
  { agentId: "internal", displayName: "Internal", uiVisible: false },
  { agentId: "ui-only", displayName: "UI only", apiExposed: false },
  { agentId: "neither", displayName: "Neither", uiVisible: false, apiExposed: false },
  { agentId: "explicit", displayName: "Explicit", uiVisible: true, apiExposed: true },
]);
const ids = (list: { agentId: string }[]) => list.map((agent) => agent.agentId);

describe("registry.list({ visibleTo })", () => {
  it("lists every agent without a query, in configuration order", () => {
    expect(ids(registry.list())).toEqual(["general", "internal", "ui-only", "neither", "explicit"]);
    expect(ids(registry.list({}))).toEqual(["general", "internal", "ui-only", "neither", "explicit"]);
  });

  it('"ui" leaves out uiVisible: false; "api" leaves out apiExposed: false; order kept', () => {
    expect(ids(registry.list({ visibleTo: "ui" }))).toEqual(["general", "ui-only", "explicit"]);
    expect(ids(registry.list({ visibleTo: "api" }))).toEqual(["general", "internal", "explicit"]);
  });

  it("an unknown client kind lists none (fail closed), and never throws", () => {
    expect(registry.list({ visibleTo: "everyone" as "ui" })).toEqual([]);
  });
});
