/** A plan (JSON, `format_version: "1.0"`). */
export interface Plan {
  type: "plan";
  format_version: "1.0";
  goal: string;
  steps: PlanStep[];
  estimated_total_time?: string;
  risks?: string[];
  prerequisites?: string[];
  completion_criteria?: string[];
}

/** One step of a {@link Plan}. */
export interface PlanStep {
  step_number: number;
  action: string;
  reason?: string;
  tools_needed?: string[];
  estimated_time?: string;
}

/** A question (JSON, `format_version: "1.0"`). */
export interface Question {
  type: "question";
  format_version: "1.0";
  question: string;
  context?: string;
  severity: "critical" | "major" | "minor";
  options: QuestionOption[];
  default?: string;
  allow_custom?: boolean;
}

/** One answer a {@link Question} offers. */
export interface QuestionOption {
  label: string;
  value: string;
  description?: string;
}

/** What `answerQuestion` takes: one of the question's option values, or free text when it allows custom answers. */
export type QuestionAnswer = { value: string } | { text: string };

/**
 * A plan in a task view's shape (what `plan_ready` carries beside the plan), derived from the
 * same parse: `goal_summary` is the plan's goal; each step's `title` is its action shortened to
 * a line (at most 80 characters: the first line, cut at a word boundary with "…" when longer) and
 * its `description` is the full action, then " — " and the reason when the step has one;
 * `completion_criteria` is the plan's list, when it has one.
 */
export interface PlanSummary {
  goal_summary: string;
  steps: { title: string; description: string }[];
  completion_criteria?: string[];
}
