import { InvalidArgumentError } from "../../errors/errors.js";
import { FORMAT_VERSION } from "../../modes/plan-format.js";
import type { ApprovalRequest } from "../../contracts/loop-result.js";
import { argsOf } from "./mode-tools.js";
import type { Question, QuestionAnswer } from "../../contracts/plan.js";

/** Longest free-text answer (characters). */
export const MAX_ANSWER_CHARS = 10_000;

/** The question an `ask_user` approval request carries. */
export function questionOf(request: ApprovalRequest): Question {
  return {
    type: "question",
    format_version: FORMAT_VERSION,
    ...(argsOf(request.args) as Omit<Question, "type" | "format_version">),
  };
}

/**
 * The tool result an answer becomes (what the model reads): `{ answer: value, label }` for an
 * option, `{ answer: text, custom: true }` for free text. Throws `InvalidArgumentError` for a value
 * that is not an option's, or text when the question does not allow custom answers.
 */
export function answerResult(
  question: Question,
  answer: QuestionAnswer,
): { answer: string; label: string } | { answer: string; custom: true } {
  const given = answer as Partial<{ value: unknown; text: unknown }> | undefined;
  if (given && typeof given.value === "string" && given.text === undefined) {
    const option = question.options.find((o) => o.value === given.value);
    if (!option)
      throw new InvalidArgumentError(
        `answerQuestion: "${given.value}" is not an option (options: ${question.options.map((o) => o.value).join(", ") || "none"})`,
      );
    return { answer: option.value, label: option.label };
  }
  if (given && typeof given.text === "string" && given.value === undefined) {
    if (question.allow_custom !== true)
      throw new InvalidArgumentError("answerQuestion: this question takes one of its options' values, not free text");
    if (given.text.trim() === "" || given.text.length > MAX_ANSWER_CHARS)
      throw new InvalidArgumentError(
        `answerQuestion: text must be non-empty and at most ${MAX_ANSWER_CHARS} characters`,
      );
    return { answer: given.text, custom: true };
  }
  throw new InvalidArgumentError("answerQuestion: give { value } (an option's value) or { text } (free text)");
}
