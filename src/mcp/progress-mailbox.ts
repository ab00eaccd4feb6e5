/**
 * Bounds of what one MCP tool call reports as `tool_progress`: at most `valuesPerCall` values (later
 * ones are dropped, the call goes on), each message cut to `messageChars` characters. Values that
 * arrive faster than the turn takes them are coalesced: only the latest waits.
 */
export const MCP_PROGRESS_LIMITS = { valuesPerCall: 500, messageChars: 1_000 } as const;

/**
 * What an MCP tool's `execute` yields while a call runs (each one a `tool_progress` event): a
 * `notifications/progress` of the call (`progress`, `total`, `message`), or, for a task-based
 * call, the task's status (`taskStatus`, with its `statusMessage` as `message`). Bounded: see
 * `MCP_PROGRESS_LIMITS` (500 values a call, 1,000 characters a message, the latest kept when they come fast).
 */
export interface McpProgress {
  progress?: number;
  total?: number;
  message?: string;
  /** A task-based call: the task's status, e.g. `"working"` or `"input_required"`. */
  taskStatus?: string;
}

/** Longest task status kept (the protocol's are short words). */
const MAX_STATUS_CHARS = 32;

/** The progress of one call, handed from the server's notifications to the tool's generator. */
export interface ProgressMailbox {
  /** A notification's params (untrusted); ignored when not usable or past the limit. */
  push(raw: unknown): void;
  /** The next value: at once when one waits, else when one arrives. */
  next(): Promise<McpProgress>;
}

/** A mailbox holding at most one value, the latest. */
export function createProgressMailbox(): ProgressMailbox {
  let latest: McpProgress | undefined;
  let waiting: ((value: McpProgress) => void) | undefined;
  let delivered = 0;
  return {
    push(raw) {
      if (delivered >= MCP_PROGRESS_LIMITS.valuesPerCall) return;
      const value = progressOf(raw);
      if (value === undefined) return;
      if (waiting === undefined) {
        latest = value;
        return;
      }
      const deliver = waiting;
      waiting = undefined;
      delivered++;
      deliver(value);
    },
    next() {
      if (latest !== undefined) {
        const value = latest;
        latest = undefined;
        delivered++;
        return Promise.resolve(value);
      }
      return new Promise((resolve) => (waiting = resolve));
    },
  };
}

/** The usable fields of a progress notification or task status, copied and bounded; undefined when none. */
function progressOf(raw: unknown): McpProgress | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const { progress, total, message, taskStatus } = raw as Record<string, unknown>;
  const out: McpProgress = {};
  if (typeof progress === "number" && Number.isFinite(progress)) out.progress = progress;
  if (typeof total === "number" && Number.isFinite(total)) out.total = total;
  if (typeof message === "string" && message !== "") out.message = ownCopy(message, MCP_PROGRESS_LIMITS.messageChars);
  if (typeof taskStatus === "string" && taskStatus !== "") out.taskStatus = ownCopy(taskStatus, MAX_STATUS_CHARS);
  return Object.keys(out).length === 0 ? undefined : out;
}

/** At most `max` characters of `text` as a string of its own (a slice would keep a huge original alive). */
function ownCopy(text: string, max: number): string {
  const kept = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.parse(JSON.stringify(kept)) as string;
}
