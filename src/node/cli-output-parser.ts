import { asRecord, type WireRecord } from "../internal/wire-guards.js";

/** What one piece of a CLI agent's output means. */
export type CliOutputEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** The CLI ran a tool by itself: counted in the finish event's `toolCallCount`. */
  | { type: "tool_use"; name?: string }
  /** Token usage the CLI reported; several reports in one run are summed. */
  | { type: "usage"; inputTokens: number; outputTokens: number; cachedInputTokens?: number }
  /** The CLI reported a failure in its output: the stream fails with this message. */
  | { type: "error"; message: string };

/**
 * Reads a CLI agent's stdout. `line()` gets each complete line (without its line end) in JSON-lines
 * mode, or each decoded chunk in text mode; `end()` runs after a successful exit. A parser is
 * created per run (it may keep state).
 */
export interface CliOutputParser {
  line(line: string): CliOutputEvent[];
  end?(): CliOutputEvent[];
}

/** Plain text: every stdout chunk is a `text_delta`. */
export function createTextOutputParser(): CliOutputParser {
  return { line: (text) => (text === "" ? [] : [{ type: "text_delta", text }]) };
}

/**
 * Generic JSON lines: a line's string `text`, `delta` or `content` field is a `text_delta`; other
 * lines (and lines that are not JSON, such as banners) are ignored. The presets use their CLI's own
 * event format instead.
 */
export function createJsonlOutputParser(): CliOutputParser {
  return {
    line(line) {
      const value = parseJsonLine(line);
      if (!value) return [];
      const text = [value.text, value.delta, value.content].find((field) => typeof field === "string");
      return typeof text === "string" && text !== "" ? [{ type: "text_delta", text }] : [];
    },
  };
}

/** A JSON object from one output line, or `undefined` for anything else. */
export function parseJsonLine(line: string): WireRecord | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    return asRecord(JSON.parse(trimmed));
  } catch {
    return undefined;
  }
}

/**
 * Joins the text of successive assistant messages with a blank line, so the narration of a
 * multi-step CLI run does not run words together. Call `text()` for each message's text (or
 * delta) and `nextMessage()` when a new message begins.
 */
export function createMessageJoiner() {
  let wrote = false;
  let pendingBreak = false;
  return {
    nextMessage(): void {
      if (wrote) pendingBreak = true;
    },
    text(text: string): CliOutputEvent[] {
      if (text === "") return [];
      const out = pendingBreak ? `\n\n${text}` : text;
      pendingBreak = false;
      wrote = true;
      return [{ type: "text_delta", text: out }];
    },
    get wroteText(): boolean {
      return wrote;
    },
  };
}
