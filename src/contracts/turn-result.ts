import type { LoopResult, LoopStatus } from "./loop-result.js";

/** The outcome of one turn. */
export interface TurnResult<T = unknown> extends Omit<LoopResult<T>, "status"> {
  /**
   * How the turn ended, or `"queued"`: the message was stored behind a pending decision
   * (`SendInput.ifPending: "queue"`) and runs later as the turn `runId`, in whichever process
   * ends the decision (its events reach `runtime.events` there). A queued result has no text,
   * messages or usage; `pendingApprovals` lists what it waits behind.
   */
  status: LoopStatus | "queued";
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
  /**
   * When `queued`: the id of the stored queued message (`queued:<runId>`, its record's id).
   * @default undefined (the turn ran)
   */
  queuedMessageId?: string;
}
