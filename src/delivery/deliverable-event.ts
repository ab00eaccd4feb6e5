import type { EventOrigin, LoopEvent } from "../loop/loop-event.js";

// The plan / question / task events of API.md ("Roles, plans, questions and tasks"). The runtime
// does not emit them yet; the delivery helpers and converters already handle them by type, so a
// runtime that starts emitting them needs no change here. When they join `LoopEvent`, these
// declarations become re-exports of those.

/** A task's lifecycle state (API.md `TaskStatus`). */
export type DeliverableTaskStatus = "planning" | "awaiting_review" | "executing" | "completed" | "failed" | "cancelled";

/** The plan format of API.md (`Plan`), as far as the converters read it. */
export interface DeliverablePlan {
  type: "plan";
  format_version: "1.0";
  goal: string;
  steps: { step_number: number; action: string; reason?: string; tools_needed?: string[]; estimated_time?: string }[];
  estimated_total_time?: string;
  risks?: string[];
  prerequisites?: string[];
  completion_criteria?: string[];
}

/** The question format of API.md (`Question`), as far as the converters read it. */
export interface DeliverableQuestion {
  type: "question";
  format_version: "1.0";
  question: string;
  context?: string;
  severity: "critical" | "major" | "minor";
  options: { label: string; value: string; description?: string }[];
  default?: string;
  allow_custom?: boolean;
}

/** A task moved from one status to another. */
export interface TaskStatusEvent extends EventOrigin { type: "task_status"; taskId: string; from: DeliverableTaskStatus | null; to: DeliverableTaskStatus }
/** Plan generation began. */
export interface PlanningStartedEvent extends EventOrigin { type: "planning_started"; taskId?: string }
/** An artifact was stored (`preview` is a short prefix of its content). */
export interface ArtifactCreatedEvent extends EventOrigin { type: "artifact_created"; artifactId: string; filename: string; kind: string; preview: string }
/** A plan was submitted for review. */
export interface PlanReadyEvent extends EventOrigin { type: "plan_ready"; artifactId: string; plan: DeliverablePlan; taskId?: string }
/** The agent asks the user; the turn waits for `answerQuestion`. */
export interface QuestionEvent extends EventOrigin { type: "question"; questionId: string; question: DeliverableQuestion }
/** A session switched roles. */
export interface RoleChangedEvent extends EventOrigin { type: "role_changed"; sessionId: string; from: string | null; to: string }
/** A streamed assistant message started or completed. */
export interface MessageStreamEvent extends EventOrigin { type: "message_stream_started" | "message_stream_completed"; streamId: string }
/** A partial stream was discarded. */
export interface MessageStreamCancelledEvent extends EventOrigin { type: "message_stream_cancelled"; streamId: string; reason: string }

/** The API.md events the runtime does not emit yet. */
export type UpcomingEvent =
  | TaskStatusEvent
  | PlanningStartedEvent
  | ArtifactCreatedEvent
  | PlanReadyEvent
  | QuestionEvent
  | RoleChangedEvent
  | MessageStreamEvent
  | MessageStreamCancelledEvent;

/** Where a runtime event came from; absent on events straight from `runUnifiedAgentLoop`. */
export interface DeliveryStamp {
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
export type DeliverableEvent = (LoopEvent | UpcomingEvent) & DeliveryStamp;
