import { describe, expect, it } from "vitest";
import { parsePlan, type Plan } from "@agentry/core";
import { planSummaryOf, stepTitle } from "../../src/modes/plan-summary.js";

const parsed = (text: string): Plan => {
  const result = parsePlan(text);
  if (!result.ok) throw new Error(result.error);
  return result.plan;
};

describe("planSummaryOf (the task view of a plan)", () => {
  it("takes the goal, titles and descriptions (action — reason) and the completion criteria from the parse", () => {
    const plan = parsed(`Goal: Add dark mode

1. **Read the theme code** — find where colours are defined
2. Add a theme setting

Completion criteria:
- The toggle works without a reload
`);
    expect(planSummaryOf(plan)).toEqual({
      goal_summary: "Add dark mode",
      steps: [
        { title: "Read the theme code", description: "Read the theme code — find where colours are defined" },
        { title: "Add a theme setting", description: "Add a theme setting" },
      ],
      completion_criteria: ["The toggle works without a reload"],
    });
  });

  it("leaves completion_criteria out when the plan has none", () => {
    expect(planSummaryOf(parsed("Goal: x\n1. a"))).not.toHaveProperty("completion_criteria");
  });

  it("shortens a long action to one line of at most 80 characters, at a word boundary", () => {
    const long =
      "Rewrite the importer so that it streams rows from the uploaded file instead of reading it whole into memory first";
    const title = stepTitle(long);
    expect(title.length).toBeLessThanOrEqual(80);
    expect(title).toBe("Rewrite the importer so that it streams rows from the uploaded file instead of…");
    expect(stepTitle("First line\nsecond line")).toBe("First line");
    expect(stepTitle("x".repeat(200))).toBe("x".repeat(79) + "…");
    expect(stepTitle("Short")).toBe("Short");
  });
});
