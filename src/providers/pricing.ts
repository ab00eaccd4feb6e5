import type { ModelPricing } from "../contracts/provider.js";

/** Token counts priced by {@link computeCostUsd}. */
export interface PricedUsage {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` read from the provider's prompt cache. @default 0 */
  cachedInputTokens?: number;
}

/**
 * The cost in USD of one response's usage: non-cached input (`inputTokens - cachedInputTokens`)
 * at `inputPerMillion`, cached input at `cachedInputPerMillion` (default `inputPerMillion`), output
 * at `outputPerMillion`. Counts below zero (a provider reporting more cached than total) are
 * clamped to zero.
 *
 * Two positional parameters (pricing, usage), the obvious pair, as the loop calls it.
 *
 * @example
 * computeCostUsd({ inputPerMillion: 3, outputPerMillion: 15 }, { inputTokens: 1000, outputTokens: 200 });
 * // 0.006
 */
export function computeCostUsd(pricing: ModelPricing, usage: PricedUsage): number {
  const cached = Math.min(Math.max(0, usage.cachedInputTokens ?? 0), Math.max(0, usage.inputTokens));
  const fresh = Math.max(0, usage.inputTokens - cached);
  const output = Math.max(0, usage.outputTokens);
  const cachedPrice = pricing.cachedInputPerMillion ?? pricing.inputPerMillion;
  return (fresh * pricing.inputPerMillion + cached * cachedPrice + output * pricing.outputPerMillion) / 1_000_000;
}
