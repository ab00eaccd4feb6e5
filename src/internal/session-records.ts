import { InvalidArgumentError } from "../errors/errors.js";
import type { HistoryRecord, LoadOptions, NewRecord } from "../contracts/session-store.js";
import type { LoopStatus } from "../contracts/loop-result.js";
import { hasLoneSurrogate, LONE_SURROGATE_PROBLEM } from "./lone-surrogate.js";

const KINDS: readonly string[] = ["message", "reset", "compaction", "turn", "approval"];
const COMPACTION_SOURCES: readonly string[] = ["model", "host", "fallback"];
const isCount = (value: unknown): boolean => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const FURTHER_KIND = /^[a-z][a-z0-9_.-]{0,63}$/;
const ROLES: readonly string[] = ["user", "assistant", "tool"];
/** Every `LoopStatus` (the record says which; a status missing here is a compile error). */
const STATUS_SET: Record<LoopStatus, true> = {
  complete: true,
  budget_exceeded: true,
  iteration_limit: true,
  aborted: true,
  error: true,
  suspended: true,
  blocked: true,
};
const STATUSES: readonly string[] = Object.keys(STATUS_SET);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string";

function recordProblems(record: unknown, at: string, problems: string[]): void {
  if (!isObject(record)) return void problems.push(`${at}: must be an object`);
  if (typeof record.id !== "string" || record.id === "") problems.push(`${at}.id: must be a non-empty string`);
  if (record.frame !== null && (typeof record.frame !== "string" || record.frame === "")) {
    problems.push(`${at}.frame: must be null (root) or a non-empty string`);
  }
  // Stores keep these in text columns (and index them); the record's JSON keeps any other text exactly.
  const request = isObject(record.request) ? record.request : {};
  for (const [key, value] of [
    ["id", record.id],
    ["frame", record.frame],
    ["request.requestId", request.requestId],
  ] as const)
    if (typeof value === "string" && hasLoneSurrogate(value)) problems.push(`${at}.${key}: ${LONE_SURROGATE_PROBLEM}`);
  switch (record.kind) {
    case "message": {
      const message = record.message;
      if (!isObject(message) || !ROLES.includes(message.role as string)) {
        problems.push(`${at}.message: must be a message with role user, assistant or tool`);
      } else if (!Array.isArray(message.content) && !(message.role === "user" && typeof message.content === "string")) {
        problems.push(`${at}.message.content: must be an array (or a string for a user message)`);
      }
      break;
    }
    case "reset":
      if (!isOptionalString(record.summary)) problems.push(`${at}.summary: must be a string when set`);
      break;
    case "compaction":
      compactionProblems(record, at, problems);
      break;
    case "turn":
      if (typeof record.runId !== "string" || record.runId === "")
        problems.push(`${at}.runId: must be a non-empty string`);
      if (record.phase !== "start" && record.phase !== "end") problems.push(`${at}.phase: must be "start" or "end"`);
      if (record.status !== undefined && !STATUSES.includes(record.status as string)) {
        problems.push(`${at}.status: must be one of ${STATUSES.join(", ")}`);
      }
      break;
    case "approval":
      if (!isObject(record.request) || typeof record.request.requestId !== "string") {
        problems.push(`${at}.request: must be an approval request with a string requestId`);
      }
      if (record.decision !== undefined && record.decision !== "approved" && record.decision !== "denied") {
        problems.push(`${at}.decision: must be "approved" or "denied" when set`);
      }
      if (!isOptionalString(record.reason)) problems.push(`${at}.reason: must be a string when set`);
      if (!isOptionalString(record.runId)) problems.push(`${at}.runId: must be a string when set`);
      break;
    default:
      // Further kinds (tool results, roles, artifacts, ...) are kept as JSON; the name must be sane.
      if (typeof record.kind !== "string" || !FURTHER_KIND.test(record.kind)) {
        problems.push(
          `${at}.kind: must be one of ${KINDS.join(", ")}, or another kind name (1-64 of a-z 0-9 _ . -, starting with a letter)`,
        );
      }
  }
}

/** What is wrong with a `compaction` record (a reader relies on each of these fields). */
function compactionProblems(record: Record<string, unknown>, at: string, problems: string[]): void {
  if (typeof record.summary !== "string" || record.summary === "")
    problems.push(`${at}.summary: must be a non-empty string`);
  if (record.keptFromSeq !== undefined && !(isCount(record.keptFromSeq) && (record.keptFromSeq as number) > 0))
    problems.push(`${at}.keptFromSeq: must be a whole number above 0 when set`);
  if (!COMPACTION_SOURCES.includes(record.source as string))
    problems.push(`${at}.source: must be one of ${COMPACTION_SOURCES.join(", ")}`);
  for (const key of ["tokensBefore", "tokensAfter", "summarizedMessages"] as const)
    if (!isCount(record[key])) problems.push(`${at}.${key}: must be a whole number, 0 or more`);
  if (record.frame !== null) problems.push(`${at}.frame: must be null (a compaction is of the root conversation)`);
  if (!isOptionalString(record.runId)) problems.push(`${at}.runId: must be a string when set`);
  if (!isOptionalString(record.instructions)) problems.push(`${at}.instructions: must be a string when set`);
}

/**
 * Checks a batch before anything is written, so a store can stay all-or-nothing.
 * Throws an {@link InvalidArgumentError} naming every problem found.
 */
export function checkNewRecords(records: unknown): asserts records is NewRecord[] {
  if (!Array.isArray(records)) throw new InvalidArgumentError("append: records must be an array");
  const problems: string[] = [];
  records.forEach((record, index) => recordProblems(record, `records[${index}]`, problems));
  if (problems.length > 0) {
    throw new InvalidArgumentError(
      `append: invalid records (nothing was stored):\n${problems.map((p) => `  - ${p}`).join("\n")}`,
    );
  }
}

/** The stored form of a new record: `seq` and `at` set by the store (any given by the caller are replaced). */
export function stampRecord(record: NewRecord, seq: number, at: string): HistoryRecord {
  const { id, frame, seq: _seq, at: _at, ...rest } = record as NewRecord & { seq?: unknown; at?: unknown };
  return { id, seq, at, frame, ...rest };
}

/** Throws an {@link InvalidArgumentError} when load options are malformed. */
export function checkLoadOptions(options: LoadOptions): void {
  const { afterSeq, frame, sinceLastReset } = options;
  const problems: string[] = [];
  if (afterSeq !== undefined && (typeof afterSeq !== "number" || Number.isNaN(afterSeq)))
    problems.push("afterSeq: must be a number");
  if (frame !== undefined && frame !== null && typeof frame !== "string")
    problems.push("frame: must be null, a string or omitted");
  if (sinceLastReset !== undefined && typeof sinceLastReset !== "boolean")
    problems.push("sinceLastReset: must be a boolean");
  if (problems.length > 0) throw new InvalidArgumentError(`load: ${problems.join("; ")}`);
}

/**
 * Applies {@link LoadOptions} to records sorted by `seq`. `sinceLastReset` uses the last reset
 * marker among the records of the requested frame (every frame when `frame` is omitted); the
 * marker itself is excluded. Returns the selected records themselves (no copies).
 */
export function selectRecords(records: readonly HistoryRecord[], options: LoadOptions = {}): HistoryRecord[] {
  const { frame } = options;
  const inFrame = (record: HistoryRecord): boolean => frame === undefined || record.frame === frame;
  let after = options.afterSeq ?? 0;
  if (options.sinceLastReset) {
    for (let index = records.length - 1; index >= 0 && records[index]!.seq > after; index--) {
      const record = records[index]!;
      if (record.kind === "reset" && inFrame(record)) {
        after = record.seq;
        break;
      }
    }
  }
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (records[middle]!.seq <= after) low = middle + 1;
    else high = middle;
  }
  const selected: HistoryRecord[] = [];
  for (let index = low; index < records.length; index++) {
    if (inFrame(records[index]!)) selected.push(records[index]!);
  }
  return selected;
}
