import { describe, expect, it } from "vitest";
import { AgentConfigError, AgentryError, createAgentRegistry, type AgentDefinition } from "@agentry/core";
import { parseAgentDefinition } from "../../src/agents/parse-agent-definition.js";
import type { ConfigProblem } from "../../src/errors/errors.js";
import { seedConfig } from "./helpers.js";

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The problems of the AgentConfigError that `run` throws, sorted by path then message (code-unit order). */
function problemsOf(run: () => unknown): ConfigProblem[] {
  try {
    run();
  } catch (error) {
    expect(AgentConfigError.isInstance(error)).toBe(true);
    const problems = (error as AgentConfigError).problems;
    return [...problems].sort((a, b) => byCodeUnits(a.path, b.path) || byCodeUnits(a.message, b.message));
  }
  throw new Error("expected an AgentConfigError");
}

const agent = (extra: Record<string, unknown>) => ({ agentId: "a", displayName: "A", ...extra });

describe("createAgentRegistry: seed 000 configuration", () => {
  it("loads the seed's configuration file verbatim, in order", () => {
    const registry = createAgentRegistry(seedConfig());
    expect(registry.list().map((a) => a.agentId)).toEqual(["reading-list", "todo", "journal", "general"]);
    expect(registry.get("reading-list")).toEqual({
      agentId: "reading-list",
      displayName: "Reading List Manager",
      systemPrompt:
        "You are a reading list manager. Help the user track articles, papers, and links they want to read. You can add items, list the queue, search for items, and mark items as read.",
      toolAllowlist: ["reading_list_*"],
      toolDenylist: ["reading_list_delete"],
      toolExposure: "mixed",
      skillAllowlist: ["notes"],
      capabilityAllowlist: ["lists.*"],
      capabilityDenylist: ["lists.write"],
      agentAllowlist: ["todo", "journal"],
      uiVisible: true,
      apiExposed: false,
    });
    expect(registry.get("todo")?.displayName).toBe("Todo Manager");
    expect(registry.get("nobody")).toBeUndefined();
  });

  it("reads `null` as unset: general's toolAllowlist is absent", () => {
    const general = createAgentRegistry(seedConfig()).get("general")!;
    expect("toolAllowlist" in general).toBe(false);
    expect(general).toEqual({
      agentId: "general",
      displayName: "General Assistant",
      systemPrompt: "You are a helpful general assistant.",
      uiVisible: true,
    });
  });

  it("drops null in every optional field, also inside chat and budget", () => {
    const nulls = Object.fromEntries(
      [
        "description",
        "systemPrompt",
        "type",
        "toolAllowlist",
        "toolDenylist",
        "toolExposure",
        "skillAllowlist",
        "skillDenylist",
        "capabilityAllowlist",
        "capabilityDenylist",
        "agentAllowlist",
        "agentDenylist",
        "uiVisible",
        "apiExposed",
        "role",
      ].map((key) => [key, null]),
    );
    const registry = createAgentRegistry({
      agents: [
        agent(nulls),
        agent({ agentId: "b", chat: { provider: null, model: "gpt-x" }, budget: { maxDepth: null, maxCostUsd: 0.5 } }),
        agent({ agentId: "c", chat: null, budget: null }),
      ],
    });
    expect(registry.get("a")).toEqual({ agentId: "a", displayName: "A" });
    expect(Object.keys(registry.get("a")!)).toEqual(["agentId", "displayName"]);
    expect(registry.get("b")).toEqual({
      agentId: "b",
      displayName: "A",
      chat: { model: "gpt-x" },
      budget: { maxCostUsd: 0.5 },
    });
    expect(registry.get("c")).toEqual({ agentId: "c", displayName: "A" });
  });

  it("accepts an array of definitions, validated like the file form", () => {
    const definitions: AgentDefinition[] = [
      {
        agentId: "x",
        displayName: "X",
        role: "planner",
        budget: { maxDepth: 1 },
        chat: { provider: "openai", model: "m" },
      },
    ];
    expect(createAgentRegistry(definitions).get("x")?.role).toBe("planner");
    const bad = [{ agentId: "x", displayName: "X", toolAllowlist: [""] }] as AgentDefinition[];
    expect(problemsOf(() => createAgentRegistry(bad))).toEqual([
      { path: "agents[0].toolAllowlist[0]", message: 'must not be empty, got string ""' },
    ]);
  });

  it("ignores other top-level keys of a configuration file", () => {
    expect(createAgentRegistry({ ...seedConfig(), plugins: {} } as { agents: unknown[] }).list()).toHaveLength(4);
  });

  it("returns frozen deep copies: neither the input nor callers can change the registry", () => {
    const config = seedConfig();
    const registry = createAgentRegistry(config);
    (config.agents[0] as { toolAllowlist: string[] }).toolAllowlist.push("web_fetch");
    (config.agents[1] as { displayName: string }).displayName = "Changed";

    const readingList = registry.get("reading-list")!;
    expect(readingList.toolAllowlist).toEqual(["reading_list_*"]);
    expect(registry.get("todo")?.displayName).toBe("Todo Manager");
    expect(Object.isFrozen(readingList)).toBe(true);
    expect(() => readingList.toolAllowlist!.push("x")).toThrow(TypeError);
    expect(() => {
      (readingList as { displayName: string }).displayName = "x";
    }).toThrow(TypeError);

    const listed = registry.list();
    listed.pop();
    expect(registry.list()).toHaveLength(4);
  });
});

describe("createAgentRegistry: every problem at once", () => {
  it("lists every problem of every agent in one AgentConfigError, with exact paths", () => {
    const config = {
      agents: [
        { agentId: "todo", displayName: "Todo", toolAllowlist: ["todo_*", ""], toolAllowList: ["x"] },
        { agentId: "journal", displayName: 42, uiVisible: "yes", budget: { maxDepth: -1, maxSteps: 3 } },
        { agentId: "todo", displayName: "Second todo", agentDenylist: ["!general"], toolExposure: "plugins" },
        { agentId: "has space", displayName: "Bad id", role: "command er", chat: { provider: "openai", modle: "m" } },
        { displayName: "No id", capabilityAllowlist: "lists.*" },
      ],
    };
    let thrown: unknown;
    try {
      createAgentRegistry(config);
    } catch (error) {
      thrown = error;
    }
    expect(AgentConfigError.isInstance(thrown)).toBe(true);
    expect(AgentryError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).name).toBe("AgentConfigError");

    const problems = problemsOf(() => createAgentRegistry(config));
    expect(problems.map((p) => p.path)).toEqual([
      "agents[0].toolAllowList", // unknown key (typo)
      "agents[0].toolAllowlist[1]", // empty glob
      "agents[1].budget.maxDepth", // negative limit
      "agents[1].budget.maxSteps", // unknown budget key
      "agents[1].displayName", // wrong type
      "agents[1].uiVisible", // wrong type
      "agents[2].agentDenylist[0]", // negated glob
      "agents[2].agentId", // duplicate id
      "agents[2].toolExposure", // not an exposure mode
      "agents[3].agentId", // bad characters
      "agents[3].chat.modle", // unknown chat key
      "agents[3].role", // not a role name
      "agents[4].agentId", // missing
      "agents[4].capabilityAllowlist", // a string, not a list
    ]);
    const message = (path: string) => problems.find((p) => p.path === path)?.message;
    expect(message("agents[0].toolAllowList")).toMatch(
      /^unknown key \(did you mean "toolAllowlist"\?\); allowed keys: agentId, displayName, /,
    );
    expect(message("agents[1].budget.maxSteps")).toMatch(
      /^unknown key; allowed keys: maxDepth, maxIterationsPerLevel, /,
    ); // nothing close enough to suggest
    expect(message("agents[1].displayName")).toBe("expected string, got number 42");
    expect(message("agents[2].agentId")).toBe('duplicate agentId "todo" (already used by agents[0])');
    expect(message("agents[2].toolExposure")).toBe('expected one of "tools", "skills", "mixed", got string "plugins"');
    expect(message("agents[3].role")).toMatch(
      /^must be a role name \(the presets "planner", "actor", or a host role\)/,
    );
    expect(message("agents[3].chat.modle")).toBe(
      'unknown key (did you mean "model"?); allowed keys: provider, model, temperature, maxOutputTokens, providerOptions',
    );
    expect(message("agents[4].agentId")).toBe("is required");
    // The error's message names every problem too, for logs.
    for (const problem of problems) expect((thrown as Error).message).toContain(`${problem.path}: ${problem.message}`);
  });

  it("reports a duplicate id even when that agent is otherwise valid, at the later agent", () => {
    const problems = problemsOf(() =>
      createAgentRegistry({ agents: [agent({}), agent({ agentId: "b" }), agent({}), agent({})] }),
    );
    expect(problems).toEqual([
      { path: "agents[2].agentId", message: 'duplicate agentId "a" (already used by agents[0])' },
      { path: "agents[3].agentId", message: 'duplicate agentId "a" (already used by agents[0])' },
    ]);
  });

  it.each([
    ["empty", "", 'must not be empty, got string ""'],
    ["blank edges", " todo_*", 'must not start or end with whitespace, got string " todo_*"'],
    [
      "NUL byte",
      "todo\u0000",
      'must not contain control characters (such as NUL or a newline), got string "todo\\u0000"',
    ],
    [
      "negation",
      "!todo_*",
      'negation ("!") is not supported: put the pattern in the matching denylist instead, got string "!todo_*"',
    ],
    ["too long", "a".repeat(257), "must be at most 256 characters"],
  ])("rejects a bad glob (%s)", (_label, pattern, expected) => {
    const [problem, ...rest] = problemsOf(() =>
      createAgentRegistry({ agents: [agent({ skillDenylist: ["ok_*", pattern] })] }),
    );
    expect(rest).toEqual([]);
    expect(problem?.path).toBe("agents[0].skillDenylist[1]");
    expect(problem?.message.startsWith(expected)).toBe(true);
  });

  it("accepts ordinary globs in every list", () => {
    const lists = [
      "toolAllowlist",
      "toolDenylist",
      "skillAllowlist",
      "skillDenylist",
      "capabilityAllowlist",
      "capabilityDenylist",
      "agentAllowlist",
      "agentDenylist",
    ];
    const patterns = ["reading_list_*", "lists.*", "{todo,journal}", "agent-?", "[a-c]*", "**", "a".repeat(256)];
    expect(
      createAgentRegistry({ agents: [agent(Object.fromEntries(lists.map((l) => [l, patterns])))] }).get("a")
        ?.agentDenylist,
    ).toEqual(patterns);
  });

  it("checks budget keys and values", () => {
    expect(
      createAgentRegistry({ agents: [agent({ budget: { maxDepth: 0, maxCostUsd: 0.25, maxTotalTokens: 1000 } })] }).get(
        "a",
      )?.budget,
    ).toEqual({
      maxDepth: 0,
      maxCostUsd: 0.25,
      maxTotalTokens: 1000,
    });
    expect(
      problemsOf(() =>
        createAgentRegistry({
          agents: [agent({ budget: { maxParallelPerTurn: 0, maxWallClockMs: "1s", maxToolResultBytes: -5 } })],
        }),
      ),
    ).toEqual([
      { path: "agents[0].budget.maxParallelPerTurn", message: "must be at least 1, got number 0" },
      { path: "agents[0].budget.maxToolResultBytes", message: "must be a non-negative number, got number -5" },
      { path: "agents[0].budget.maxWallClockMs", message: 'expected number, got string "1s"' },
    ]);
  });

  it("names a config that is not a list of agents", () => {
    expect(problemsOf(() => createAgentRegistry({} as { agents: unknown[] }))).toEqual([
      { path: "agents", message: "is required (an array of agent definitions)" },
    ]);
    expect(problemsOf(() => createAgentRegistry({ agents: {} } as unknown as { agents: unknown[] }))).toEqual([
      { path: "agents", message: "expected an array of agent definitions" },
    ]);
    expect(problemsOf(() => createAgentRegistry({ agents: [null, "todo"] }))).toEqual([
      { path: "agents[0]", message: "expected object, got null" },
      { path: "agents[1]", message: 'expected object, got string "todo"' },
    ]);
  });

  it("accepts an empty configuration", () => {
    expect(createAgentRegistry({ agents: [] }).list()).toEqual([]);
  });
});

describe("parseAgentDefinition", () => {
  it("returns the normalised definition or the problems, with paths relative to options.path", () => {
    expect(parseAgentDefinition({ agentId: "a", displayName: "A", toolDenylist: null })).toEqual({
      success: true,
      definition: { agentId: "a", displayName: "A" },
    });
    expect(parseAgentDefinition({ agentId: "a", displayName: "A", toolDenylist: [1] })).toEqual({
      success: false,
      problems: [{ path: "toolDenylist[0]", message: "expected string, got number 1" }],
    });
    expect(parseAgentDefinition({ agentId: "a", "display name": "A" }, { path: "cfg" })).toMatchObject({
      success: false,
      problems: [{ path: "cfg.displayName", message: "is required" }, { path: 'cfg["display name"]' }],
    });
  });
});
