import { InvalidArgumentError } from "../errors/errors.js";
import type { DoneEvent } from "../contracts/loop-event.js";
import type { LoopResult } from "../contracts/loop-result.js";
import type { DeliveryStamp } from "./deliverable-event.js";

/**
 * The result of a turn as a client gets it by default: how it ended, never its history. The
 * `LoopResult` fields `messages`, `executionTree`, `pendingApprovals` and `resume` (the whole
 * conversation, tool arguments and results at every depth) are left out; the events before `done`
 * carry what a client renders.
 */
export interface DoneOutcome extends Pick<LoopResult, "status" | "text" | "structured" | "usage" | "error"> {
  /** The turn's ids, when the result has them (a runtime turn's `TurnResult`). */
  sessionId?: string;
  agentId?: string;
  runId?: string;
}

/**
 * A `done` event as the delivery helpers hand it to a client: the event's own fields, and the
 * turn's {@link DoneOutcome} as `result` (plus what a `done` function added).
 */
export type DeliveredDoneEvent = Omit<DoneEvent, "result"> &
  DeliveryStamp & { result: DoneOutcome & Record<string, unknown> };

/**
 * What a `done` event carries to a client:
 * - `"outcome"`: its `result` cut down to a {@link DoneOutcome} (status, text, structured, usage,
 *   error and the turn's ids); the event's own fields (`sessionId`, `runId`, `seq`, ...) are kept.
 * - `"full"`: the event as the runtime emitted it, the whole message history and execution tree
 *   included. Only for a client that may see everything the turn did (an operator's console).
 * - a function: the outcome, plus the fields it returns (merged into `result`), e.g.
 *   `(event) => ({ executionTree: event.result.executionTree })`. It must not throw; returning
 *   `undefined` adds nothing.
 */
export type DoneDelivery =
  "outcome" | "full" | ((event: DoneEvent & DeliveryStamp) => Record<string, unknown> | undefined);

const OUTCOME_FIELDS = ["status", "text", "structured", "usage", "error", "sessionId", "agentId", "runId"] as const;

/** A `done` event with a result object (a source may send other shapes: those are passed on as they are). */
function isDoneWithResult(event: { type: string }): event is DoneEvent & DeliveryStamp {
  const result = (event as { result?: unknown }).result;
  return event.type === "done" && result !== null && typeof result === "object";
}

/**
 * `event` as `delivery` says a client gets it: a `done` event with an object `result` is rebuilt
 * (never changed in place), any other event is returned as is.
 */
export function deliverDone<E extends { type: string }>(event: E, delivery: DoneDelivery = "outcome"): E {
  if (delivery === "full" || !isDoneWithResult(event)) return event;
  const result: Partial<Record<(typeof OUTCOME_FIELDS)[number], unknown>> = event.result;
  const outcome: Record<string, unknown> = {};
  for (const field of OUTCOME_FIELDS) if (result[field] !== undefined) outcome[field] = result[field];
  const extra = typeof delivery === "function" ? delivery(event) : undefined;
  return { ...event, result: { ...outcome, ...extra } };
}

/** Throws `InvalidArgumentError` (naming `where`) unless `value` is a {@link DoneDelivery} or undefined. */
export function checkDoneDelivery(value: unknown, where: string): void {
  if (value === undefined || value === "outcome" || value === "full" || typeof value === "function") return;
  throw new InvalidArgumentError(
    `${where}: done must be "outcome", "full" or a function (got ${typeof value === "string" ? JSON.stringify(value) : value === null ? "null" : typeof value})`,
  );
}
