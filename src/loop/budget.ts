import { InvalidArgumentError } from "../errors/errors.js";
import { KeyedSerializer } from "../internal/keyed-serializer.js";
import type { BudgetLimits, BudgetReason } from "../contracts/budget.js";

/** The default limits of a turn (see {@link BudgetLimits} for each). */
export const DEFAULT_BUDGET: Readonly<BudgetLimits> = Object.freeze({
  maxDepth: 3,
  maxIterationsPerLevel: 20,
  maxParallelPerTurn: 8,
  maxTotalSubtasks: 32,
  maxTotalLlmCalls: 60,
  maxTotalToolCalls: 200,
  maxWallClockMs: 180_000,
  maxToolResultBytes: 50_000,
  maxHistoryTokens: 128_000,
});

/** A spent budget: which limit, and the value that would have passed it. */
export interface BudgetViolation {
  reason: BudgetReason;
  limit: number;
  observed: number;
}

/** What a turn has used so far, over every depth. */
export interface BudgetCounters {
  llmCalls: number;
  toolCalls: number;
  subtasks: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  resultBytes: number;
}

const BRAND = Symbol.for("agentry.turnBudget");

/**
 * The budget of one root turn, shared by every depth of it. Every check is made before the thing
 * it limits (LLM call, tool dispatch, sub-task spawn) and reserves it at once, so concurrent
 * fan-out can never overshoot a count. Token and cost limits are checked before each LLM call
 * (a single response can pass them; the next call is then refused).
 *
 * Pass the same instance to several `runUnifiedAgentLoop` calls to share it.
 */
export class TurnBudget {
  readonly limits: Readonly<BudgetLimits>;
  /** `Date.now()` when the budget was created; the wall clock runs from here. */
  readonly startedAt: number;
  readonly counters: BudgetCounters = {
    llmCalls: 0,
    toolCalls: 0,
    subtasks: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    costUsd: 0,
    resultBytes: 0,
  };
  /** The first limit that was hit, or null. Once set, every level of the turn stops. */
  exceeded: BudgetViolation | null = null;
  /** @internal whether the single `budget_exceeded` event of the turn was emitted */
  reported = false;
  /**
   * @internal LLM calls given away to turns this one handed to another process (a runtime's
   * dispatched agent turns): they count against `maxTotalLlmCalls` but are not this turn's usage.
   */
  givenLlmCalls = 0;
  /** @internal named exclusive locks of the turn (one at a time per lock name) */
  readonly locks = new KeyedSerializer();
  declare readonly [BRAND]: true;

  /**
   * @internal The budget of the turn that waits on this one (a runtime's sync `agents_message`):
   * every check is made against it too, and every reservation and usage counted in it, so the
   * waiting turn's limits cover what it sets off. A limit of the parent that is hit stops both.
   */
  readonly parent: TurnBudget | undefined;

  constructor(limits: Partial<BudgetLimits> = {}, now: number = Date.now(), parent?: TurnBudget) {
    this.limits = resolveLimits(limits);
    this.startedAt = now;
    this.parent = parent;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True for a `TurnBudget` (also one made by a duplicate install). */
  static isTurnBudget(value: unknown): value is TurnBudget {
    return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  /** Milliseconds left on the wall clock (may be negative). */
  remainingMs(now: number = Date.now()): number {
    return this.limits.maxWallClockMs - (now - this.startedAt);
  }

  /** Check and reserve one LLM call. */
  tryLlmCall(): BudgetViolation | null {
    const c = this.counters;
    const l = this.limits;
    return (
      this.exceeded ??
      this.clock() ??
      (c.llmCalls + this.givenLlmCalls >= l.maxTotalLlmCalls
        ? this.fail("llm_calls", l.maxTotalLlmCalls, c.llmCalls + this.givenLlmCalls + 1)
        : null) ??
      (l.maxTotalTokens !== undefined && c.inputTokens + c.outputTokens >= l.maxTotalTokens
        ? this.fail("tokens", l.maxTotalTokens, c.inputTokens + c.outputTokens)
        : null) ??
      (l.maxCostUsd !== undefined && c.costUsd >= l.maxCostUsd ? this.fail("cost", l.maxCostUsd, c.costUsd) : null) ??
      this.inherit(this.parent?.tryLlmCall()) ??
      this.take("llmCalls")
    );
  }

  /**
   * @internal Whether `count` more LLM calls would pass every limit now (calls, tokens, cost, the
   * wall clock, the parent's): a look only, nothing reserved and nothing marked spent. The runtime
   * asks before a call of its own (a compaction's summary) that must never be the one that stops
   * the turn.
   */
  roomForLlmCalls(count: number): boolean {
    const c = this.counters;
    const l = this.limits;
    if (this.exceeded || Date.now() - this.startedAt >= l.maxWallClockMs) return false;
    if (c.llmCalls + this.givenLlmCalls + count > l.maxTotalLlmCalls) return false;
    if (l.maxTotalTokens !== undefined && c.inputTokens + c.outputTokens >= l.maxTotalTokens) return false;
    if (l.maxCostUsd !== undefined && c.costUsd >= l.maxCostUsd) return false;
    return this.parent === undefined || this.parent.roomForLlmCalls(count);
  }

  /** Check and reserve one tool dispatch. */
  tryToolCall(): BudgetViolation | null {
    const c = this.counters;
    const l = this.limits;
    return (
      this.exceeded ??
      this.clock() ??
      (c.toolCalls >= l.maxTotalToolCalls ? this.fail("tool_calls", l.maxTotalToolCalls, c.toolCalls + 1) : null) ??
      (l.maxTotalResultBytes !== undefined && c.resultBytes >= l.maxTotalResultBytes
        ? this.fail("bytes", l.maxTotalResultBytes, c.resultBytes)
        : null) ??
      this.inherit(this.parent?.tryToolCall()) ??
      this.take("toolCalls")
    );
  }

  /** Check and reserve one sub-task spawn. */
  trySubtask(): BudgetViolation | null {
    const c = this.counters;
    const l = this.limits;
    return (
      this.exceeded ??
      this.clock() ??
      (c.subtasks >= l.maxTotalSubtasks ? this.fail("subtasks", l.maxTotalSubtasks, c.subtasks + 1) : null) ??
      this.inherit(this.parent?.trySubtask()) ??
      this.take("subtasks")
    );
  }

  /** Record one response's usage. */
  addUsage(inputTokens: number, outputTokens: number, cachedInputTokens: number, costUsd: number): void {
    const c = this.counters;
    c.inputTokens += inputTokens;
    c.outputTokens += outputTokens;
    c.cachedInputTokens += cachedInputTokens;
    c.costUsd += costUsd;
    this.parent?.addUsage(inputTokens, outputTokens, cachedInputTokens, costUsd);
  }

  /**
   * Room for the next tool result, in bytes: `maxToolResultBytes`, or what is left of
   * `maxTotalResultBytes` when that is less. Every result the model sees (tool values, errors,
   * refusals, sub-task results, truncation notices) is cut to it.
   */
  resultRoom(): number {
    const l = this.limits;
    const own =
      l.maxTotalResultBytes === undefined
        ? l.maxToolResultBytes
        : Math.min(l.maxToolResultBytes, Math.max(0, l.maxTotalResultBytes - this.counters.resultBytes));
    return this.parent === undefined ? own : Math.min(own, this.parent.resultRoom());
  }

  /**
   * Records a result of `keptBytes` (after cutting) whose full size was `fullBytes`. A result cut
   * because `maxTotalResultBytes` ran out spends the budget (reason `"bytes"`).
   */
  recordResult(fullBytes: number, keptBytes: number): BudgetViolation | null {
    const l = this.limits;
    const used = this.counters.resultBytes;
    this.counters.resultBytes += keptBytes;
    const shared = this.inherit(this.parent?.recordResult(fullBytes, keptBytes));
    if (shared) return shared;
    if (
      l.maxTotalResultBytes !== undefined &&
      used + Math.min(fullBytes, l.maxToolResultBytes) > l.maxTotalResultBytes
    ) {
      return this.fail("bytes", l.maxTotalResultBytes, used + Math.min(fullBytes, l.maxToolResultBytes));
    }
    return null;
  }

  private clock(): BudgetViolation | null {
    const elapsed = Date.now() - this.startedAt;
    return elapsed >= this.limits.maxWallClockMs ? this.fail("wall_clock", this.limits.maxWallClockMs, elapsed) : null;
  }

  /** A violation of the parent's budget, made this budget's too (`null` when there is none). */
  private inherit(violation: BudgetViolation | null | undefined): BudgetViolation | null {
    if (!violation) return null;
    this.exceeded ??= violation;
    return violation;
  }

  /**
   * @internal Counts tool calls a provider ran by itself (a CLI agent's own tools, reported with
   * its response): they are in the turn's usage; they already ran, so nothing is refused for them.
   */
  countProviderToolCalls(count: number): void {
    this.counters.toolCalls += count;
  }

  private take(counter: "llmCalls" | "toolCalls" | "subtasks"): null {
    this.counters[counter]++;
    return null;
  }

  /** @internal marks the budget spent (first violation wins) */
  fail(reason: BudgetReason, limit: number, observed: number): BudgetViolation {
    this.exceeded ??= { reason, limit, observed };
    return this.exceeded;
  }
}

/** Makes a budget; pass the same one to several loops to share it. */
export function createTurnBudget(limits: Partial<BudgetLimits> = {}): TurnBudget {
  return new TurnBudget(limits);
}

function resolveLimits(limits: Partial<BudgetLimits>): Readonly<BudgetLimits> {
  const merged: BudgetLimits = { ...DEFAULT_BUDGET };
  const problems: string[] = [];
  for (const [key, value] of Object.entries(limits) as [keyof BudgetLimits, unknown][]) {
    if (value === undefined || value === null) continue;
    if (
      !Object.hasOwn(DEFAULT_BUDGET, key) &&
      key !== "maxTotalTokens" &&
      key !== "maxCostUsd" &&
      key !== "maxTotalResultBytes"
    ) {
      problems.push(`unknown budget limit "${key}"`);
    } else if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      problems.push(`${key} must be a non-negative number, got ${JSON.stringify(value)}`);
    } else {
      merged[key] = value;
    }
  }
  if (merged.maxParallelPerTurn < 1) problems.push("maxParallelPerTurn must be at least 1");
  if (problems.length > 0) throw new InvalidArgumentError(`Invalid budget: ${problems.join("; ")}`);
  return Object.freeze(merged);
}
