import type { Message } from "./message.js";

/** Who wrote a compaction's summary. */
export type CompactionSource =
  /** The agent's own model, with the runtime's fixed summary prompt (the default). */
  | "model"
  /** The host's {@link CompactionOptions.summarize}. */
  | "host"
  /** The model-free note, because summarizing failed (a `warning` with code `compaction_failed` says why). */
  | "fallback";

/** What {@link CompactionOptions.summarize} is given. */
export interface CompactionSummarizeInput {
  /**
   * The root messages the summary replaces in the model's context, oldest first (an earlier
   * compaction's summary, a silent `<system_message>` from the runtime, comes first). Read-only.
   */
  messages: Message[];
  agentId: string;
  /** The session's scope (tenant), when it has one. */
  scope?: string;
  /** `runtime.compact`'s `instructions` (what to keep, what to stress). */
  instructions?: string;
  /** Aborted when the turn stops or the summary takes longer than `timeoutMs`: stop then. */
  signal: AbortSignal;
}

/**
 * Compaction: once a session's context grows past `triggerTokens`, its older turns are replaced in
 * the model's context by a summary; the log keeps every message (a `compaction` record marks where
 * the context now starts). See `AgentRuntimeOptions.compaction`.
 */
export interface CompactionOptions {
  /**
   * Estimated context size (the system prompt and the messages, as `estimateTokens` counts them)
   * at which a turn first compacts its session, before its first model call.
   * @default 80% of the agent's `budget.maxHistoryTokens` (102,400 with the default 128,000)
   */
  triggerTokens?: number;
  /**
   * Turns kept verbatim after the summary (a turn: a user message and what answered it). Fewer are
   * kept when those turns, with the system prompt and the new message, take more than half of
   * `triggerTokens` (so a compacted context has room to grow); the turn being answered, and a turn
   * waiting on a decision, always stay whole.
   * @default 2
   */
  keepRecentTurns?: number;
  /**
   * Writes the summary instead of the agent's model. Return the summary's text (at most
   * `COMPACTION_SUMMARY_MAX_CHARS` characters are kept). A summary that is empty, a throw, or no
   * answer within `timeoutMs` falls back to the model-free note, with a `warning`; the turn goes on.
   * @default undefined (one call to the agent's own provider and model, counted in the turn's budget)
   */
  summarize?(input: CompactionSummarizeInput): Promise<string>;
  /**
   * Longest wait for a summary, in ms (also bounded by what is left of the turn's `maxWallClockMs`).
   * @default 120_000
   */
  timeoutMs?: number;
}

/** What `runtime.compact` resolves to. */
export interface CompactionResult {
  /** False when there was nothing older than the turns kept (no record was stored). */
  compacted: boolean;
  /** The summary now at the start of the context (when compacted). */
  summary?: string;
  /** Who wrote it (when compacted). */
  source?: CompactionSource;
  /** Estimated context size before (the system prompt and the messages). */
  tokensBefore: number;
  /** Estimated context size after (the same as `tokensBefore` when nothing was compacted). */
  tokensAfter: number;
  /** Root messages the summary replaced in the context (0 when nothing was compacted). */
  summarizedMessages: number;
  /** The stored `compaction` record's id (when compacted). */
  recordId?: string;
  /** The summary call's usage, when the agent's model wrote it. */
  usage?: { inputTokens: number; outputTokens: number; costUsd?: number };
}
