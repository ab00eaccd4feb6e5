import type { LoopResult } from "./loop-result.js";

/** The outcome of one turn. */
export interface TurnResult<T = unknown> extends LoopResult<T> {
  sessionId: string;
  agentId: string;
  /** Whether the session was created for this turn. */
  created: boolean;
  runId: string;
}
