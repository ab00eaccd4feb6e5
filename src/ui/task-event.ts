import type { PlanSummary } from "../contracts/plan.js";
import type { UserMessage } from "../contracts/message.js";
import type { SubagentStatus, TaskStatus, ToolLogLevel } from "../contracts/loop-event.js";

/**
 * The labels of the catalogue's payloads, each present only when the runtime event carried it:
 * `task_id`, `run_id`, `step_idx` (0-based plan step index), `sub_agent_id` (the background
 * agent's session id) and `turn` (the turn's number in its session, from 1).
 */
export interface TaskEventLabels {
  task_id?: string;
  run_id?: string;
  step_idx?: number;
  sub_agent_id?: string;
  turn?: number;
}

/** The payload of every catalogue event `toTaskEvents` writes, by event type. */
export interface TaskEventPayloads {
  "task.created": TaskEventLabels & { task_id: string; status: TaskStatus };
  "task.status_changed": TaskEventLabels & { task_id: string; from: TaskStatus; to: TaskStatus };
  "agent.planning_started": TaskEventLabels;
  "agent.deciding": TaskEventLabels;
  "agent.tool_calls_preparing": TaskEventLabels & { tool_names: string[] };
  "agent.message_stream_started": TaskEventLabels & { stream_id: string };
  "agent.message_delta": TaskEventLabels & { stream_id: string; content: string };
  "agent.message_stream_completed": TaskEventLabels & { stream_id: string };
  "agent.message_stream_cancelled": TaskEventLabels & { stream_id: string; reason: string };
  /** An assistant message of the planner (root, with text) while its task is planning. */
  "agent.plan_message": TaskEventLabels & { content: string };
  "agent.plan_ready": TaskEventLabels & { artifact_id: string; plan: PlanSummary };
  "agent.question": TaskEventLabels & { question_id: string; question: string };
  "agent.role_changed": TaskEventLabels & { from: string | null; to: string };
  /** A message steered into the running turn (`ifBusy: "steer"`), where the turn read it. */
  "agent.message_steered": TaskEventLabels & { message_id: string; content: UserMessage["content"] };
  /** The runtime stopped the turn (`stopTurn`, `ifBusy: "interrupt"`, a role switch, a cancel); `agent.run_finished` follows. */
  "agent.turn_stopped": TaskEventLabels & { reason: string };
  "agent.sub_agent_status": TaskEventLabels & {
    sub_agent_id: string;
    parent_session_id: string;
    from: SubagentStatus | null;
    to: SubagentStatus;
  };
  "agent.run_finished": TaskEventLabels & { status: string };
  "tool.call_started": TaskEventLabels & { tool_call_id: string; tool_name: string; args: unknown };
  "tool.call_finished": TaskEventLabels & {
    tool_call_id: string;
    tool_name: string;
    result: unknown;
    is_error: boolean;
    duration_ms?: number;
    refused?: string;
  };
  "tool.approval_requested": TaskEventLabels & {
    request_id: string;
    tool_call_id: string;
    tool_name: string;
    args: unknown;
  };
  "tool.approval_resolved": TaskEventLabels & { request_id: string; approved: boolean; reason?: string };
  "log.debug": TaskEventLabels & TaskLogFields;
  "log.info": TaskEventLabels & TaskLogFields;
  "log.warn": TaskEventLabels & TaskLogFields;
  "log.error": TaskEventLabels & TaskLogFields;
  "artifact.created": TaskEventLabels & {
    artifact_id: string;
    filename: string;
    kind: string;
    content_preview: string;
  };
}

/** A `log.*` line: a tool's (`tool_call_id`, `tool_name`) or the runtime's (`code`: a warning's, an error's). */
export interface TaskLogFields {
  message: string;
  tool_call_id?: string;
  tool_name?: string;
  code?: string;
}

/** A catalogue event type. */
export type TaskEventType = keyof TaskEventPayloads;

/** The `log.*` type of each tool log level. */
export type TaskLogType = `log.${ToolLogLevel}`;

/**
 * One event of the task event catalogue (`task.*`, `agent.*`, `tool.*`, `log.*`, `artifact.*`),
 * discriminated on `type`, with a snake_case payload. `session_id`, `seq` and
 * `ts` come from the runtime event it was made from.
 */
export type TaskEvent = {
  [K in TaskEventType]: { type: K; session_id?: string; seq?: number; ts?: number; payload: TaskEventPayloads[K] };
}[TaskEventType];
