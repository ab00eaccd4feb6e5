import type { LoopEvent, ToolLogLevel } from "../contracts/loop-event.js";

/**
 * Bounds of `ctx.log` (tool log lines): a line is cut to `lineChars` characters (ending in "…"),
 * and at most `linesPerCall` lines of one call become `tool_log` events; later ones are dropped.
 */
export const TOOL_LOG_LIMITS = { lineChars: 2_000, linesPerCall: 200 } as const;

const LEVELS: ReadonlySet<string> = new Set<ToolLogLevel>(["debug", "info", "warn", "error"]);

/** What one call's log needs: where its lines go and how many it wrote. */
export interface ToolLogTarget {
  toolCallId: string;
  name: string;
  depth: number;
  parentId: string | null;
  sink: { emit(event: LoopEvent): void };
  /** Lines written so far (dropped ones included). */
  lines: number;
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
