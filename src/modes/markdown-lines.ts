import { charge, skipBlanks, type ScanMeter } from "./plan-text.js";

/**
 * Line shapes of a markdown plan, read by hand (linear, no backtracking regular expression):
 * headings, numbered items, bullets, "Label:" lines and "Step N:" lines. Each takes a trimmed line
 * and charges the characters it looks at to the meter.
 */

/** The section a label or heading opens. */
export type Section = "none" | "goal" | "steps" | "risks" | "prerequisites" | "completion_criteria" | "time" | "other";

const NAMES: Record<string, Section> = {
  goal: "goal",
  "goal summary": "goal",
  objective: "goal",
  summary: "goal",
  overview: "goal",
  steps: "steps",
  plan: "steps",
  "the plan": "steps",
  "implementation steps": "steps",
  "implementation plan": "steps",
  "execution steps": "steps",
  "action plan": "steps",
  approach: "steps",
  risk: "risks",
  risks: "risks",
  "potential risks": "risks",
  "known risks": "risks",
  prerequisite: "prerequisites",
  prerequisites: "prerequisites",
  "completion criteria": "completion_criteria",
  "done when": "completion_criteria",
  "acceptance criteria": "completion_criteria",
  "definition of done": "completion_criteria",
  "success criteria": "completion_criteria",
  "estimated total time": "time",
  "total time": "time",
  "estimated time": "time",
  "time estimate": "time",
};

/** Longest label name read ("Completion criteria" and the like are far shorter). */
const MAX_LABEL_CHARS = 40;

/**
 * The section a label or heading name opens: an exact known name; with `prefix`, also a name
 * that starts with "risk", "prerequisite" or "completion criteria" ("Risks and mitigations").
 */
export function sectionOfName(name: string, prefix: boolean): Section {
  const key = name.toLowerCase();
  const known = NAMES[key];
  if (known !== undefined) return known;
  if (!prefix) return "other";
  if (key.startsWith("risk")) return "risks";
  if (key.startsWith("prerequisite")) return "prerequisites";
  if (key.startsWith("completion criteria") || key.startsWith("acceptance criteria")) return "completion_criteria";
  return "other";
}

const isBlank = (code: number) => code === 32 || code === 9;
const isDigit = (code: number) => code >= 48 && code <= 57;
const isNameChar = (code: number) =>
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 32 ||
  code === 45 ||
  code === 39 ||
  code === 47 ||
  code === 38;
const isColon = (code: number) => code === 58 || code === 0xff1a;

/** `"**"` or `"__"` at `at`, else undefined. */
function emphasisAt(text: string, at: number): string | undefined {
  const pair = text.slice(at, at + 2);
  return pair === "**" || pair === "__" ? pair : undefined;
}

/** Drops a leading emphasised span's markers: `**Read** the code` → `Read the code`. */
export function stripEmphasis(text: string, meter?: ScanMeter): string {
  const marker = emphasisAt(text, 0);
  if (marker === undefined) return text.trim();
  const close = text.indexOf(marker, 2);
  charge(meter, close === -1 ? text.length : close);
  if (close <= 2) return text.trim();
  return (text.slice(2, close) + text.slice(close + 2)).trim();
}

/** Text wrapped whole in `**`/`__` without them. */
export function stripOuterEmphasis(text: string): string {
  const marker = emphasisAt(text, 0);
  return marker !== undefined && text.length > 4 && text.endsWith(marker) ? text.slice(2, -2).trim() : text;
}

/** Leading spaces and tabs of `line`. */
export function indentOf(line: string, meter?: ScanMeter): number {
  const indent = skipBlanks(line, 0, line.length);
  charge(meter, indent + 1);
  return indent;
}

/** A heading (`#` to `######`, a blank, text; a closing `#` run dropped): its level and text. */
export function headingOf(line: string, meter?: ScanMeter): { level: number; text: string } | undefined {
  let level = 0;
  while (level < line.length && level < 7 && line.charCodeAt(level) === 35) level++;
  if (level === 0 || level > 6 || !isBlank(line.charCodeAt(level))) return undefined;
  charge(meter, line.length);
  let text = line.slice(level).trim();
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 35) end--;
  if (end < text.length && (end === 0 || isBlank(text.charCodeAt(end - 1)))) text = text.slice(0, end).trimEnd();
  return { level, text: stripOuterEmphasis(text) };
}

/** A numbered item (`1.` or `1)`, one to three digits, then a blank): its text. */
export function numberedOf(line: string): string | undefined {
  let i = 0;
  while (i < line.length && i < 4 && isDigit(line.charCodeAt(i))) i++;
  if (i === 0 || i > 3) return undefined;
  const mark = line.charCodeAt(i);
  if ((mark !== 46 && mark !== 41) || !isBlank(line.charCodeAt(i + 1))) return undefined;
  const text = line.slice(i + 2).trim();
  return text === "" ? undefined : text;
}

/** A bullet (`-`, `*` or `+`, then a blank): its text. */
export function bulletOf(line: string): string | undefined {
  const mark = line.charCodeAt(0);
  if ((mark !== 45 && mark !== 42 && mark !== 43) || !isBlank(line.charCodeAt(1))) return undefined;
  const text = line.slice(2).trim();
  return text === "" ? undefined : text;
}

/** A label line: its name, what follows the label, and whether it was bare (no colon, no emphasis). */
export interface Label {
  name: string;
  rest: string;
  bare: boolean;
}

/**
 * A label: `Name:`, `**Name**`, `**Name:**`, `**Name**:`, `__Name:__`, each with optional text
 * after it, or a bare `Name` alone on the line. The name is at most 40 letters, spaces and
 * `-'/&`; with `bullet`, a leading `- ` or `* ` is allowed ("- Goal: ...").
 */
export function labelOf(line: string, bullet: boolean, meter?: ScanMeter): Label | undefined {
  let i = 0;
  const first = line.charCodeAt(0);
  if (bullet && (first === 45 || first === 42) && isBlank(line.charCodeAt(1))) i = skipBlanks(line, 1, line.length);
  const marker = emphasisAt(line, i);
  if (marker !== undefined) i += 2;
  const nameStart = i;
  while (i < line.length && i - nameStart <= MAX_LABEL_CHARS && isNameChar(line.charCodeAt(i))) i++;
  charge(meter, i + 1);
  if (i - nameStart > MAX_LABEL_CHARS) return undefined;
  const name = line.slice(nameStart, i).trim();
  if (name === "") return undefined;
  let closed = marker !== undefined && line.startsWith(marker, i);
  if (closed) i += 2;
  i = skipBlanks(line, i, line.length);
  const colon = isColon(line.charCodeAt(i));
  if (colon) i = skipBlanks(line, i + 1, line.length);
  if (marker !== undefined && !closed && line.startsWith(marker, i)) {
    closed = true;
    i += 2;
  }
  let rest = line.slice(i).trim();
  charge(meter, rest.length);
  if (marker !== undefined && !closed) {
    // "**Goal: ship it**": the emphasis wraps the whole line.
    if (!colon || !rest.endsWith(marker)) return undefined;
    rest = rest.slice(0, -2).trim();
    closed = true;
  }
  if (!colon && !closed && rest !== "") return undefined;
  return { name: name.replace(/\s+/g, " "), rest: stripEmphasis(rest, meter), bare: !colon && !closed };
}

/**
 * A step written as a label or heading text: `Step 2: text`, `**Step 2:** text`, `Step 2 - text`,
 * `**Step 2: text**`. Its text (`""` when the line names the step only).
 */
export function stepLabelOf(line: string, meter?: ScanMeter): string | undefined {
  let i = 0;
  const marker = emphasisAt(line, 0);
  if (marker !== undefined) i = 2;
  if (line.slice(i, i + 4).toLowerCase() !== "step" || !isBlank(line.charCodeAt(i + 4))) return undefined;
  i = skipBlanks(line, i + 4, line.length);
  const digits = i;
  while (i < line.length && i - digits < 4 && isDigit(line.charCodeAt(i))) i++;
  if (i === digits || i - digits > 3) return undefined;
  let closed = marker !== undefined && line.startsWith(marker, i);
  if (closed) i += 2;
  i = skipBlanks(line, i, line.length);
  // A separator (or nothing) after the number: "Step 2 needs a restart" is prose, not a step.
  const separated = i < line.length && ":.)-—–：".includes(line.charAt(i));
  if (separated) i = skipBlanks(line, i + 1, line.length);
  else if (i < line.length && !closed && !(marker !== undefined && line.startsWith(marker, i))) return undefined;
  if (marker !== undefined && !closed && line.startsWith(marker, i)) {
    closed = true;
    i += 2;
  }
  let rest = line.slice(i).trim();
  charge(meter, line.length);
  if (marker !== undefined && !closed && rest.endsWith(marker)) rest = rest.slice(0, -2).trim();
  return rest;
}
