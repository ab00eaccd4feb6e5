/** Hard limits of one root turn, shared by every depth (defaults: `DEFAULT_BUDGET`). */
export interface BudgetLimits {
  /** @default 3 */
  maxDepth: number;
  /** @default 20 */
  maxIterationsPerLevel: number;
  /** @default 8 */
  maxParallelPerTurn: number;
  /** @default 32 */
  maxTotalSubtasks: number;
  /** @default 60 */
  maxTotalLlmCalls: number;
  /** @default 200 */
  maxTotalToolCalls: number;
  /**
   * Wall-clock limit of the turn in ms, enforced by a timer and at every boundary. `Infinity` (or
   * more than 2^31-1 ms, which no timer can wait) sets no timer: only the boundary checks remain.
   * @default 180_000
   */
  maxWallClockMs: number;
  /**
   * Largest result the model sees for one call, in bytes of UTF-8 (of its JSON when not a
   * string): tool values, thrown error messages, refusals, sub-task results, and the truncation
   * notice itself, which is kept only when it fits.
   * @default 50_000
   */
  maxToolResultBytes: number;
  /** @default 128_000 */
  maxHistoryTokens: number;
  /** Input + output tokens over the turn. Unset = unlimited. */
  maxTotalTokens?: number;
  /** Unset = unlimited; needs a pricing table. */
  maxCostUsd?: number;
  /**
   * Sum of the bytes of every result the model sees in a turn, at every depth (measured as for
   * `maxToolResultBytes`). A result cut short because this ran out spends the budget. Unset = unlimited.
   */
  maxTotalResultBytes?: number;
}

/** Why a budget stopped a turn. */
export type BudgetReason = "subtasks" | "llm_calls" | "tool_calls" | "wall_clock" | "tokens" | "bytes" | "cost";
