import type { MessageType } from "../contracts/message.js";
import { checkPlan, checkQuestion, jsonCandidate, parseJson } from "./parse-plan.js";
import { MAX_FORMAT_TEXT_CHARS } from "./plan-format.js";

/**
 * The rendering hint for an assistant message's text: `"plan"` when it is a valid plan
 * JSON, `"question"` when it is a valid question JSON (bare, or one fenced block), else `"text"`.
 * A hint only: it submits nothing (a plan reaches review only through `create_artifact`).
 * Markdown plans stay `"text"` here: prose that happens to hold a numbered list is not a plan.
 */
export function messageTypeOf(text: string): MessageType {
  if (text.length > MAX_FORMAT_TEXT_CHARS || !text.includes("{")) return "text";
  const json = jsonCandidate(text);
  if (json === undefined) return "text";
  const parsed = parseJson(json);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) return "text";
  const value = parsed.value as Record<string, unknown>;
  if (value.type === "question" || (value.type === undefined && "question" in value && "options" in value)) {
    return checkQuestion(value).ok ? "question" : "text";
  }
  if (value.type === "plan" || (value.type === undefined && "goal" in value && "steps" in value)) {
    return checkPlan(value).ok ? "plan" : "text";
  }
  return "text";
}
