import { InvalidArgumentError } from "../errors/errors.js";
import type { Message } from "../contracts/message.js";
import { estimateMessageTokens, estimateSystemTokens } from "./estimate-tokens.js";

/** Options of {@link pruneHistory}. */
export interface PruneHistoryOptions {
  /**
   * Token budget of the whole request context, system prompt included: usually the loop's
   * `BudgetLimits.maxHistoryTokens` (128,000 by default). `Infinity` never prunes.
   */
  maxTokens: number;
  /** The system prompt: counted against the budget, never removed. @default undefined (nothing counted) */
  system?: string;
  /** Tokens kept free, e.g. for the reply: the context must fit `maxTokens - reserveTokens`. @default 0 */
  reserveTokens?: number;
}

/** What {@link pruneHistory} kept and dropped. Plain JSON. */
export interface PruneHistoryResult {
  /**
   * The messages to send, in their original order. The input array itself (same reference) when
   * nothing was dropped: treat it as read-only.
   */
  messages: Message[];
  /** How many messages were dropped. */
  dropped: number;
  /** Estimated tokens of the dropped messages. */
  droppedTokens: number;
  /** Estimated tokens of `messages` plus the system prompt (see `estimateTokens`). */
  estimatedTokens: number;
  /** `estimatedTokens + reserveTokens <= maxTokens`. False when even the minimum does not fit. */
  fits: boolean;
}

interface Unit {
  start: number;
  end: number;
  tokens: number;
  user: boolean;
}

/**
 * Drops the oldest history so the next model call fits its token budget. Pure: the input is
 * never mutated, and sizes come from `estimateMessageTokens`.
 *
 * Promises:
 * - When everything fits, returns the input array itself with `dropped: 0` (one estimate pass).
 * - Never removes the system prompt, the latest user message, or anything after it. When that
 *   minimum alone does not fit, returns it with `fits: false`; the host decides what to do then
 *   (fail the turn, or reset the context: see `needsEmergencyReset`).
 * - Drops whole turns (a user message and everything up to the next one) oldest first. For the
 *   last turn that has to go, it first tries keeping the turn's user message and dropping only its
 *   oldest exchanges; the turn goes whole if nothing less fits.
 * - An assistant message and the tool messages after it (its results) go together, so no tool
 *   call loses its result and no result loses its call. Invalid input stays as it was.
 * - The output keeps the input's order and starts with a user message whenever the input did.
 *   Messages before the first user message (a history that starts mid-conversation) are dropped
 *   from the front one exchange at a time.
 * - A history with no user message has nothing removable: returned as is, `fits` as estimated.
 *
 * @throws InvalidArgumentError when `maxTokens` is NaN or `reserveTokens` is negative or not finite.
 */
export function pruneHistory(messages: readonly Message[], options: PruneHistoryOptions): PruneHistoryResult {
  const budget = checkedBudget(options);
  const costs = messages.map(estimateMessageTokens);
  let total = estimateSystemTokens(options.system);
  for (const cost of costs) total += cost;
  const latest = messages.findLastIndex((m) => m.role === "user");
  if (total <= budget || latest <= 0) {
    return {
      messages: messages as Message[],
      dropped: 0,
      droppedTokens: 0,
      estimatedTokens: total,
      fits: total <= budget,
    };
  }

  const drop = new Uint8Array(latest);
  const dropUnit = (unit: Unit): void => {
    drop.fill(1, unit.start, unit.end);
    total -= unit.tokens;
  };
  for (const turn of splitTurns(messages, latest, costs)) {
    if (total <= budget) break;
    const [head, ...replies] = turn as [Unit, ...Unit[]];
    if (!head.user) {
      for (const unit of turn) if (total > budget) dropUnit(unit);
      continue;
    }
    if (replies.length > 1) {
      // Keep the request and the turn's last reply if dropping its oldest exchanges is enough
      // (only ever true for the last turn that has to go).
      let rest = total;
      let count = 0;
      while (count < replies.length - 1 && rest > budget) rest -= replies[count++]!.tokens;
      if (rest <= budget) {
        for (const unit of replies.slice(0, count)) dropUnit(unit);
        break;
      }
    }
    for (const unit of turn) dropUnit(unit);
  }

  const kept: Message[] = [];
  let dropped = 0;
  let droppedTokens = 0;
  messages.forEach((message, index) => {
    if (index < latest && drop[index] === 1) {
      dropped++;
      droppedTokens += costs[index]!;
    } else kept.push(message);
  });
  return { messages: kept, dropped, droppedTokens, estimatedTokens: total, fits: total <= budget };
}

/** `maxTokens - reserveTokens`, after checking both. */
function checkedBudget(options: PruneHistoryOptions): number {
  const problems: string[] = [];
  const reserve = options.reserveTokens ?? 0;
  if (typeof options.maxTokens !== "number" || Number.isNaN(options.maxTokens))
    problems.push(`maxTokens must be a number (got ${String(options.maxTokens)})`);
  if (typeof reserve !== "number" || !Number.isFinite(reserve) || reserve < 0)
    problems.push(`reserveTokens must be a finite number >= 0 (got ${String(reserve)})`);
  if (problems.length > 0) throw new InvalidArgumentError(`pruneHistory: ${problems.join("; ")}`);
  return options.maxTokens - reserve;
}

/**
 * The messages before `end` as turns of units. A unit is a user message, an assistant message
 * with the tool messages right after it, or a stray tool message. A turn starts at a user message;
 * units before the first user message form a turn without one.
 */
function splitTurns(messages: readonly Message[], end: number, costs: readonly number[]): Unit[][] {
  const turns: Unit[][] = [];
  let index = 0;
  while (index < end) {
    const start = index;
    const role = messages[index]!.role;
    let tokens = costs[index++]!;
    if (role === "assistant") while (index < end && messages[index]!.role === "tool") tokens += costs[index++]!;
    const unit: Unit = { start, end: index, tokens, user: role === "user" };
    const last = turns[turns.length - 1];
    if (unit.user || !last) turns.push([unit]);
    else last.push(unit);
  }
  return turns;
}
