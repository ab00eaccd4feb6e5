import type { Tool } from "../contracts/tool.js";

// Toolbelts `composeToolbelt` made for an agent, with the agent's scope test for tool names. The
// loop reads it for the tools it adds itself (`run_subtask`, `finish_subtask`), which are never in
// the array the scope was applied to. Keyed by the array object, so nothing rides on a name or a
// property a caller could set; a WeakMap holds nothing alive.
const scopes = new WeakMap<readonly Tool[], (name: string) => boolean>();

/**
 * Records that `toolbelt` was composed for an agent whose tool lists keep exactly the names
 * `keeps` accepts (a tool without capabilities of that name), and returns it. Called by
 * `composeToolbelt` only, on the array it returns.
 */
export function withAgentScope(toolbelt: Tool[], keeps: (name: string) => boolean): Tool[] {
  scopes.set(toolbelt, keeps);
  return toolbelt;
}

/**
 * Whether the agent a toolbelt was composed for keeps a tool named `name` (a tool of the loop's
 * own: no capabilities). True for an array `composeToolbelt` did not make for an agent, a copy
 * of one included: there is no agent scope to apply then.
 */
export function agentScopeKeeps(toolbelt: readonly Tool[], name: string): boolean {
  return scopes.get(toolbelt)?.(name) ?? true;
}
