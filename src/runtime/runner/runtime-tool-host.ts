import type { JsonValue } from "../../contracts/json-schema.js";
import type { TurnBudget } from "../../loop/budget.js";
import type { Lineage } from "../records/lineage.js";
import type { TurnStarter } from "../records/turn-request.js";

/** What the runtime hands its own tools as `ctx[RUNTIME_HOST]`. */
export interface RuntimeToolHost {
  sessionId: string;
  agentId: string;
  runId: string;
  /** The turn's host context (`SendInput.context`): inherited by the turns its tools start. */
  context: JsonValue | undefined;
  /** Agents waiting on this turn through `agents_message`, outermost first. */
  chain: readonly string[];
  /** Limits shared with the root turn and everything it started in the background. */
  lineage: Lineage;
  /**
   * Gives model calls of this turn's budget to a turn it hands to a dispatcher (they count against its
   * `maxTotalLlmCalls`).
   */
  giveLlmCalls?: (count: number) => void;
  /** The turn's budget: a turn it waits on (sync `agents_message`) counts against it. */
  budget?: TurnBudget;
  /** What starts the turns its tools set off (the queue that runs this turn). */
  turns: TurnStarter;
}
