import { roles, type RoleDefinition } from "../modes/roles.js";
import type { ChatContext } from "../contracts/tool-policy.js";
import type { Tool } from "../contracts/tool.js";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { AgentRegistry } from "../contracts/agent-registry.js";
import { visibleAgents } from "./agent-visibility.js";
import type { PromptSection, PromptSectionContext, PromptSectionSource } from "./prompt-section.js";
import { scopeSkills } from "./scope-skills.js";
import type { Skill } from "./skill.js";
import { isSystemTool } from "../internal/system-tools.js";

export type { PromptSection, PromptSectionContext, PromptSectionSource, Skill };

/** The base prompt of a run without an agent, unless `defaultPrompt` is given. */
export const DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant.";

/** What {@link buildSystemPrompt} takes. Arrays are read in order and never modified. */
export interface BuildSystemPromptOptions {
  /** The agent of the run: its base prompt, skill scope, visible peers and role. @default no agent */
  agent?: AgentDefinition;
  /**
   * The run's toolbelt (e.g. `composeToolbelt`'s result), listed as given: this function does not
   * scope tools. The package's own system tools (known by identity, never by name) are not
   * listed; every other tool is, whatever its name (a host's `system_clock` included).
   */
  tools: readonly Pick<Tool, "name" | "description">[];
  /** CLI skills, listed when the agent's `toolExposure` is `"skills"` or `"mixed"`. @default [] */
  skills?: readonly Skill[];
  /** Host sections (static or computed per run), rendered in this order. @default [] */
  sections?: readonly (PromptSection | PromptSectionSource)[];
  /** Where peers for the "Available agents" section come from. @default no agents section */
  registry?: AgentRegistry;
  /** Passed to computed sections. @default undefined */
  chatContext?: ChatContext;
  /** Passed to computed sections. @default undefined */
  sessionId?: string;
  /** Base prompt when there is no `agent`. @default DEFAULT_SYSTEM_PROMPT */
  defaultPrompt?: string;
  /**
   * Role whose prompt is appended last; `null` for none.
   * @default the agent's `role` looked up in `roles`, if it names one
   */
  role?: RoleDefinition | null;
  /**
   * The loop offers `run_subtask` to this run (its policy enables `subagent` and `maxDepth` > 0):
   * the tools list names it, with one line on when to decompose.
   * @default false
   */
  subtasks?: boolean;
}

/** What the root prompt says about `run_subtask` when the loop offers it. */
export const SUBTASK_PROMPT_LINE =
  "- run_subtask: hand a self-contained part of the work to a focused sub-agent that starts from your instructions alone and returns its result; " +
  "call it several times in one response to work in parallel. Decompose only when a part is independent and big enough to deserve its own context; do small steps yourself.";

/** Longest one-line description shown for a tool, skill or agent, in characters. */
const MAX_SUMMARY = 160;

/** Leading blank lines and trailing whitespace removed; inner text kept as written. */
const clean = (text: string): string => text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd();

/** One line of `text`: its first line, whitespace collapsed, optionally its first sentence, capped. */
function summarize(text: string | undefined, firstSentence: boolean): string {
  let line = (text ?? "").trim().split(/\r?\n/, 1)[0]!.replace(/\s+/g, " ");
  // A sentence ends at . ! or ? followed by a capital letter or the end ("e.g. foo" stays whole).
  if (firstSentence) line = /^.*?[.!?](?=\s+[A-Z]|$)/.exec(line)?.[0] ?? line;
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1).trimEnd()}…` : line;
}

const heading = (title: string, lines: string[]): string => `## ${title}\n${lines.join("\n")}`;

function basePrompt(agent: AgentDefinition | undefined, defaultPrompt: string | undefined): string {
  if (!agent) return clean(defaultPrompt ?? DEFAULT_SYSTEM_PROMPT);
  if (agent.systemPrompt?.trim()) return clean(agent.systemPrompt);
  const description = agent.description?.trim();
  return description ? `You are ${agent.displayName}. ${description}` : `You are ${agent.displayName}.`;
}

function skillsSection(agent: AgentDefinition, skills: readonly Skill[]): string {
  if (agent.toolExposure !== "skills" && agent.toolExposure !== "mixed") return "";
  const allowed = scopeSkills(agent, skills);
  if (allowed.length === 0) return "";
  return heading("Available CLI skills", [
    "Use these skills through the bash tool: read a skill's SKILL.md before its first use, then run its CLI.",
    ...allowed.flatMap((skill) => {
      const description = summarize(skill.description, false);
      return [
        `- ${skill.id}: ${skill.name}${description ? ` - ${description}` : ""}`,
        `  SKILL.md: ${skill.skillPath}`,
        `  CLI: ${skill.cliPath}`,
      ];
    }),
  ]);
}

function agentsSection(agent: AgentDefinition | undefined, registry: AgentRegistry): string {
  const peers = agent ? visibleAgents(agent, registry) : registry.list().filter((peer) => peer.uiVisible !== false);
  if (peers.length === 0) return "";
  return heading("Available agents", [
    "Available agents you can delegate to:",
    ...peers.map((peer) => {
      const description = summarize(peer.description, false);
      return `- ${peer.agentId}: ${peer.displayName}${description ? ` - ${description}` : ""}`;
    }),
    "",
    "Use agents_message to ask another agent to perform a task.",
  ]);
}

function hostSection(source: PromptSection | PromptSectionSource, context: PromptSectionContext): string {
  const section = typeof source === "function" ? source(context) : source;
  const body = section ? clean(section.content) : "";
  if (!section || !body) return "";
  const title = section.title.trim();
  return title ? `## ${title}\n${body}` : body;
}

/**
 * The full system prompt of a run: blocks joined by one blank
 * line, empty blocks left out, in this order:
 *
 * 1. Base prompt: the agent's `systemPrompt` if not blank; else, with an agent,
 *    `You are {displayName}. {description}` (just `You are {displayName}.` without a
 *    description); with no agent, `defaultPrompt`.
 * 2. `## Available tools`: one `- name: description` line per tool but the package's own system
 *    tools (known by identity, never by name), the description cut to its first sentence (at
 *    most 160 characters). Left out with no such tool.
 * 3. `## Available CLI skills`: when the agent's `toolExposure` is `"skills"` or `"mixed"` and
 *    the run has any tool (skills are run through the shell tool), the skills its skill globs
 *    allow ({@link scopeSkills}), each with its SKILL.md path and CLI path.
 * 4. Host sections, in the order given, as `## {title}` then the content.
 * 5. `## Available agents`: the "Agent Discovery" text listing the registry's agents the
 *    agent may see ({@link visibleAgents}), as `- {agentId}: {displayName} - {description}`.
 *    Without an agent, every agent with `uiVisible !== false` is listed.
 * 6. The role's prompt (`# CURRENT ROLE: ...`).
 *
 * Deterministic: the same inputs give the same string (no clock, no randomness; every list in
 * input or registry order), so providers can cache the prompt prefix.
 *
 * @example
 * const systemPrompt = buildSystemPrompt({ agent, tools: toolbelt, registry, skills });
 */
export function buildSystemPrompt(options: BuildSystemPromptOptions): string {
  const { agent, tools } = options;
  const context: PromptSectionContext = {
    ...(agent && { agent }),
    ...(options.chatContext && { chatContext: options.chatContext }),
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
  };
  const listed = tools.filter((tool) => !isSystemTool(tool));
  const role =
    options.role !== undefined
      ? options.role
      : agent?.role !== undefined && Object.hasOwn(roles, agent.role)
        ? roles[agent.role as keyof typeof roles]
        : null;

  const blocks = [
    basePrompt(agent, options.defaultPrompt),
    listed.length === 0 && options.subtasks !== true
      ? ""
      : heading("Available tools", [
          ...listed.map((tool) => {
            const description = summarize(tool.description, true);
            return description ? `- ${tool.name}: ${description}` : `- ${tool.name}`;
          }),
          ...(options.subtasks === true ? [SUBTASK_PROMPT_LINE] : []),
        ]),
    agent && tools.length > 0 ? skillsSection(agent, options.skills ?? []) : "",
    ...(options.sections ?? []).map((source) => hostSection(source, context)),
    options.registry ? agentsSection(agent, options.registry) : "",
    role ? clean(role.prompt) : "",
  ];
  return blocks.filter((block) => block !== "").join("\n\n");
}
