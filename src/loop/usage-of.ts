import type { Usage } from "../contracts/message.js";
import type { TurnBudget } from "./budget.js";

/** Usage of the turn so far, as results report it. */
export function usageOf(budget: TurnBudget, priced: boolean): Usage {
  const c = budget.counters;
  const usage: Usage = {
    inputTokens: c.inputTokens,
    outputTokens: c.outputTokens,
    llmCalls: c.llmCalls,
    toolCalls: c.toolCalls,
  };
  if (c.cachedInputTokens > 0) usage.cachedInputTokens = c.cachedInputTokens;
  if (priced) usage.costUsd = c.costUsd;
  return usage;
}
