import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { PlanSchema, QuestionSchema, parsePlan } from "@agentry/core";

const seedPlan = {
  type: "plan",
  goal: "User's objective in natural language",
  steps: [
    {
      step_number: 1,
      action: "Read the configuration file",
      reason: "Need to understand current settings",
      tools_needed: ["read_file"],
      estimated_time: "~1 second",
    },
    {
      step_number: 2,
      action: "Modify the config to enable feature X",
      reason: "Requested by user",
      tools_needed: ["update_file"],
      estimated_time: "~2 seconds",
    },
  ],
  estimated_total_time: "~5 seconds",
  risks: ["May need to restart service after config change"],
  prerequisites: [],
};

describe("parsePlan: seed 002 JSON", () => {
  it("reads the seed's example bare, filling in format_version", () => {
    const parsed = parsePlan(JSON.stringify(seedPlan, null, 2));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.plan.format_version).toBe("1.0");
    expect(parsed.plan.type).toBe("plan");
    expect(parsed.plan.steps.map((s) => s.action)).toEqual([
      "Read the configuration file",
      "Modify the config to enable feature X",
    ]);
    expect(PlanSchema.safeParse(parsed.plan).success).toBe(true);
  });

  it("reads JSON in a code fence with prose around it", () => {
    const text = `Here is the plan:\n\n\`\`\`json\n${JSON.stringify({ ...seedPlan, format_version: "1.0" })}\n\`\`\`\n\nShall I go on?`;
    const parsed = parsePlan(text);
    expect(parsed.ok && parsed.plan.goal).toBe("User's objective in natural language");
  });

  it("accepts the template without type (seed 002's prompt leaves it out)", () => {
    const { type: _type, ...untyped } = seedPlan;
    expect(parsePlan(JSON.stringify(untyped)).ok).toBe(true);
  });

  it("returns errors the model can act on, never a half-parsed plan", () => {
    const cases: [string, RegExp][] = [
      ["{ goal: 1 ", /not valid JSON/],
      [JSON.stringify({ ...seedPlan, steps: [] }), /steps/],
      [JSON.stringify({ ...seedPlan, goal: "" }), /goal/],
      [JSON.stringify({ ...seedPlan, format_version: "2.0" }), /Unsupported format_version "2.0": use "1.0"/],
      [JSON.stringify({ ...seedPlan, type: "question" }), /"type" must be "plan"/],
      [JSON.stringify({ ...seedPlan, steps: [{ step_number: 2, action: "x" }] }), /numbered 1, 2, 3/],
      ["[1,2]", /no goal|JSON object/],
      ["", /empty/],
    ];
    for (const [text, error] of cases) {
      const parsed = parsePlan(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(error);
      expect(parsed).not.toHaveProperty("plan");
    }
  });

  it("bounds its input", () => {
    const parsed = parsePlan("Goal: x\n" + "1. step\n".repeat(40_000));
    expect(parsed.ok).toBe(false);
  });
});

describe("parsePlan: seed 004 markdown", () => {
  it("reads a goal line, numbered steps and the lists after them", () => {
    const parsed = parsePlan(`# Plan: Dark mode

**Goal:** Add a dark mode toggle to the settings page.

## Steps
1. **Read the theme code** — find where colours are defined
2. Add a \`theme\` setting
   - stored in preferences
3) Wire the toggle to the setting

## Risks
- Contrast may fail accessibility checks

## Completion criteria
- The toggle switches themes without a reload
`);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.plan.goal).toBe("Add a dark mode toggle to the settings page.");
    expect(parsed.plan.steps).toEqual([
      { step_number: 1, action: "Read the theme code", reason: "find where colours are defined" },
      { step_number: 2, action: "Add a `theme` setting", reason: "stored in preferences" },
      { step_number: 3, action: "Wire the toggle to the setting" },
    ]);
    expect(parsed.plan.risks).toEqual(["Contrast may fail accessibility checks"]);
    expect(parsed.plan.completion_criteria).toEqual(["The toggle switches themes without a reload"]);
  });

  it("takes the goal from a Goal section or the title", () => {
    const fromSection = parsePlan("## Goal\nShip the release\n\n## Steps\n1. Tag\n2. Publish");
    expect(fromSection.ok && fromSection.plan.goal).toBe("Ship the release");
    const fromTitle = parsePlan("# Plan: Ship the release\n\n1. Tag\n2. Publish");
    expect(fromTitle.ok && fromTitle.plan.goal).toBe("Ship the release");
  });

  it("says what is missing", () => {
    const noSteps = parsePlan("Goal: do it");
    expect(!noSteps.ok && noSteps.error).toMatch(/no steps.*numbered list/);
    const noGoal = parsePlan("Some words\n1. a\n2. b");
    expect(!noGoal.ok && noGoal.error).toMatch(/no goal.*Goal:/);
  });

  it("never throws, whatever the text (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc
            .array(fc.constantFrom("Goal: x", "1. a", "## Steps", "- r", "```json", "{", "}", "## Risks", "\n"))
            .map((a) => a.join("\n")),
        ),
        (text) => {
          const parsed = parsePlan(text);
          if (parsed.ok) expect(PlanSchema.safeParse(parsed.plan).success).toBe(true);
          else expect(typeof parsed.error).toBe("string");
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("QuestionSchema", () => {
  const seedQuestion = {
    type: "question",
    format_version: "1.0",
    question: "Should I also update the test files to match?",
    context: "I noticed the test files still use the old API.",
    severity: "minor",
    options: [
      { label: "Yes, update tests", value: "update_tests", description: "Update test files" },
      { label: "No, skip tests", value: "skip_tests" },
    ],
    default: "skip_tests",
    allow_custom: false,
  };
  it("accepts seed 002's example and rejects a default that is not an option", () => {
    expect(QuestionSchema.safeParse(seedQuestion).success).toBe(true);
    expect(QuestionSchema.safeParse({ ...seedQuestion, default: "maybe" }).success).toBe(false);
    expect(QuestionSchema.safeParse({ ...seedQuestion, severity: "urgent" }).success).toBe(false);
    expect(QuestionSchema.safeParse({ ...seedQuestion, options: [] }).success).toBe(false);
    expect(
      QuestionSchema.safeParse({ ...seedQuestion, options: [], default: undefined, allow_custom: true }).success,
    ).toBe(true);
  });
});
