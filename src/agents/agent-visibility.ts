import { compileGlobs, type GlobMatcher } from "../internal/glob.js";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { AgentRegistry } from "../contracts/agent-registry.js";

/**
 * Whether one agent may see (list in its prompt, delegate to with `agents_message`) another,
 * and if not, why. `code` is stable, for hosts and tool results; `reason` is a sentence.
 */
export type AgentVisibility =
  { visible: true } | { visible: false; code: "self" | "hidden" | "not_allowed" | "denied"; reason: string };

const compileList = (patterns: readonly string[] | null | undefined): GlobMatcher | undefined =>
  patterns == null ? undefined : compileGlobs(patterns);

function check(
  from: AgentDefinition,
  to: AgentDefinition,
  allow: GlobMatcher | undefined,
  deny: GlobMatcher | undefined,
): AgentVisibility {
  if (to.agentId === from.agentId) {
    return { visible: false, code: "self", reason: `Agent "${to.agentId}" cannot delegate to itself.` };
  }
  if (to.uiVisible === false) {
    return { visible: false, code: "hidden", reason: `Agent "${to.agentId}" is hidden (uiVisible: false).` };
  }
  if (allow && !allow(to.agentId)) {
    return {
      visible: false,
      code: "not_allowed",
      reason: `Agent "${to.agentId}" is not in the agentAllowlist of "${from.agentId}".`,
    };
  }
  if (deny?.(to.agentId)) {
    return {
      visible: false,
      code: "denied",
      reason: `Agent "${to.agentId}" matches the agentDenylist of "${from.agentId}".`,
    };
  }
  return { visible: true };
}

/**
 * Whether `to` is visible and allowed from `from`, checked in this order:
 *
 * 1. `to` is not `from` itself (same `agentId`): code `"self"`.
 * 2. `to.uiVisible !== false`: code `"hidden"` (an allowlist entry does not override it).
 * 3. `from.agentAllowlist`, when set, has a glob matching `to.agentId`: code `"not_allowed"`.
 *    Unset (`undefined` or `null`) allows every agent; an empty list allows none.
 * 4. `from.agentDenylist`, when set, has no glob matching `to.agentId`: code `"denied"`.
 *
 * Globs are matched like tool globs (see `AgentDefinition`: `*` crosses `/`, `.` and `:`; `?`,
 * `[...]`, `{a,b}`; no negation).
 */
export function agentVisibility(from: AgentDefinition, to: AgentDefinition): AgentVisibility {
  return check(from, to, compileList(from.agentAllowlist), compileList(from.agentDenylist));
}

/** `agentVisibility(from, to).visible`: whether `from` may see and delegate to `to`. */
export function canSeeAgent(from: AgentDefinition, to: AgentDefinition): boolean {
  return agentVisibility(from, to).visible;
}

/**
 * The agents `from` may see ({@link agentVisibility}), in registry order (`registry.list()`).
 * Never includes `from` itself.
 */
export function visibleAgents(from: AgentDefinition, registry: AgentRegistry): AgentDefinition[] {
  const allow = compileList(from.agentAllowlist);
  const deny = compileList(from.agentDenylist);
  return registry.list().filter((to) => check(from, to, allow, deny).visible);
}

/**
 * Whether a client of kind `client` may show `agent`: `"ui"` unless `uiVisible: false`, `"api"`
 * unless `apiExposed: false`. Any other value: false (fail closed).
 */
export function isVisibleTo(agent: AgentDefinition, client: unknown): boolean {
  switch (client) {
    case "ui":
      return agent.uiVisible !== false;
    case "api":
      return agent.apiExposed !== false;
    default:
      return false;
  }
}
