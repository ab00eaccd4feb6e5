import type { LoopEvent, ToolLogLevel } from "../contracts/loop-event.js";

/**
 * Bounds of `ctx.log` (tool log lines): a line is cut to `lineChars` characters (ending in "…"),
 * and at most `linesPerCall` lines of one call become `tool_log` events; later ones are dropped.
 */
export const TOOL_LOG_LIMITS = { lineChars: 2_000, linesPerCall: 200 } as const;

const LEVELS: ReadonlySet<string> = new Set<ToolLogLevel>(["debug", "info", "warn", "error"]);

/**
 * Bounds of preliminary results (`tool_progress`, the values an `async function*` tool yields): a
 * value whose JSON is longer than `valueChars` characters is sent as the start of that JSON (a
 * string ending in "…"); a call whose tool yields more than `eventsPerCall` values is ended with
 * an error result (its generator is closed), so a tool that never stops yielding cannot hold a turn.
 */
export const TOOL_PROGRESS_LIMITS = { valueChars: 20_000, eventsPerCall: 1_000 } as const;

/** What one call's log needs: where its lines go and how many it wrote. */
export interface ToolLogTarget {
  toolCallId: string;
  name: string;
  depth: number;
  parentId: string | null;
  sink: { emit(event: LoopEvent): void };
  /** Lines written so far (dropped ones included). */
  lines: number;
  /** Preliminary results reported so far (dropped ones included). */
  progress: number;
}

/**
 * Emits one `tool_log` line of a running call, bounded by {@link TOOL_LOG_LIMITS}. A message that
 * is not a string is written as its `String()` (a value that cannot even be read so is dropped).
 */
export function writeToolLog(target: ToolLogTarget, level: unknown, message: unknown): void {
  if (++target.lines > TOOL_LOG_LIMITS.linesPerCall) return;
  let text: string;
  try {
    text = typeof message === "string" ? message : String(message);
  } catch {
    return;
  }
  if (text.length > TOOL_LOG_LIMITS.lineChars) text = `${text.slice(0, TOOL_LOG_LIMITS.lineChars - 1)}…`;
  const { toolCallId, name, depth, parentId } = target;
  const known = typeof level === "string" && LEVELS.has(level);
  target.sink.emit({
    type: "tool_log",
    toolCallId,
    name,
    level: known ? (level as ToolLogLevel) : "info",
    message: text,
    depth,
    parentId,
  });
}

/**
 * Emits one `tool_progress` event of a running call: a plain JSON copy of `value`, bounded by
 * {@link TOOL_PROGRESS_LIMITS}. A value that is not JSON is sent as its `String()`; one that cannot
 * even be read is dropped.
 */
export function writeToolProgress(target: ToolLogTarget, value: unknown): void {
  let progress: unknown;
  try {
    const json = value === undefined ? undefined : JSON.stringify(value);
    const text = json ?? String(value);
    if (text.length > TOOL_PROGRESS_LIMITS.valueChars)
      progress = `${text.slice(0, TOOL_PROGRESS_LIMITS.valueChars - 1)}…`;
    else progress = json === undefined ? text : (JSON.parse(json) as unknown);
  } catch {
    return;
  }
  const { toolCallId, name, depth, parentId } = target;
  target.sink.emit({ type: "tool_progress", toolCallId, name, progress, depth, parentId });
}
