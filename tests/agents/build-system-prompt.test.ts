import { describe, expect, it } from "vitest";
import { createAgentRegistry, roles, type AgentDefinition, type PromptSectionContext } from "@agentry/core";
import { buildSystemPrompt, DEFAULT_SYSTEM_PROMPT } from "../../src/agents/build-system-prompt.js";
import { asSystemTool } from "../../src/internal/system-tools.js";
import { seedConfig, skill, tool } from "./helpers.js";

const def = (agentId: string, extra: Partial<AgentDefinition> = {}): AgentDefinition => ({
  agentId,
  displayName: `${agentId} agent`,
  ...extra,
});
const seed = createAgentRegistry(seedConfig());
const readingList = seed.get("reading-list")!;

describe("buildSystemPrompt: base prompt", () => {
  it("uses the agent's systemPrompt when it is not blank", () => {
    expect(
      buildSystemPrompt({ agent: def("a", { systemPrompt: "You file taxes.\n", description: "ignored" }), tools: [] }),
    ).toBe("You file taxes.");
  });

  it("otherwise says who the agent is, from displayName and description", () => {
    const agent = def("a", { displayName: "Tax Helper", description: "files taxes", systemPrompt: "   " });
    expect(buildSystemPrompt({ agent, tools: [] })).toBe("You are Tax Helper. files taxes");
  });

  it("without a description, has no trailing text (and never 'undefined')", () => {
    expect(buildSystemPrompt({ agent: def("a", { displayName: "Tax Helper" }), tools: [] })).toBe(
      "You are Tax Helper.",
    );
  });

  it("without an agent, uses defaultPrompt, else the built-in default", () => {
    expect(buildSystemPrompt({ tools: [] })).toBe(DEFAULT_SYSTEM_PROMPT);
    expect(buildSystemPrompt({ tools: [], defaultPrompt: "You are the house assistant." })).toBe(
      "You are the house assistant.",
    );
    // defaultPrompt is not used when there is an agent.
    expect(buildSystemPrompt({ agent: def("a", { displayName: "A" }), tools: [], defaultPrompt: "house" })).toBe(
      "You are A.",
    );
  });
});

describe("buildSystemPrompt: tools and skills", () => {
  it("lists tools but the package's system tools with the first sentence of their description", () => {
    const prompt = buildSystemPrompt({
      agent: def("a", { systemPrompt: "Base." }),
      tools: [
        tool("web_fetch", "Fetch a page, e.g. a blog post. Returns its text.\nMore usage notes."),
        asSystemTool(tool("system_clock", "Time.")),
        tool("todo_add", "Add a todo\nsecond line"),
      ],
    });
    expect(prompt).toBe(
      "Base.\n\n## Available tools\n- web_fetch: Fetch a page, e.g. a blog post.\n- todo_add: Add a todo",
    );
  });

  it("caps long descriptions at 160 characters", () => {
    const prompt = buildSystemPrompt({ tools: [tool("t", "word ".repeat(60))] });
    const line = prompt.split("\n").find((l) => l.startsWith("- t: "))!;
    expect(line.length).toBe("- t: ".length + 160);
    expect(line.endsWith("…")).toBe(true);
  });

  it("leaves the tools section out with no tools, or only the package's system tools", () => {
    expect(buildSystemPrompt({ agent: def("a"), tools: [] })).not.toContain("Available tools");
    expect(buildSystemPrompt({ agent: def("a"), tools: [asSystemTool(tool("system_clock"))] })).not.toContain(
      "Available tools",
    );
  });

  it("lists a host's or an MCP server's tool named system_* (nothing callable is hidden by its name)", () => {
    const prompt = buildSystemPrompt({
      tools: [tool("system_clock", "Time."), tool("system_fs.write_file", "Write a file.")],
    });
    expect(prompt).toContain("- system_clock: Time.\n- system_fs.write_file: Write a file.");
  });

  it("lists CLI skills only for toolExposure skills or mixed", () => {
    const tools = [tool("bash", "Run a shell command.")];
    const skills = [skill("notes")];
    for (const toolExposure of [undefined, "tools"] as const) {
      expect(buildSystemPrompt({ agent: def("a", toolExposure && { toolExposure }), tools, skills })).not.toContain(
        "Available CLI skills",
      );
    }
    for (const toolExposure of ["skills", "mixed"] as const) {
      expect(buildSystemPrompt({ agent: def("a", { toolExposure }), tools, skills })).toContain(
        "## Available CLI skills\nUse these skills through the bash tool: read a skill's SKILL.md before its first use, then run its CLI.\n" +
          "- notes: Notes - The notes skill.\n  SKILL.md: /skills/notes/SKILL.md\n  CLI: /skills/notes/bin/notes",
      );
    }
  });

  it("filters skills by the agent's skill globs on the plugin id", () => {
    const skills = [skill("notes"), skill("notes-archive"), skill("calendar"), skill("mail")];
    const listed = (agent: AgentDefinition) =>
      buildSystemPrompt({
        agent: { ...agent, toolExposure: "skills" },
        tools: [asSystemTool(tool("system_bash"))],
        skills,
      })
        .split("\n")
        .filter((line) => line.startsWith("- "))
        .map((line) => line.slice(2, line.indexOf(":")));
    expect(listed(def("a", { skillAllowlist: ["notes*", "calendar"], skillDenylist: ["*-archive"] }))).toEqual([
      "notes",
      "calendar",
    ]);
    expect(listed(def("a", { skillDenylist: ["mail"] }))).toEqual(["notes", "notes-archive", "calendar"]);
    expect(listed(def("a", { skillAllowlist: [] }))).toEqual([]);
  });

  it("lists no skills when the run has no tools to run them with", () => {
    expect(
      buildSystemPrompt({ agent: def("a", { toolExposure: "skills" }), tools: [], skills: [skill("notes")] }),
    ).toBe("You are a agent.");
  });
});

describe("buildSystemPrompt: host sections", () => {
  it("renders static and computed sections in the order given, leaving out empty ones", () => {
    const seen: PromptSectionContext[] = [];
    const prompt = buildSystemPrompt({
      agent: def("a", { systemPrompt: "Base." }),
      tools: [],
      chatContext: { kind: "editor" },
      sessionId: "s1",
      sections: [
        { title: "Artifacts", content: "\n- list: Groceries (id 7)\n\n" },
        (context) => {
          seen.push(context);
          return { title: "Panels", content: `session ${context.sessionId}, ${context.chatContext?.kind}` };
        },
        () => undefined,
        { title: "Empty", content: "  \n " },
        { title: "", content: "Untitled note." },
      ],
    });
    expect(prompt).toBe(
      "Base.\n\n## Artifacts\n- list: Groceries (id 7)\n\n## Panels\nsession s1, editor\n\nUntitled note.",
    );
    expect(seen).toEqual([
      { agent: def("a", { systemPrompt: "Base." }), chatContext: { kind: "editor" }, sessionId: "s1" },
    ]);
  });
});

describe("buildSystemPrompt: available agents (seed 000 Agent Discovery)", () => {
  it("renders the seed's reading-list agent: base, tools, skills, peers", () => {
    const prompt = buildSystemPrompt({
      agent: readingList,
      registry: seed,
      tools: [
        tool("reading_list_add", "Add an article, paper or link to the reading list. Takes a URL."),
        asSystemTool(tool("system_clock", "Time.")),
      ],
      skills: [skill("notes", "Create and search notes."), skill("calendar")],
    });
    expect(prompt).toBe(
      [
        readingList.systemPrompt,
        "",
        "## Available tools",
        "- reading_list_add: Add an article, paper or link to the reading list.",
        "",
        "## Available CLI skills",
        "Use these skills through the bash tool: read a skill's SKILL.md before its first use, then run its CLI.",
        "- notes: Notes - Create and search notes.",
        "  SKILL.md: /skills/notes/SKILL.md",
        "  CLI: /skills/notes/bin/notes",
        "",
        "## Available agents",
        "Available agents you can delegate to:",
        "- todo: Todo Manager",
        "- journal: Personal Journal",
        "",
        "Use agents_message to ask another agent to perform a task.",
      ].join("\n"),
    );
  });

  it("uses the seed's line format with descriptions, and leaves out hidden, denied and self", () => {
    const registry = createAgentRegistry([
      def("reading-list", { displayName: "Reading List Manager" }),
      def("todo", { displayName: "Todo List Manager", description: "manages tasks and reminders" }),
      def("journal", { displayName: "Personal Journal", description: "for reflections and notes" }),
      def("code-reviewer", { displayName: "Code Reviewer", description: "analyzes code snippets\nand more" }),
      def("ops", { uiVisible: false }),
      def("billing"),
    ]);
    const prompt = buildSystemPrompt({
      agent: { ...registry.get("reading-list")!, agentDenylist: ["billing"] },
      registry,
      tools: [],
    });
    expect(prompt).toBe(`You are Reading List Manager.

## Available agents
Available agents you can delegate to:
- todo: Todo List Manager - manages tasks and reminders
- journal: Personal Journal - for reflections and notes
- code-reviewer: Code Reviewer - analyzes code snippets

Use agents_message to ask another agent to perform a task.`);
  });

  it("leaves the section out when no agent is visible, or with no registry", () => {
    expect(buildSystemPrompt({ agent: def("solo", { agentAllowlist: [] }), registry: seed, tools: [] })).not.toContain(
      "Available agents",
    );
    expect(buildSystemPrompt({ agent: readingList, tools: [] })).not.toContain("Available agents");
  });
});

describe("buildSystemPrompt: roles, order and determinism", () => {
  it("appends the role prompt last, by default the agent's role", () => {
    const agent = def("a", { systemPrompt: "Base.", role: "planner" });
    expect(buildSystemPrompt({ agent, tools: [tool("read_file")], registry: seed })).toMatch(
      /Use agents_message to ask another agent to perform a task\.\n\n# CURRENT ROLE: PLANNER\n[\s\S]*"format_version": "1.0"[\s\S]*switch you to the ACTOR role for execution\.$/,
    );
    expect(buildSystemPrompt({ agent, tools: [], role: roles.actor })).toBe(`Base.\n\n${roles.actor.prompt}`);
    expect(buildSystemPrompt({ agent, tools: [], role: null })).toBe("Base.");
  });

  it("orders blocks: base, tools, skills, host sections, agents, role", () => {
    const prompt = buildSystemPrompt({
      agent: def("a", { systemPrompt: "Base.", toolExposure: "mixed" }),
      tools: [tool("bash")],
      skills: [skill("notes")],
      sections: [{ title: "Host", content: "host" }],
      registry: seed,
      role: roles.actor,
    });
    const at = [
      "Base.",
      "## Available tools",
      "## Available CLI skills",
      "## Host",
      "## Available agents",
      "# CURRENT ROLE: ACTOR",
    ].map((s) => prompt.indexOf(s));
    expect(at.every((index, i) => index >= 0 && (i === 0 || index > at[i - 1]!))).toBe(true);
  });

  it("gives the same string for the same inputs, and follows registry order", () => {
    const options = { agent: readingList, registry: seed, tools: [tool("reading_list_add")], skills: [skill("notes")] };
    expect(buildSystemPrompt(options)).toBe(buildSystemPrompt({ ...options, tools: [tool("reading_list_add")] }));
    const reversed = createAgentRegistry([...seed.list()].reverse());
    const peers = (prompt: string) => prompt.split("\n").filter((l) => /^- (todo|journal):/.test(l));
    expect(peers(buildSystemPrompt(options))).toEqual(["- todo: Todo Manager", "- journal: Personal Journal"]);
    expect(peers(buildSystemPrompt({ ...options, registry: reversed }))).toEqual([
      "- journal: Personal Journal",
      "- todo: Todo Manager",
    ]);
  });
});
