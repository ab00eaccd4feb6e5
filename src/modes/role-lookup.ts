import type { AgentRegistry } from "../contracts/agent-registry.js";
import { AgentConfigError, InvalidArgumentError } from "../errors/errors.js";
import { defineRole } from "./define-role.js";
import { roles, type RoleDefinition } from "./roles.js";

/** Finds a role by name among the presets and the host's roles. */
export type RoleLookup = (name: string) => RoleDefinition | undefined;

/**
 * The roles a runtime knows: the `planner` and `actor` presets plus the host's (which may replace
 * a preset by using its name). Checks every host role (`defineRole`'s rules; no name twice) and
 * that every agent in the registry names a known role, throwing before anything runs.
 */
export function createRoleLookup(
  hostRoles: readonly RoleDefinition[] | undefined,
  registry: AgentRegistry,
): RoleLookup {
  const known = new Map<string, RoleDefinition>(Object.values(roles).map((role) => [role.name, role]));
  const seen = new Set<string>();
  for (const role of hostRoles ?? []) {
    const checked = defineRole(role);
    if (seen.has(checked.name))
      throw new InvalidArgumentError(`createAgentRuntime: role "${checked.name}" is defined twice`);
    seen.add(checked.name);
    known.set(checked.name, checked);
  }
  const problems = registry.list().flatMap((agent, index) =>
    agent.role !== undefined && !known.has(agent.role)
      ? [
          {
            path: `agents[${index}].role`,
            message: `unknown role "${agent.role}" for agent "${agent.agentId}"; known roles: ${[...known.keys()].join(", ")} (host roles go in createAgentRuntime({ roles }))`,
          },
        ]
      : [],
  );
  if (problems.length > 0) throw new AgentConfigError(problems);
  return (name) => known.get(name);
}
