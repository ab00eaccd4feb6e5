import type { BudgetLimits } from "./budget.js";

/** The model settings of an agent (`AgentDefinition.chat`), passed to the provider on every model call of its turns. */
export interface AgentChatSettings {
  /** Key of a provider registered with the runtime. @default the runtime's `defaultProvider` */
  provider?: string;
  /** Model name sent to the provider. @default the runtime's `defaultModel` */
  model?: string;
  /** Sampling temperature, 0 to 2. @default unset (the provider's default) */
  temperature?: number;
  /** Most output tokens per model call, a positive whole number. @default unset (the provider's default) */
  maxOutputTokens?: number;
  /**
   * Vendor-specific request options, plain JSON: `openai()` merges them into the request body
   * (e.g. `{ "reasoning_effort": "low" }`), `fromAiSdk()` passes them as the AI SDK's
   * `providerOptions` (e.g. `{ "anthropic": { "thinking": { "type": "enabled", "budgetTokens": 2048 } } }`).
   * @default unset
   */
  providerOptions?: Record<string, unknown>;
}

/**
 * A configured agent: a persona with its own prompt and a scoped set of tools, skills
 * and peers. Usually loaded with `createAgentRegistry`, which validates it and turns every `null`
 * into an absent field. Glob lists are unset when absent or `null` (no restriction) and set when
 * an array: an empty allowlist allows nothing. Globs (one dialect for tool names, capabilities,
 * skill ids and agent ids): `*` matches any run of characters and crosses `/`, `.` and `:`
 * (`secrets*` denies `secrets/mail.send`), `?` one character, `[a-z]` / `[!a-z]` one of (not of)
 * a set, `{a,b}` alternatives (at most 256 after expansion; ranges such as `{1..9}` are
 * rejected); `\x` is a literal `x`; no negation (use the denylist), whole-value matches.
 */
export interface AgentDefinition {
  /** Unique id, 1-64 letters, digits, `_`, `.` or `-`, e.g. `"reading-list"`. */
  agentId: string;
  /** Human-readable name, e.g. `"Reading List Manager"`. Shown to peers in their prompts. */
  displayName: string;
  /** One line on what the agent does; shown to peers and in the generated base prompt. */
  description?: string;
  /** Base system prompt. @default `You are {displayName}. {description}` */
  systemPrompt?: string;
  /** Runtime kind. @default "chat" */
  type?: "chat" | "external";
  /** Which registered provider and model serve the agent, and how they are called. */
  chat?: AgentChatSettings;
  /** Globs of tool names the agent may use. @default all tools */
  toolAllowlist?: string[] | null;
  /** Globs of tool names taken away after the allowlist. @default none */
  toolDenylist?: string[] | null;
  /** How plugin functionality is offered: as tools, as CLI skills run through bash, or both. @default "tools" */
  toolExposure?: "tools" | "skills" | "mixed";
  /** Globs of plugin ids whose skills the agent may use. @default all skills */
  skillAllowlist?: string[] | null;
  /** Globs of plugin ids whose skills are taken away after the allowlist. @default none */
  skillDenylist?: string[] | null;
  /** Globs that every capability of a tool must match, e.g. `["lists.*"]`. @default all capabilities */
  capabilityAllowlist?: string[] | null;
  /** A tool with any capability matching one of these globs is taken away. @default none */
  capabilityDenylist?: string[] | null;
  /** Globs of agent ids this agent may see and delegate to. @default all agents */
  agentAllowlist?: string[] | null;
  /** Globs of agent ids taken away after the allowlist. @default none */
  agentDenylist?: string[] | null;
  /** When false, hidden from clients and from every other agent's peers. @default true */
  uiVisible?: boolean;
  /**
   * Whether `serveAgentsOverMcp` (`@agentry/core/mcp`) may serve this agent as an MCP tool. When
   * false, the agent is left out of the agents it serves by default, and naming it in its `agents`
   * option throws `InvalidArgumentError`. Nothing else reads it: `runtime.send`, delegation and
   * the host's own transports still reach the agent (hide it from peers with `uiVisible`).
   * @default true
   */
  apiExposed?: boolean;
  /** A role name from `roles`, e.g. `"planner"` or `"actor"`: narrows the policy, adds its prompt. @default no role */
  role?: string;
  /** Limits for the agent's turns, over the runtime's. @default the runtime's budget */
  budget?: Partial<BudgetLimits>;
}
