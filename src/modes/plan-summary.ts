import type { Plan, PlanSummary } from "../contracts/plan.js";

/** Longest step title in a {@link PlanSummary}, in characters. */
export const MAX_STEP_TITLE_CHARS = 80;

/** The shortest title kept when cutting at a word boundary (below it, the cut is mid-word). */
const MIN_WORD_CUT = 40;

/**
 * The task view of `plan` (see {@link PlanSummary} for the rule): step titles are the actions
 * shortened to one line of at most 80 characters, descriptions the full action and reason.
 */
export function planSummaryOf(plan: Plan): PlanSummary {
  return {
    goal_summary: plan.goal,
    steps: plan.steps.map((step) => ({
      title: stepTitle(step.action),
      description: step.reason === undefined || step.reason === "" ? step.action : `${step.action} — ${step.reason}`,
    })),
    ...(plan.completion_criteria !== undefined && { completion_criteria: plan.completion_criteria }),
  };
}

/** The first line of `action`, cut at a word boundary (or at the limit) with "…" when over 80 characters. */
export function stepTitle(action: string): string {
  const trimmed = action.trim();
  const newline = trimmed.indexOf("\n");
  const line = (newline === -1 ? trimmed : trimmed.slice(0, newline)).trim();
  if (line.length <= MAX_STEP_TITLE_CHARS) return line;
  const room = line.slice(0, MAX_STEP_TITLE_CHARS); // leaves one character for "…"
  const space = room.lastIndexOf(" ");
  const cut = space >= MIN_WORD_CUT ? room.slice(0, space) : room.slice(0, MAX_STEP_TITLE_CHARS - 1);
  return `${cut.replace(/[\s,;:.—–-]+$/u, "")}…`;
}
