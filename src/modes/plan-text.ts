/**
 * Hand-written scanners over model text for the plan and question parsers. Every function here
 * visits each character a bounded number of times (no backtracking regular expression ever sees
 * model text), so a parse costs time linear in the text's length whatever the model wrote.
 */

/**
 * Counts the characters the scanners visit, for tests that prove the parse linear by counting
 * work instead of timing it. Optional everywhere; costs nothing when absent.
 * Not part of the package API (no entry exports it).
 */
export interface ScanMeter {
  steps: number;
}

/** Adds `count` visited characters to `meter`, when there is one. */
export function charge(meter: ScanMeter | undefined, count: number): void {
  if (meter) meter.steps += count;
}

/** One line of a text: `[start, end)` without its line break (`\n`, or `\r\n`). */
export interface LineSpan {
  start: number;
  end: number;
}

/** Calls `visit` for each line of `text`, in order (a lone `\r` stays in the line). */
export function forEachLine(text: string, meter: ScanMeter | undefined, visit: (line: LineSpan) => void): void {
  let start = 0;
  while (start <= text.length) {
    let next = text.indexOf("\n", start);
    if (next === -1) next = text.length;
    charge(meter, next - start + 1);
    const end = next > start && text.charCodeAt(next - 1) === 13 ? next - 1 : next;
    visit({ start, end });
    start = next + 1;
  }
}

const isBlank = (code: number) => code === 32 || code === 9;
const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);

/** The first index in `[from, end)` that is not a space or tab (`end` when there is none). */
export function skipBlanks(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isBlank(text.charCodeAt(i))) i++;
  return i;
}

/** Whether `text` has three backticks at `at`. */
function isTicks(text: string, at: number, end: number): boolean {
  return (
    at + 3 <= end && text.charCodeAt(at) === 96 && text.charCodeAt(at + 1) === 96 && text.charCodeAt(at + 2) === 96
  );
}

/**
 * A fence opener: optional blanks, three backticks, an optional info word of letters, optional blanks, nothing else.
 */
function isFenceOpener(text: string, { start, end }: LineSpan): boolean {
  let i = skipBlanks(text, start, end);
  if (!isTicks(text, i, end)) return false;
  i += 3;
  while (i < end && isLetter(text.charCodeAt(i))) i++;
  return skipBlanks(text, i, end) === end;
}

/** A fence closer: optional blanks then three backticks (what follows them is ignored). */
function isFenceCloser(text: string, { start, end }: LineSpan): boolean {
  return isTicks(text, skipBlanks(text, start, end), end);
}

/** The bodies of the closed ```-fenced blocks of `text`, in order; an unclosed fence holds nothing. */
export function fencedBlocks(text: string, meter?: ScanMeter): string[] {
  const bodies: string[] = [];
  let open = false;
  let bodyStart = 0;
  let bodyEnd = -1;
  forEachLine(text, meter, (line) => {
    if (!open) {
      if (!isFenceOpener(text, line)) return;
      open = true;
      bodyEnd = -1;
    } else if (isFenceCloser(text, line)) {
      bodies.push(bodyEnd < 0 ? "" : text.slice(bodyStart, bodyEnd));
      open = false;
    } else {
      if (bodyEnd < 0) bodyStart = line.start;
      bodyEnd = line.end;
    }
  });
  return bodies;
}

/** Where the JSON object of a message was found. */
export type JsonSource = "whole" | "fence" | "prose";

/** The JSON text of a message and where it was found. */
export interface JsonCandidate {
  text: string;
  source: JsonSource;
}

/**
 * The JSON object text of a message: the whole (trimmed) text when it starts with `{`; else the
 * one fenced block that holds an object (two or more: none); else, for prose before an unfenced
 * object ("Plan: {...}", or a `{` opening a line), the text from that `{` to the last `}`.
 */
export function findJsonObject(content: string, meter?: ScanMeter): JsonCandidate | undefined {
  charge(meter, content.length);
  const trimmed = content.trim();
  if (trimmed.startsWith("{")) return { text: trimmed, source: "whole" };
  const objects: string[] = [];
  for (const body of fencedBlocks(trimmed, meter)) {
    charge(meter, body.length);
    const inner = body.trim();
    if (inner.startsWith("{")) objects.push(inner);
  }
  if (objects.length === 1) return { text: objects[0]!, source: "fence" };
  if (objects.length > 1) return undefined;
  const start = proseObjectStart(trimmed, meter);
  if (start === undefined) return undefined;
  const end = trimmed.lastIndexOf("}");
  charge(meter, trimmed.length - end);
  return end > start ? { text: trimmed.slice(start, end + 1), source: "prose" } : undefined;
}

/** The first `{` that opens a line (after blanks) or follows a colon (and blanks). */
function proseObjectStart(text: string, meter: ScanMeter | undefined): number | undefined {
  let lineStart = true;
  let afterColon = false;
  for (let i = 0; i < text.length; i++) {
    charge(meter, 1);
    const code = text.charCodeAt(i);
    if (code === 123 /* { */ && (lineStart || afterColon)) return i;
    if (code === 10) {
      lineStart = true;
      afterColon = false;
    } else if (!isBlank(code) && code !== 13) {
      lineStart = false;
      afterColon = code === 58 /* : */ || code === 0xff1a; /* ： */
    }
  }
  return undefined;
}
