import type { BudgetLimits } from "../../contracts/budget.js";
import type {
  CompactionOptions,
  CompactionResult,
  CompactionSource,
  CompactionSummarizeInput,
} from "../../contracts/compaction.js";
import type { ContextCompactedEvent, LoopEvent } from "../../contracts/loop-event.js";
import type { Message } from "../../contracts/message.js";
import type { CompactionRecord } from "../../contracts/session-store.js";
import { modelFreeNote } from "../../context/emergency-reset.js";
import { estimateMessageTokens } from "../../context/estimate-tokens.js";
import { DEFAULT_BUDGET } from "../../loop/budget.js";
import { compactionMessage, COMPACTION_NOTE_HEADING } from "../records/compaction-state.js";
import type { SessionState } from "../records/session-state.js";

/** A compaction's summary, and how it came to be. */
export interface WrittenSummary {
  summary: string;
  source: CompactionSource;
  /** Why the summary is the model-free note (set when `source` is `"fallback"`). */
  failure?: string;
  /** The summary call's usage (the agent's model wrote it, or tried to). */
  usage?: CompactionResult["usage"];
  /** Model calls made (0 or 1). */
  llmCalls: number;
  /** The turn (or the lease) was stopped while the summary was written. */
  aborted: boolean;
}

/** {@link CompactionOptions} with every default resolved. */
export interface CompactionSettings {
  triggerTokens: number;
  keepRecentTurns: number;
  summarize: ((input: CompactionSummarizeInput) => Promise<string>) | undefined;
  timeoutMs: number;
}

/** `keepRecentTurns` when not given. */
export const DEFAULT_KEEP_RECENT_TURNS = 2;
/** The most turns a compaction keeps verbatim (`keepRecentTurns` is checked against it). */
export const MAX_KEEP_RECENT_TURNS = 100;
/** `timeoutMs` when not given. */
export const DEFAULT_COMPACTION_TIMEOUT_MS = 120_000;
/** `triggerTokens` when not given, as a share of the agent's `maxHistoryTokens`. */
export const DEFAULT_TRIGGER_SHARE = 0.8;

/** The first line of the model-free note a compaction keeps when its summary could not be written. */
const FALLBACK_HEADING =
  "[Compacted: the earlier conversation was replaced by this automatic note, not written by a model (its summary could not be written).]";

/** The settings of a compaction of an agent with `budget` (the defaults when `options` is `false` or unset). */
export function compactionSettings(
  options: CompactionOptions | false | undefined,
  budget: Partial<BudgetLimits>,
): CompactionSettings {
  const given = options === false ? {} : (options ?? {});
  const maxHistory = budget.maxHistoryTokens ?? DEFAULT_BUDGET.maxHistoryTokens;
  return {
    triggerTokens: given.triggerTokens ?? Math.floor(maxHistory * DEFAULT_TRIGGER_SHARE),
    keepRecentTurns: given.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS,
    // Called as the host's method (its `this` is the options object).
    summarize: given.summarize === undefined ? undefined : (input) => given.summarize!(input),
    timeoutMs: given.timeoutMs ?? DEFAULT_COMPACTION_TIMEOUT_MS,
  };
}

/** What is wrong with the runtime's `compaction` option (for `createAgentRuntime`'s error). */
export function compactionProblems(value: unknown): string[] {
  if (value === undefined || value === false) return [];
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return ["compaction must be an object or false"];
  const options = value as Record<string, unknown>;
  const problems: string[] = [];
  const { triggerTokens, keepRecentTurns, summarize, timeoutMs } = options;
  if (triggerTokens !== undefined && !(typeof triggerTokens === "number" && triggerTokens > 0))
    problems.push("compaction.triggerTokens must be a number above 0");
  if (
    keepRecentTurns !== undefined &&
    !(Number.isInteger(keepRecentTurns) && (keepRecentTurns as number) >= 0 && (keepRecentTurns as number) <= 100)
  )
    problems.push(`compaction.keepRecentTurns must be a whole number from 0 to ${MAX_KEEP_RECENT_TURNS}`);
  if (summarize !== undefined && typeof summarize !== "function")
    problems.push("compaction.summarize must be a function");
  if (timeoutMs !== undefined && !(typeof timeoutMs === "number" && timeoutMs > 0))
    problems.push("compaction.timeoutMs must be a number above 0");
  return problems;
}

/** Where a compaction cuts a root history. */
export interface CompactionPlan {
  /** The messages before this index are summarized; the rest stay. */
  cut: number;
  /** The `seq` the kept messages start at (the kept turns' first start record); undefined when none are kept. */
  keptFromSeq: number | undefined;
}

/** What {@link planCompaction} takes. */
export interface PlanInput {
  history: readonly Message[];
  turnStarts: SessionState["turnStarts"];
  keepRecentTurns: number;
  triggerTokens: number;
  /** Estimated tokens of the context besides the history (system prompt, the turn's new message). */
  otherTokens: number;
  /** The last turn must stay whole (it waits on a decision, or never ended). */
  keepLastTurn: boolean;
}

/**
 * Where to cut `history`: before the latest `keepRecentTurns` turns (fewer while those, with the
 * rest of the context, take more than half of `triggerTokens`, so a compacted context has room to
 * grow before the next compaction; never fewer than the last when `keepLastTurn`). `undefined`
 * when nothing would be summarized but an earlier summary.
 */
export function planCompaction(input: PlanInput): CompactionPlan | undefined {
  const { history, turnStarts } = input;
  const floor = input.keepLastTurn && turnStarts.length > 0 ? 1 : 0;
  let kept = Math.max(floor, Math.min(input.keepRecentTurns, turnStarts.length));
  const tokensFrom = (index: number) => {
    let sum = 0;
    for (let i = index; i < history.length; i++) sum += estimateMessageTokens(history[i]!);
    return sum;
  };
  const room = input.triggerTokens / 2 - input.otherTokens;
  while (kept > floor && tokensFrom(turnStarts[turnStarts.length - kept]!.index) > room) kept--;
  const start = kept === 0 ? undefined : turnStarts[turnStarts.length - kept]!;
  const cut = start === undefined ? history.length : Math.min(start.index, history.length);
  if (cut === 0 || (cut === 1 && isCompactionNote(history[0]!))) return undefined;
  return { cut, keptFromSeq: start?.seq };
}

/** Whether `message` is the note of an earlier compaction (nothing new to summarize when it is all there is). */
function isCompactionNote(message: Message): boolean {
  return (
    message.role === "user" &&
    message.silent === true &&
    typeof message.content === "string" &&
    message.content.includes(COMPACTION_NOTE_HEADING)
  );
}

/** The model-free note that stands in for a summary that could not be written. */
export function fallbackSummary(messages: readonly Message[]): string {
  return modelFreeNote(messages, FALLBACK_HEADING);
}

/** What a compaction stores, says and leaves in the context. */
export interface Compaction {
  record: Omit<CompactionRecord, "seq" | "at">;
  /** A `warning` (code `compaction_failed`) when the summary fell back, then `context_compacted`. */
  events: LoopEvent[];
  /** The root history after it: the summary note, then the kept messages. */
  history: Message[];
  historyTokens: number;
  result: CompactionResult;
}

/** What {@link compactionOf} builds a compaction from. */
export interface CompactionInput {
  recordId: string;
  sessionId: string;
  history: readonly Message[];
  plan: CompactionPlan;
  written: WrittenSummary;
  trigger: ContextCompactedEvent["trigger"];
  /** Estimated tokens of the context besides the history (system prompt, the turn's new message). */
  otherTokens: number;
  historyTokens: number;
  runId?: string;
  instructions?: string;
}

/** The record, events, history and result of a compaction whose summary was written. */
export function compactionOf(input: CompactionInput): Compaction {
  const { history, plan, written } = input;
  const note = compactionMessage(written.summary);
  const kept = history.slice(plan.cut);
  let historyTokens = estimateMessageTokens(note);
  for (const message of kept) historyTokens += estimateMessageTokens(message);
  const tokensBefore = input.historyTokens + input.otherTokens;
  const tokensAfter = historyTokens + input.otherTokens;
  const record: Compaction["record"] = {
    id: input.recordId,
    frame: null,
    kind: "compaction",
    summary: written.summary,
    source: written.source,
    tokensBefore,
    tokensAfter,
    summarizedMessages: plan.cut,
  };
  if (plan.keptFromSeq !== undefined) record.keptFromSeq = plan.keptFromSeq;
  if (input.runId !== undefined) record.runId = input.runId;
  if (input.instructions !== undefined) record.instructions = input.instructions;
  const events: LoopEvent[] = [];
  if (written.failure !== undefined) events.push(failureWarning(written.failure));
  events.push({
    type: "context_compacted",
    sessionId: input.sessionId,
    trigger: input.trigger,
    source: written.source,
    summary: written.summary,
    tokensBefore,
    tokensAfter,
    summarizedMessages: plan.cut,
    recordId: input.recordId,
    depth: 0,
    parentId: null,
  });
  const result: CompactionResult = {
    compacted: true,
    summary: written.summary,
    source: written.source,
    tokensBefore,
    tokensAfter,
    summarizedMessages: plan.cut,
    recordId: input.recordId,
  };
  if (written.usage) result.usage = written.usage;
  return { record, events, history: [note, ...kept], historyTokens, result };
}

/** The warning of a compaction whose summary fell back to the model-free note. */
function failureWarning(failure: string): LoopEvent {
  return {
    type: "warning",
    code: "compaction_failed",
    message: `The compaction's summary could not be written (${failure}); a model-free note replaces the compacted turns.`,
    depth: 0,
    parentId: null,
  };
}
