import type { AgentDefinition } from "./agent-definition.js";

/**
 * The configured agents, looked up by id. Made by `createAgentRegistry`; hosts may implement
 * their own (e.g. backed by a database), keeping the same promises:
 *
 * - `get` and `list` never throw and have no side effects.
 * - `list()` returns every agent in one stable order (the configuration's), the same on every
 *   call while the configuration is unchanged: prompts list peers in this order, and a stable
 *   prompt is what makes prompt caching work.
 * - Returned definitions must not be modified by callers (`createAgentRegistry` freezes them).
 */
export interface AgentRegistry {
  /** The agent with this id, or `undefined` when there is none. */
  get(agentId: string): AgentDefinition | undefined;
  /** Every agent, in configuration order. A new array on each call. */
  list(): AgentDefinition[];
}
