import type { LoopEvent, TaskStatus } from "../contracts/loop-event.js";

import type { Plan, Question } from "../contracts/plan.js";
import type { RuntimeEventLabels } from "../contracts/agent-runtime.js";

// The plan / question / task events of API.md are part of `LoopEvent` now; these names stay as
// aliases for code that used them.

/** A task's lifecycle state (API.md `TaskStatus`). */
export type DeliverableTaskStatus = TaskStatus;
/** The plan format of API.md (`Plan`). */
export type DeliverablePlan = Plan;
/** The question format of API.md (`Question`). */
export type DeliverableQuestion = Question;
/** Formerly the API.md events the runtime did not emit yet; all are `LoopEvent`s now. */
export type UpcomingEvent = never;

/** Where a runtime event came from (and its labels); absent on events straight from `runUnifiedAgentLoop`. */
export interface DeliveryStamp extends RuntimeEventLabels {
  sessionId?: string;
  agentId?: string;
  runId?: string;
  /** Per-runtime, increasing: the SSE `id:`. */
  seq?: number;
  /** Milliseconds since the epoch. */
  ts?: number;
  /** Chunk events of a stream opened by `message_stream_started` carry its id. */
  streamId?: string;
}

/**
 * What the delivery helpers and converters accept: runtime events (`RuntimeEvent`), bare loop
 * events, and the plan / question / task events of API.md. Types they do not know are passed
 * over (forward compatible), never an error.
 */
export type DeliverableEvent = LoopEvent & DeliveryStamp;
