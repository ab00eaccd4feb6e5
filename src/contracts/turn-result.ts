import type { LoopResult } from "./loop-result.js";

/** The outcome of one turn. */
export interface TurnResult<T = unknown> extends LoopResult<T> {
  sessionId: string;
  agentId: string;
  /** Whether the session was created for this turn. */
  created: boolean;
  runId: string;
  /**
   * When the runtime stopped the turn (status `"aborted"`): why. `"interrupted"` (a message sent
   * with `ifBusy: "interrupt"`), the `reason` given to `stopTurn` (default `"stopped"`),
   * `"role_changed"` (`setRole`), `"task_cancelled"` (`tasks.cancel`).
   * @default undefined (the turn ended on its own, or the host's `signal` aborted it)
   */
  reason?: string;
}
