import type { BudgetLimits } from "../loop/budget-types.js";

/** A configured agent (seed 000). `null` in a list field means unset. */
export interface AgentDefinition {
  agentId: string;
  displayName: string;
  description?: string;
  systemPrompt?: string;
  type?: "chat" | "external";
  chat?: { provider?: string; model?: string };
  toolAllowlist?: string[] | null;
  toolDenylist?: string[] | null;
  toolExposure?: "tools" | "skills" | "mixed";
  skillAllowlist?: string[] | null;
  skillDenylist?: string[] | null;
  capabilityAllowlist?: string[] | null;
  capabilityDenylist?: string[] | null;
  agentAllowlist?: string[] | null;
  agentDenylist?: string[] | null;
  /** @default true */
  uiVisible?: boolean;
  apiExposed?: boolean;
  /** A role name, e.g. `"planner"` or `"actor"`. */
  role?: string;
  budget?: Partial<BudgetLimits>;
}
