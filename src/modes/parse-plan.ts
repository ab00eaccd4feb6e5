import { FORMAT_VERSION, MAX_FORMAT_TEXT_CHARS, MAX_PLAN_STEPS, planFormats } from "./plan-format.js";
import type { Plan, PlanStep, Question } from "../contracts/plan.js";

/** What {@link parsePlan} and {@link parseQuestion} return: the value, or an error the model can act on. */
export type FormatParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Reads a plan from what a model wrote: the plan JSON (bare, or in a ```json fence with prose
 * around it) or markdown (a goal line, then numbered steps; optional "Risks",
 * "Prerequisites" and "Completion criteria" lists). JSON may leave out `type` and
 * `format_version` (the planner's prompt template does); they are filled in. A different
 * `format_version` is an error.
 *
 * Never throws. On failure, `error` says what to fix, in words meant for the model: a plan that
 * does not parse goes back to it, and UIs never see a half-parsed plan.
 *
 * @example
 * const parsed = parsePlan("Goal: ship it\n\n1. Build\n2. Release");
 * if (parsed.ok) console.log(parsed.plan.steps.length); // 2
 */
export function parsePlan(content: string): { ok: true; plan: Plan } | { ok: false; error: string } {
  const parsed = parsePlanValue(content);
  return parsed.ok ? { ok: true, plan: parsed.value } : parsed;
}

function parsePlanValue(content: string): FormatParseResult<Plan> {
  if (typeof content !== "string" || content.trim() === "") return { ok: false, error: "The plan is empty. Write a goal and numbered steps." };
  if (content.length > MAX_FORMAT_TEXT_CHARS)
    return { ok: false, error: `The plan is too long (${content.length} characters; at most ${MAX_FORMAT_TEXT_CHARS}). Shorten it.` };
  const json = jsonCandidate(content);
  if (json !== undefined) {
    const value = parseJson(json);
    if (!value.ok)
      return {
        ok: false,
        error: `The plan is not valid JSON: ${value.error}. Fix the JSON, or write the plan as markdown (a "Goal:" line and numbered steps).`,
      };
    return checkPlan(value.value);
  }
  return parseMarkdownPlan(content);
}

/**
 * Reads a question (JSON, bare or fenced). `type` and `format_version` may be left out.
 * Never throws; on failure, `error` says what to fix.
 */
export function parseQuestion(content: string): FormatParseResult<Question> {
  if (typeof content !== "string" || content.length > MAX_FORMAT_TEXT_CHARS) return { ok: false, error: "The question is empty or too long." };
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
  return checked.success ? { ok: true, value: checked.data } : { ok: false, error: `Invalid question: ${zodProblems(checked.error)}` };
}

/** Validates a plan object (JSON the model gave), filling in `type` and `format_version`. */
export function checkPlan(value: unknown): FormatParseResult<Plan> {
  if (!isRecord(value)) return { ok: false, error: "The plan must be a JSON object with a goal and steps." };
  if (value.type !== undefined && value.type !== "plan") return { ok: false, error: `"type" must be "plan".` };
  const versioned = withVersion(value, "plan");
  if (!versioned.ok) return versioned;
  const checked = planFormats().plan.safeParse(versioned.value);
  return checked.success ? { ok: true, value: checked.data } : { ok: false, error: `Invalid plan: ${zodProblems(checked.error)}` };
}

function withVersion(value: Record<string, unknown>, type: "plan" | "question"): FormatParseResult<Record<string, unknown>> {
  const version = value.format_version;
  if (version !== undefined && version !== FORMAT_VERSION) {
    return { ok: false, error: `Unsupported format_version ${JSON.stringify(version)}: use "${FORMAT_VERSION}".` };
  }
  return { ok: true, value: { ...value, type, format_version: FORMAT_VERSION } };
}

/** The JSON text of a message: the whole text when it is an object, else the one fenced block holding one. */
export function jsonCandidate(content: string): string | undefined {
  const trimmed = content.trim();
  if (trimmed.startsWith("{")) return trimmed;
  const fences = [...trimmed.matchAll(/```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g)];
  const objects = fences.map((m) => m[1]!.trim()).filter((body) => body.startsWith("{"));
  return objects.length === 1 ? objects[0] : undefined;
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

const GOAL_LINE = /^(?:[-*]\s*)?(?:\*\*|__)?goal(?:\s+summary)?(?:\*\*|__)?\s*[:：]\s*(?:\*\*|__)?\s*(.+)$/i;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*$/;
const NUMBERED = /^(\d{1,3})[.)]\s+(.+)$/;
const STEP_HEADING = /^step\s+(\d{1,3})\s*[:.)-]?\s*(.*)$/i;
const BULLET = /^[-*+]\s+(.+)$/;

type Section = "none" | "goal" | "steps" | "risks" | "prerequisites" | "completion_criteria" | "other";

function sectionOf(title: string): Section {
  const t = title
    .toLowerCase()
    .replace(/[*_:`]/g, "")
    .trim();
  if (/^(goal|objective|summary|goal summary)$/.test(t)) return "goal";
  if (/^(steps|plan|implementation steps|execution steps|the plan)$/.test(t)) return "steps";
  if (/^risks?/.test(t)) return "risks";
  if (/^prerequisites?/.test(t)) return "prerequisites";
  if (/^(completion criteria|done when|acceptance criteria|definition of done)/.test(t)) return "completion_criteria";
  return "other";
}

const stripEmphasis = (text: string) => text.replace(/^(\*\*|__)(.+?)\1/, "$2").trim();

/** Splits "**Title** — description" / "Title: description" into action and reason. */
function stepOf(number: number, text: string): PlanStep {
  const bold = /^(\*\*|__)(.+?)\1\s*(?:[-—–:]\s*)?(.*)$/.exec(text);
  if (bold) {
    const reason = bold[3]!.trim();
    return reason === "" ? { step_number: number, action: bold[2]!.trim() } : { step_number: number, action: bold[2]!.trim(), reason };
  }
  const dash = /^(.{1,120}?)\s+[—–]\s+(.+)$/.exec(text);
  if (dash) return { step_number: number, action: dash[1]!.trim(), reason: dash[2]!.trim() };
  return { step_number: number, action: text.trim() };
}

/** A plan in markdown: a goal (a "Goal:" line, a "Goal" section or the title), numbered steps, optional lists. */
function parseMarkdownPlan(content: string): FormatParseResult<Plan> {
  let goal: string | undefined;
  let title: string | undefined;
  let section: Section = "none";
  const steps: { text: string; more: string[] }[] = [];
  const lists: Record<"risks" | "prerequisites" | "completion_criteria", string[]> = { risks: [], prerequisites: [], completion_criteria: [] };
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("```")) continue;
    const goalLine = GOAL_LINE.exec(line);
    if (goalLine && goal === undefined) {
      goal = stripEmphasis(goalLine[1]!.replace(/(\*\*|__)$/, ""));
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const text = heading[2]!.trim();
      const stepHeading = STEP_HEADING.exec(text);
      if (stepHeading) {
        steps.push({ text: stepHeading[2]! || `Step ${stepHeading[1]}`, more: [] });
        section = "steps";
        continue;
      }
      const kind = sectionOf(text);
      if (kind === "other" && title === undefined && heading[1] === "#") title = text.replace(/^plan\s*[:：-]\s*/i, "").trim();
      section = kind;
      continue;
    }
    const numbered = NUMBERED.exec(line);
    if (numbered && (section === "steps" || section === "none" || section === "other" || section === "goal") && raw.search(/\S/) < 2) {
      steps.push({ text: numbered[2]!, more: [] });
      section = "steps";
      continue;
    }
    const bullet = BULLET.exec(line);
    if (section === "risks" || section === "prerequisites" || section === "completion_criteria") {
      lists[section].push(stripEmphasis((bullet?.[1] ?? numbered?.[2] ?? line).trim()));
      continue;
    }
    if (section === "goal" && goal === undefined) {
      goal = stripEmphasis(line);
      continue;
    }
    if (section === "steps" && steps.length > 0) steps[steps.length - 1]!.more.push((bullet?.[1] ?? line).trim());
  }
  goal ??= title;
  if (goal === undefined || goal === "")
    return {
      ok: false,
      error: 'The plan has no goal. Start it with a line "Goal: <what this plan achieves>" (or write the plan as JSON with "goal" and "steps").',
    };
  if (steps.length === 0) return { ok: false, error: 'The plan has no steps. List them as a numbered list ("1. ...", "2. ...").' };
  if (steps.length > MAX_PLAN_STEPS) return { ok: false, error: `The plan has ${steps.length} steps; at most ${MAX_PLAN_STEPS}.` };
  const plan: Record<string, unknown> = {
    goal,
    steps: steps.map((step, index) => {
      const parsed = stepOf(index + 1, step.text);
      if (step.more.length > 0) parsed.reason = [parsed.reason, ...step.more].filter(Boolean).join(" ");
      return parsed;
    }),
  };
  for (const key of ["risks", "prerequisites", "completion_criteria"] as const) if (lists[key].length > 0) plan[key] = lists[key];
  return checkPlan(plan);
}
