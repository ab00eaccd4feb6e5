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
