import type { BudgetLimits } from "../../contracts/budget.js";
import type { AgentRuntimeOptions } from "./runtime-options.js";

const DEFAULT_MAX_DELEGATION_DEPTH = 3;
const DEFAULT_MAX_BACKGROUND_AGENTS = 8;
const DEFAULT_MAX_AGENT_HOPS = 8;

/** The runtime-wide limits of agent-to-agent work, with their defaults applied (read once, at creation). */
export interface RuntimeLimits {
  /** Longest `agents_message` chain. */
  readonly maxDelegationDepth: number;
  /** Background agents one root turn may start, counting those they start. */
  readonly maxBackgroundAgents: number;
  /** Longest chain of `send_agent_message` / background hops from one root turn. */
  readonly maxAgentHops: number;
  /** The runtime's own `budget` (an agent's overrides it). */
  readonly budget: Partial<BudgetLimits> | undefined;
}

/** The limits `options` set, defaults filled in. */
export function runtimeLimits(options: AgentRuntimeOptions): RuntimeLimits {
  return {
    maxDelegationDepth: options.maxDelegationDepth ?? DEFAULT_MAX_DELEGATION_DEPTH,
    maxBackgroundAgents: options.maxBackgroundAgents ?? DEFAULT_MAX_BACKGROUND_AGENTS,
    maxAgentHops: options.maxAgentHops ?? DEFAULT_MAX_AGENT_HOPS,
    budget: options.budget,
  };
}
