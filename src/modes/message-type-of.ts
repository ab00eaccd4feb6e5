import type { MessageType } from "../contracts/message.js";
import { checkPlan, checkQuestion, parseJson } from "./parse-plan.js";
import { MAX_FORMAT_TEXT_CHARS } from "./plan-format.js";
import { findJsonObject } from "./plan-text.js";

/**
 * The rendering hint for an assistant message's text: `"plan"` when it is a valid plan
 * JSON, `"question"` when it is a valid question JSON, else `"text"`. The JSON is found as
 * {@link parsePlan} finds it: the whole text, one fenced block, or an object after prose
 * ("Plan: {...}"), so a JSON plan that `parsePlan` reads is typed `"plan"` here.
 * A hint only: it submits nothing (a plan reaches review only through `create_artifact`).
 * Markdown plans stay `"text"` here: prose that happens to hold a numbered list is not a plan.
 */
export function messageTypeOf(text: string): MessageType {
  if (text.length > MAX_FORMAT_TEXT_CHARS || !text.includes("{")) return "text";
  const json = findJsonObject(text);
  if (json === undefined) return "text";
  const parsed = parseJson(json.text);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) return "text";
  const value = parsed.value as Record<string, unknown>;
  if (value.type === "question" || (value.type === undefined && "question" in value && "options" in value)) {
    return checkQuestion(value).ok ? "question" : "text";
  }
  if (value.type === "plan" || (value.type === undefined && ("goal" in value || "steps" in value))) {
    return checkPlan(value).ok ? "plan" : "text";
  }
  return "text";
}

/**
 * The `messageType` of an assistant message the loop made: `"tool_call"` when it calls tools and
 * says nothing (no text, or only whitespace), else {@link messageTypeOf} of its text.
 * @internal
 */
export function assistantMessageType(text: string, callsTools: boolean): MessageType {
  return callsTools && text.trim() === "" ? "tool_call" : messageTypeOf(text);
}
