import { z } from "zod";

// Written with APIs that zod 3.25 and zod 4 share (the peer range is `^3.25 || ^4`).

/** The version of the plan and question JSON formats this package writes and reads. */
export const FORMAT_VERSION = "1.0";

/** Longest plan or question text accepted, in characters (bounded parse cost). */
export const MAX_FORMAT_TEXT_CHARS = 200_000;

/** Most steps a plan may have. */
export const MAX_PLAN_STEPS = 200;

/** Builds the format schemas; zod schemas are built on first use, not at import (cold start). */
function buildFormats() {
  const text = z.string().min(1);
  const textList = z.array(z.string()).max(200);
  const planStep = z.object({
    step_number: z.number().int().positive(),
    action: text,
    reason: z.string().optional(),
    tools_needed: z.array(z.string()).max(100).optional(),
    estimated_time: z.string().optional(),
  });
  const plan = z
    .object({
      type: z.literal("plan"),
      format_version: z.literal(FORMAT_VERSION),
      goal: text,
      steps: z.array(planStep).min(1).max(MAX_PLAN_STEPS),
      estimated_total_time: z.string().optional(),
      risks: textList.optional(),
      prerequisites: textList.optional(),
      completion_criteria: textList.optional(),
    })
    .refine((value) => value.steps.every((step, index) => step.step_number === index + 1), {
      message: "steps must be numbered 1, 2, 3... in order",
      path: ["steps"],
    });
  const questionOption = z.object({
    label: text,
    value: text,
    description: z.string().optional(),
  });
  const questionFields = z
    .object({
      question: text,
      context: z.string().optional(),
      severity: z.enum(["critical", "major", "minor"]),
      options: z.array(questionOption).max(20),
      default: z.string().optional(),
      allow_custom: z.boolean().optional(),
    })
    .refine((q) => q.options.length > 0 || q.allow_custom === true, {
      message: "give at least one option, or set allow_custom: true for a free-text answer",
      path: ["options"],
    })
    .refine((q) => q.default === undefined || q.options.some((o) => o.value === q.default), {
      message: "default must be the value of one of the options",
      path: ["default"],
    })
    .refine((q) => new Set(q.options.map((o) => o.value)).size === q.options.length, {
      message: "option values must be unique",
      path: ["options"],
    });
  const question = z
    .object({
      type: z.literal("question"),
      format_version: z.literal(FORMAT_VERSION),
    })
    .and(questionFields);
  return { plan, questionFields, question };
}

let formats: ReturnType<typeof buildFormats> | undefined;

/**
 * The plan and question schemas themselves, built once on first use (for this package's own
 * parsing: no lazy indirection per parse).
 * @internal
 */
export function planFormats(): ReturnType<typeof buildFormats> {
  return (formats ??= buildFormats());
}

/**
 * The plan format (`format_version: "1.0"`): a goal and numbered steps, each with the
 * action, why, the tools it needs and a rough time; then risks, prerequisites and completion
 * criteria. Unknown keys are dropped. Step numbers must be 1, 2, 3... in order.
 *
 * A `z.lazy` schema: the schema behind it is built on first use, so importing the package
 * builds no zod schema.
 */
export const PlanSchema = z.lazy(() => planFormats().plan);

/**
 * The fields of a question the model writes (what `ask_user` takes): a {@link Question} without `type` and
 * `format_version`. Lazy like {@link PlanSchema}.
 */
export const QuestionFieldsSchema = z.lazy(() => planFormats().questionFields);

/**
 * The question format (`format_version: "1.0"`): what the actor asks when a decision
 * is the user's (deleting files, changes beyond the plan, uncertainty), with options as buttons,
 * an optional default and, with `allow_custom`, a free-text answer. Lazy like {@link PlanSchema}.
 */
export const QuestionSchema = z.lazy(() => planFormats().question);
