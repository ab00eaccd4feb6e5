import type { AgentDefinition } from "../../contracts/agent-definition.js";
import { AgentNotFoundError, InvalidArgumentError } from "../../errors/errors.js";
import { DEFAULT_BUDGET } from "../../loop/budget.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "../../internal/lone-surrogate.js";
import { scopeFilterOf, type ScopeFilter, type ScopeQuery } from "../../internal/scope-filter.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { Lineage } from "./runtime-core.js";
import type { SessionState } from "../session/session-state.js";

/** The registered agent `agentId`; throws `AgentNotFoundError`. */
export function agentOf(runtime: RuntimeContext, agentId: string): AgentDefinition {
  const agent = runtime.registry.get(agentId);
  if (!agent) throw new AgentNotFoundError(agentId);
  return agent;
}

/** Throws once the runtime is closed. */
export function checkOpen(runtime: RuntimeContext): void {
  if (runtime.closed) throw new InvalidArgumentError("The runtime is closed");
}

/** Throws for a `scope` that is set but not a non-empty string. */
export function checkScope(operation: string, scope: unknown): void {
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw new InvalidArgumentError(`${operation}: scope must be a non-empty string when set`);
  if (typeof scope === "string" && hasLoneSurrogate(scope))
    throw new InvalidArgumentError(`${operation}: scope ${LONE_SURROGATE_PROBLEM}`);
}

/**
 * Checks the tenant filter of a listing or lookup: `scope` a non-empty string, `scopePrefix` a
 * string (`""` = every scope), not both. Returns the filter.
 */
export function checkScopeQuery(
  operation: string,
  query: { scope?: unknown; scopePrefix?: unknown } | undefined,
): ScopeFilter {
  if (query === undefined) return { kind: "any" };
  if (typeof query !== "object" || query === null)
    throw new InvalidArgumentError(`${operation}: query must be an object when given`);
  checkScope(operation, query.scope);
  return scopeFilterOf(operation, query as ScopeQuery, { allowNull: false });
}

/** A root turn's lineage: no hops yet, the agent's (else the runtime's) model-call limit. */
export function newLineage(runtime: RuntimeContext, agent: AgentDefinition): Lineage {
  return {
    counters: {
      backgroundAgents: 0,
      maxBackgroundAgents: runtime.maxBackgroundAgents,
      llmCalls: 0,
      maxLlmCalls:
        agent.budget?.maxTotalLlmCalls ?? runtime.options.budget?.maxTotalLlmCalls ?? DEFAULT_BUDGET.maxTotalLlmCalls,
    },
    hops: 0,
  };
}

/** The session's role: its last `role` record, else the one kept in its attributes (past a reset), else its agent's. */
export function sessionRole(
  runtime: RuntimeContext,
  agent: AgentDefinition,
  session: SessionSummary,
  state: SessionState,
): string | null {
  const kept = session.attributes?.role;
  const name = state.role ?? (typeof kept === "string" ? kept : undefined) ?? agent.role;
  return name !== undefined && runtime.roleOf(name) ? name : null;
}
