import { compileGlobs } from "../internal/glob.js";
import type { AgentDefinition } from "../contracts/agent-definition.js";
import type { Skill } from "./skill.js";

/**
 * The skills an agent may use, by its `skillAllowlist` / `skillDenylist` globs matched against
 * each skill's plugin id ({@link Skill.id}); the denylist applies after the allowlist.
 *
 * A list that is `null` or absent is unset: with both unset every skill is kept. An empty
 * allowlist allows nothing. This does not look at `toolExposure`. Order is kept; the input array
 * is not modified.
 */
export function scopeSkills(agent: AgentDefinition, skills: readonly Skill[]): Skill[] {
  const allow = agent.skillAllowlist == null ? undefined : compileGlobs(agent.skillAllowlist);
  const deny = agent.skillDenylist == null ? undefined : compileGlobs(agent.skillDenylist);
  return skills.filter((skill) => (!allow || allow(skill.id)) && !deny?.(skill.id));
}
