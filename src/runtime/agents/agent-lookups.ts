import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import { AgentNotFoundError } from "../../errors/errors.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { SessionState } from "../records/session-state.js";

/** The registered agent `agentId`; throws `AgentNotFoundError`. */
export function agentOf(registry: AgentRegistry, agentId: string): AgentDefinition {
  const agent = registry.get(agentId);
  if (!agent) throw new AgentNotFoundError(agentId);
  return agent;
}

/** The session's role: its last `role` record, else the one kept in its attributes (past a reset), else its agent's. */
export function sessionRole(
  roleOf: RoleLookup,
  agent: AgentDefinition,
  session: SessionSummary,
  state: SessionState,
): string | null {
  const kept = session.attributes?.role;
  const name = state.role ?? (typeof kept === "string" ? kept : undefined) ?? agent.role;
  return name !== undefined && roleOf(name) ? name : null;
}
