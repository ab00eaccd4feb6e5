import type { AgentDefinition } from "../../contracts/agent-definition.js";
import { DEFAULT_BUDGET } from "../../loop/budget.js";
import type { RuntimeLimits } from "./runtime-limits.js";

/**
 * What a root turn and everything it starts in the background share: one user message can never
 * fan out without bound. Kept in memory; a turn handed to a dispatcher takes a share of what is
 * left with it (see `hand-off.ts`), so the limits hold across processes too.
 */
export interface LineageCounters {
  /** Background agents started so far. */
  backgroundAgents: number;
  /** Model calls made so far by every turn of the lineage. */
  llmCalls: number;
  /** Limit of `llmCalls`: the root turn's `maxTotalLlmCalls` (or a dispatched turn's share of it). */
  maxLlmCalls: number;
  /** Limit of `backgroundAgents`: the runtime's `maxBackgroundAgents` (or a dispatched turn's share of it). */
  maxBackgroundAgents: number;
}

/** The lineage of one turn: the shared counters and how many agent-to-agent hops led to it. */
export interface Lineage {
  counters: LineageCounters;
  /** `send_agent_message` / background hops from the root turn to this one. */
  hops: number;
  /** Set for a turn handed over by a dispatcher: its model calls are limited to its counters' share. */
  dispatched?: true;
}

/** A root turn's lineage: no hops yet, the agent's (else the runtime's) model-call limit. */
export function newLineage(
  limits: Pick<RuntimeLimits, "maxBackgroundAgents" | "budget">,
  agent: AgentDefinition,
): Lineage {
  return {
    counters: {
      backgroundAgents: 0,
      maxBackgroundAgents: limits.maxBackgroundAgents,
      llmCalls: 0,
      maxLlmCalls: agent.budget?.maxTotalLlmCalls ?? limits.budget?.maxTotalLlmCalls ?? DEFAULT_BUDGET.maxTotalLlmCalls,
    },
    hops: 0,
  };
}
