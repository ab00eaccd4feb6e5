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
  /**
   * Every agent, in configuration order. A new array on each call. With `visibleTo`, only the
   * agents that kind of client may show: `"ui"` leaves out `uiVisible: false`, `"api"` leaves out
   * `apiExposed: false` (any other value lists none). A host registry that ignores the query lists
   * too much: implement it.
   */
  list(query?: AgentListQuery): AgentDefinition[];
}

/** Which agents `AgentRegistry.list` returns. */
export interface AgentListQuery {
  /** Only the agents visible to this kind of client (`uiVisible` / `apiExposed` not false). @default every agent */
  visibleTo?: "ui" | "api";
}
