import { FORMAT_VERSION, MAX_FORMAT_TEXT_CHARS, planFormats } from "./plan-format.js";
import type { Plan, Question } from "../contracts/plan.js";
import { readMarkdownPlan } from "./parse-markdown-plan.js";
import { charge, findJsonObject, type ScanMeter } from "./plan-text.js";

/** What {@link parsePlan} and {@link parseQuestion} return: the value, or an error the model can act on. */
export type FormatParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Reads a plan from what a model wrote: the plan JSON (bare, in a ```json fence with prose
 * around it, or after prose without a fence: "Plan: {...}") or markdown (a goal line, then
 * numbered steps; optional "Risks", "Prerequisites" and "Completion criteria" lists, as headings
 * or as label lines such as `Risks:` or `**Completion criteria:**`). JSON may leave out `type`
 * and `format_version` (the planner's prompt template does); they are filled in. A different
 * `format_version` is an error. Unknown JSON fields are dropped.
 *
 * Never throws, and costs time linear in the text's length (at most 200,000 characters). On
 * failure, `error` says what to fix, in words meant for the model: a plan that does not parse
 * goes back to it, and UIs never see a half-parsed plan.
 *
 * @example
 * const parsed = parsePlan("Goal: ship it\n\n1. Build\n2. Release");
 * if (parsed.ok) console.log(parsed.plan.steps.length); // 2
 */
export function parsePlan(content: string): { ok: true; plan: Plan } | { ok: false; error: string } {
  const parsed = readPlan(content);
  return parsed.ok ? { ok: true, plan: parsed.value } : parsed;
}

/**
 * {@link parsePlan}'s reading, with a meter counting the characters its scanners visit (tests
 * prove the cost linear with it).
 * @internal
 */
export function readPlan(content: string, meter?: ScanMeter): FormatParseResult<Plan> {
  if (typeof content !== "string" || content.trim() === "")
    return { ok: false, error: "The plan is empty. Write a goal and numbered steps." };
  if (content.length > MAX_FORMAT_TEXT_CHARS)
    return {
      ok: false,
      error: `The plan is too long (${content.length} characters; at most ${MAX_FORMAT_TEXT_CHARS}). Shorten it.`,
    };
  const json = findJsonObject(content, meter);
  // What to report when the markdown reading fails too: the JSON's own problem.
  let jsonProblem: FormatParseResult<Plan> | undefined;
  if (json !== undefined) {
    charge(meter, 2 * json.text.length);
    const value = parseJson(json.text);
    if (json.source === "whole" || (value.ok && looksLikePlan(value.value))) {
      return value.ok ? checkPlan(value.value) : { ok: false, error: notJson(value.error) };
    }
    // A markdown plan may hold other JSON (a config example in a fence, braces in prose).
    if (value.ok && json.source === "fence") jsonProblem = checkPlan(value.value);
    else if (!value.ok && (json.source === "fence" || opensLikeJson(json.text)))
      jsonProblem = { ok: false, error: notJson(value.error) };
  }
  const markdown = readMarkdownPlan(content, meter);
  if (!markdown.ok) return jsonProblem ?? markdown;
  charge(meter, content.length);
  return checkPlan(markdown.value);
}

const notJson = (error: string) =>
  `The plan is not valid JSON: ${error}. Fix the JSON, or write the plan as markdown (a "Goal:" line and numbered steps).`;

/** An object with a plan's keys (`goal` or `steps`, or `type: "plan"`). */
function looksLikePlan(value: unknown): boolean {
  return (
    isRecord(value) && (value.type === "plan" || (value.type === undefined && ("goal" in value || "steps" in value)))
  );
}

/** Whether `text` (from a `{`) opens like a JSON object: `{` then a quoted key (or `}`). */
function opensLikeJson(text: string): boolean {
  const next = text.slice(1, 64).trimStart().charAt(0);
  return next === '"' || next === "}";
}

/**
 * Reads a question (JSON, bare or fenced). `type` and `format_version` may be left out.
 * Never throws; on failure, `error` says what to fix.
 */
export function parseQuestion(content: string): FormatParseResult<Question> {
  if (typeof content !== "string" || content.length > MAX_FORMAT_TEXT_CHARS)
    return { ok: false, error: "The question is empty or too long." };
  const json = jsonCandidate(content);
  if (json === undefined) return { ok: false, error: "The question is not JSON." };
  const value = parseJson(json);
  if (!value.ok) return { ok: false, error: `The question is not valid JSON: ${value.error}` };
  return checkQuestion(value.value);
}

/** Validates a question object the model gave (e.g. `ask_user`'s arguments), filling in `type` and `format_version`. */
export function checkQuestion(value: unknown): FormatParseResult<Question> {
  if (!isRecord(value)) return { ok: false, error: "The question must be a JSON object." };
  if (value.type !== undefined && value.type !== "question") return { ok: false, error: `"type" must be "question".` };
  const versioned = withVersion(value, "question");
  if (!versioned.ok) return versioned;
  const checked = planFormats().question.safeParse(versioned.value);
  return checked.success
    ? { ok: true, value: checked.data }
    : { ok: false, error: `Invalid question: ${zodProblems(checked.error)}` };
}

/** Validates a plan object (JSON the model gave), filling in `type` and `format_version`. */
export function checkPlan(value: unknown): FormatParseResult<Plan> {
  if (!isRecord(value)) return { ok: false, error: "The plan must be a JSON object with a goal and steps." };
  if (value.type !== undefined && value.type !== "plan") return { ok: false, error: `"type" must be "plan".` };
  const versioned = withVersion(value, "plan");
  if (!versioned.ok) return versioned;
  const checked = planFormats().plan.safeParse(versioned.value);
  return checked.success
    ? { ok: true, value: checked.data }
    : { ok: false, error: `Invalid plan: ${zodProblems(checked.error)}` };
}

function withVersion(
  value: Record<string, unknown>,
  type: "plan" | "question",
): FormatParseResult<Record<string, unknown>> {
  const version = value.format_version;
  if (version !== undefined && version !== FORMAT_VERSION) {
    return { ok: false, error: `Unsupported format_version ${JSON.stringify(version)}: use "${FORMAT_VERSION}".` };
  }
  return { ok: true, value: { ...value, type, format_version: FORMAT_VERSION } };
}

/** The JSON text of a message (see {@link findJsonObject}): whole, one fenced block, or after prose. */
export function jsonCandidate(content: string, meter?: ScanMeter): string | undefined {
  return findJsonObject(content, meter)?.text;
}

export function parseJson(text: string): FormatParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function zodProblems(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}
