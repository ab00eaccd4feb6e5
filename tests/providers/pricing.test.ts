import { describe, expect, it } from "vitest";
import { computeCostUsd } from "../../src/providers/pricing.js";

describe("computeCostUsd", () => {
  const pricing = { inputPerMillion: 3, outputPerMillion: 15 };

  it("prices input and output per million tokens", () => {
    expect(computeCostUsd(pricing, { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(3, 10);
    expect(computeCostUsd(pricing, { inputTokens: 1000, outputTokens: 200 })).toBeCloseTo(0.006, 12);
  });

  it("prices cached input at cachedInputPerMillion and only the rest at the input price", () => {
    const cost = computeCostUsd(
      { ...pricing, cachedInputPerMillion: 0.3 },
      { inputTokens: 10_000, outputTokens: 1000, cachedInputTokens: 8000 },
    );
    // 2000 fresh * 3 + 8000 cached * 0.3 + 1000 * 15, per million
    expect(cost).toBeCloseTo((2000 * 3 + 8000 * 0.3 + 1000 * 15) / 1e6, 12);
  });

  it("prices cached input at the input price when no cached price is given", () => {
    const withCache = computeCostUsd(pricing, { inputTokens: 10_000, outputTokens: 0, cachedInputTokens: 8000 });
    expect(withCache).toBeCloseTo(computeCostUsd(pricing, { inputTokens: 10_000, outputTokens: 0 }), 12);
  });

  it("is zero for zero usage and never negative for inconsistent counts", () => {
    expect(computeCostUsd(pricing, { inputTokens: 0, outputTokens: 0 })).toBe(0);
    const odd = computeCostUsd(
      { ...pricing, cachedInputPerMillion: 1 },
      { inputTokens: 100, outputTokens: 0, cachedInputTokens: 500 },
    );
    expect(odd).toBeCloseTo((100 * 1) / 1e6, 12);
  });
});
