import type { PlanStep } from "../contracts/plan.js";
import {
  bulletOf,
  headingOf,
  indentOf,
  labelOf,
  numberedOf,
  sectionOfName,
  stepLabelOf,
  stripEmphasis,
  type Section,
} from "./markdown-lines.js";
import { MAX_PLAN_STEPS } from "./plan-format.js";
import { charge, forEachLine, type ScanMeter } from "./plan-text.js";

type ListSection = "risks" | "prerequisites" | "completion_criteria";
type MarkdownResult = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

/** A line of a step beyond its first: a sub-item (joined with "; ") or wrapped text (joined with " "). */
interface More {
  text: string;
  item: boolean;
}

/** What the reader collected so far. */
interface Reading {
  goal: string | undefined;
  title: string | undefined;
  time: string | undefined;
  section: Section;
  /** The line before was blank. */
  afterBlank: boolean;
  /** A list was opened by a label or heading alone and has had no line yet. */
  listFresh: boolean;
  steps: { text: string; more: More[] }[];
  /** Steps beyond the most a plan may have: counted, not kept (the plan is refused). */
  extraSteps: number;
  lists: Record<ListSection, string[]>;
}

const isList = (section: Section): section is ListSection =>
  section === "risks" || section === "prerequisites" || section === "completion_criteria";
const takesSteps = (section: Section) =>
  section === "steps" || section === "none" || section === "other" || section === "goal";
/** Items that say there is nothing to list ("Prerequisites: None"). */
const NOTHING = new Set([
  "none",
  "none.",
  "n/a",
  "nothing",
  "nothing.",
  "no risks",
  "none identified",
  "none identified.",
]);

/**
 * Reads a plan written in markdown: a goal (a "Goal:" line, a "Goal" section or heading, else
 * the title: the first `#` heading or a "Plan: ..." label), then numbered steps (`1.`/`1)` at the
 * start of a line, `Step 1:` lines or `### Step 1` headings), then optional lists opened by a
 * heading or a label line (`Risks:`, `**Prerequisites**`, `**Completion criteria:**`, ...) and an
 * "Estimated total time:" line. A step's sub-bullets and indented lines become its reason; an
 * unindented paragraph after a blank line ends the steps or a list (closing prose).
 *
 * Returns the plan's fields (to be checked against the plan schema), or what is missing.
 */
export function readMarkdownPlan(content: string, meter?: ScanMeter): MarkdownResult {
  const reading: Reading = {
    goal: undefined,
    title: undefined,
    time: undefined,
    section: "none",
    afterBlank: false,
    listFresh: false,
    steps: [],
    extraSteps: 0,
    lists: { risks: [], prerequisites: [], completion_criteria: [] },
  };
  forEachLine(content, meter, ({ start, end }) => {
    const raw = content.slice(start, end);
    const line = raw.trim();
    charge(meter, raw.length);
    if (line === "") {
      reading.afterBlank = true;
      return;
    }
    if (!line.startsWith("```")) readLine(reading, line, indentOf(raw, meter), meter);
    reading.afterBlank = false;
  });
  return planOf(reading, meter);
}

/** Takes one non-blank line. */
function readLine(reading: Reading, line: string, indent: number, meter: ScanMeter | undefined): void {
  const top = indent < 2;
  const goalLabel = reading.goal === undefined ? labelOf(line, true, meter) : undefined;
  if (goalLabel && !goalLabel.bare && goalLabel.rest !== "" && sectionOfName(goalLabel.name, false) === "goal") {
    reading.goal = goalLabel.rest;
    return;
  }
  const heading = headingOf(line, meter);
  if (heading) return readHeading(reading, heading.level, heading.text, meter);
  if (top && takesSteps(reading.section)) {
    const step = stepLabelOf(line, meter) ?? numberedOf(line);
    if (step !== undefined) return addStep(reading, step, reading.steps.length + 1);
  }
  if (top) {
    const label = labelOf(line, false, meter);
    const section = label ? sectionOfName(label.name, !label.bare) : "other";
    if (label && section !== "other") return enter(reading, section, label.name, label.rest);
  }
  if (isList(reading.section)) return readListLine(reading, reading.section, line, top);
  if (reading.section === "goal" && reading.goal === undefined) {
    reading.goal = stripEmphasis(line, meter);
    return;
  }
  if (reading.section === "steps" && reading.steps.length > 0 && reading.extraSteps === 0)
    readStepLine(reading, line, top);
}

function readHeading(reading: Reading, level: number, text: string, meter: ScanMeter | undefined): void {
  const step = stepLabelOf(text, meter);
  if (step !== undefined) return addStep(reading, step, reading.steps.length + 1);
  const label = labelOf(text, false, meter);
  const section = label ? sectionOfName(label.name, true) : "other";
  if (label && section !== "other") return enter(reading, section, label.name, label.rest);
  if (level === 1) reading.title ??= text;
  reading.section = "other";
}

/** A label or heading opened `section`; `rest` is what followed it on the line. */
function enter(reading: Reading, section: Section, name: string, rest: string): void {
  if (section === "goal") {
    if (rest === "") reading.section = "goal";
    else reading.goal ??= rest;
    return;
  }
  reading.section = section === "time" ? "other" : section;
  reading.listFresh = isList(section) && rest === "";
  if (section === "time" && rest !== "") reading.time ??= rest;
  if (section === "steps" && rest !== "" && name.toLowerCase() === "plan") reading.title ??= rest;
  if (isList(section) && rest !== "" && !NOTHING.has(rest.toLowerCase())) reading.lists[section].push(rest);
}

function addStep(reading: Reading, text: string, number: number): void {
  reading.section = "steps";
  if (reading.steps.length === MAX_PLAN_STEPS) reading.extraSteps++;
  else reading.steps.push({ text: text || `Step ${number}`, more: [] });
}

/** A line under a step: its sub-items and indented lines belong to it; closing prose ends the steps. */
function readStepLine(reading: Reading, line: string, top: boolean): void {
  const item = bulletOf(line) ?? (top ? undefined : numberedOf(line));
  if (top && item === undefined && reading.afterBlank) {
    reading.section = "other";
    return;
  }
  reading.steps[reading.steps.length - 1]!.more.push(
    item === undefined ? { text: line, item: false } : { text: item, item: true },
  );
}

function readListLine(reading: Reading, section: ListSection, line: string, top: boolean): void {
  const items = reading.lists[section];
  const fresh = reading.listFresh;
  reading.listFresh = false;
  const item = bulletOf(line) ?? numberedOf(line);
  if (top && item !== undefined) {
    if (!NOTHING.has(item.toLowerCase())) items.push(stripEmphasis(item));
    return;
  }
  if (!top && items.length > 0) {
    items[items.length - 1] += item === undefined ? ` ${line}` : `; ${item}`;
    return;
  }
  if (reading.afterBlank && !fresh) {
    reading.section = "other";
    return;
  }
  if (!NOTHING.has(line.toLowerCase())) items.push(stripEmphasis(line));
}

function planOf(reading: Reading, meter: ScanMeter | undefined): MarkdownResult {
  const goal = reading.goal ?? reading.title;
  if (goal === undefined || goal === "")
    return {
      ok: false,
      error:
        'The plan has no goal. Start it with a line "Goal: <what this plan achieves>" (or write the plan as JSON with "goal" and "steps").',
    };
  const { steps, lists } = reading;
  if (steps.length === 0)
    return { ok: false, error: 'The plan has no steps. List them as a numbered list ("1. ...", "2. ...").' };
  if (reading.extraSteps > 0)
    return { ok: false, error: `The plan has ${steps.length + reading.extraSteps} steps; at most ${MAX_PLAN_STEPS}.` };
  const plan: Record<string, unknown> = {
    goal,
    steps: steps.map((step, index) => {
      const parsed = stepOf(index + 1, step.text, meter);
      const reason = joinMore(parsed.reason, step.more);
      return reason === undefined ? parsed : { ...parsed, reason };
    }),
  };
  if (reading.time !== undefined) plan.estimated_total_time = reading.time;
  for (const key of ["risks", "prerequisites", "completion_criteria"] as const)
    if (lists[key].length > 0) plan[key] = lists[key];
  return { ok: true, value: plan };
}

function joinMore(reason: string | undefined, more: More[]): string | undefined {
  let joined = reason;
  for (const { text, item } of more) joined = joined === undefined ? text : `${joined}${item ? "; " : " "}${text}`;
  return joined;
}

/** Longest action split off before a dash ("Read the code — to learn X"). */
const MAX_DASHED_ACTION = 120;

/** A step's action and reason: "**Action** — reason", "**Action:** reason", "Action — reason", else all action. */
export function stepOf(number: number, text: string, meter?: ScanMeter): PlanStep {
  const marker = text.startsWith("**") ? "**" : text.startsWith("__") ? "__" : undefined;
  const close = marker === undefined ? -1 : text.indexOf(marker, 2);
  charge(meter, close === -1 ? Math.min(text.length, MAX_DASHED_ACTION + 2) : close);
  if (close > 2) {
    let action = text.slice(2, close).trim();
    if (action.endsWith(":") || action.endsWith("：")) action = action.slice(0, -1).trimEnd();
    let at = close + 2;
    while (at < text.length && " \t-—–:：".includes(text.charAt(at))) at++;
    const reason = text.slice(at).trim();
    if (action !== "") return reason === "" ? { step_number: number, action } : { step_number: number, action, reason };
  }
  for (let i = 1; i < Math.min(text.length - 2, MAX_DASHED_ACTION + 1); i++) {
    const code = text.charCodeAt(i);
    if ((code === 0x2014 || code === 0x2013) && text.charAt(i - 1) === " " && text.charAt(i + 1) === " ") {
      const reason = text.slice(i + 2).trim();
      if (reason !== "") return { step_number: number, action: text.slice(0, i).trim(), reason };
    }
  }
  return { step_number: number, action: text.trim() };
}
