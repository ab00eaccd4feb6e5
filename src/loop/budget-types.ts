/** Hard limits of one root turn, shared by every depth (defaults from seed 001). */
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
  /** @default 180_000 */
  maxWallClockMs: number;
  /** @default 50_000 */
  maxToolResultBytes: number;
  /** @default 128_000 */
  maxHistoryTokens: number;
  /** Input + output tokens over the turn. Unset = unlimited. */
  maxTotalTokens?: number;
  /** Unset = unlimited; needs a pricing table. */
  maxCostUsd?: number;
  /** Sum of tool-result bytes in a turn. Unset = unlimited. */
  maxTotalResultBytes?: number;
}

/** Why a budget stopped a turn. */
export type BudgetReason = "subtasks" | "llm_calls" | "tool_calls" | "wall_clock" | "tokens" | "bytes" | "cost";
