import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import type { Message } from "../contracts/message.js";
import type { TaskEvent, TaskEventLabels, TaskEventPayloads, TaskEventType } from "./task-event.js";

/** What a translator remembers between events: the sessions in the planner's role. */
interface TranslatorState {
  planning: Set<string>;
}

/** A stateful translator of runtime events to the task event catalogue (`toTaskEvents` uses one). */
export interface TaskEventTranslator {
  /** The catalogue events for one runtime event (none for the events the catalogue has no name for). */
  push(event: DeliverableEvent): TaskEvent[];
}

/**
 * A translator for a stream of runtime events (`runtime.events`, `runtime.stream()`, an
 * `EventLog.resume`): feed it every event of the sessions you show, in order. It remembers which
 * sessions are in the planner's role (so an assistant message there is an `agent.plan_message`):
 * from `planning_started`, a task moving to `planning` or a switch to `planner`, until a switch
 * to another role.
 */
export function createTaskEventTranslator(): TaskEventTranslator {
  const state: TranslatorState = { planning: new Set() };
  return { push: (event) => translate(state, event) };
}

/**
 * Maps runtime events to the task event catalogue of a task-management UI (task / agent / tool /
 * log / artifact events), with snake_case payloads:
 *
 * - `task_status` → `task.created` (from null) / `task.status_changed`;
 * - `planning_started` → `agent.planning_started`; `llm_call_start` → `agent.deciding`;
 *   `tool_calls_preparing` → `agent.tool_calls_preparing` (`tool_names`); the message stream
 *   events and `chunk`s of a stream → `agent.message_stream_started` / `agent.message_delta` /
 *   `agent.message_stream_completed` / `agent.message_stream_cancelled`;
 * - a root assistant message with text while the session is in the planner's role → `agent.plan_message`;
 *   `plan_ready` → `agent.plan_ready` (`plan`: `{ goal_summary, steps: [{ title, description }],
 *   completion_criteria? }`); `question`, `role_changed`, `subagent_status` and `done` →
 *   `agent.question`, `agent.role_changed`, `agent.sub_agent_status`, `agent.run_finished`;
 * - `tool_call_update` → `tool.call_started` / `tool.call_finished`; approvals →
 *   `tool.approval_requested` / `tool.approval_resolved`;
 * - `tool_log` → `log.<level>`; `warning` and `budget_exceeded` → `log.warn`; `error` → `log.error`;
 * - `artifact_created` → `artifact.created` (`content_preview`: the first 280 characters).
 *
 * Every payload carries the labels the event had (`task_id`, `run_id`, `step_idx`,
 * `sub_agent_id`, `turn`; see {@link TaskEventLabels}). Passed over (no catalogue name): `usage`,
 * `thinking`, `tool_progress`, `tool_input_delta` (streamed arguments: `tool.call_started` carries
 * them whole), other `message`s, `message_queued`, and types this version does not know.
 *
 * @example
 * ```ts
 * const taskEvents = toTaskEvents(events); // e.g. an array collected from runtime.events
 * ```
 */
export function toTaskEvents(events: Iterable<DeliverableEvent>): TaskEvent[] {
  const translator = createTaskEventTranslator();
  const out: TaskEvent[] = [];
  for (const event of events) out.push(...translator.push(event));
  return out;
}

/** The labels of `event` in the catalogue's names, only those it has. */
function labelsOf(event: DeliverableEvent): TaskEventLabels {
  const labels: TaskEventLabels = {};
  if (event.taskId !== undefined) labels.task_id = event.taskId;
  if (event.runId !== undefined && event.runId !== "") labels.run_id = event.runId;
  if (event.stepIndex !== undefined) labels.step_idx = event.stepIndex;
  if (event.subagentId !== undefined) labels.sub_agent_id = event.subagentId;
  if (event.turn !== undefined) labels.turn = event.turn;
  return labels;
}

function make<K extends TaskEventType>(
  event: DeliverableEvent,
  type: K,
  fields: Omit<TaskEventPayloads[K], keyof TaskEventLabels> & TaskEventLabels,
): TaskEvent[] {
  const payload = { ...labelsOf(event), ...fields } as TaskEventPayloads[K];
  const made = { type, payload } as Extract<TaskEvent, { type: K }>;
  if (event.sessionId !== undefined) made.session_id = event.sessionId;
  if (event.seq !== undefined) made.seq = event.seq;
  if (event.ts !== undefined) made.ts = event.ts;
  return [made];
}

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

function translate(state: TranslatorState, event: DeliverableEvent): TaskEvent[] {
  const session = event.sessionId ?? "";
  switch (event.type) {
    case "task_status":
      if (event.to === "planning") state.planning.add(session);
      return event.from === null
        ? make(event, "task.created", { task_id: event.taskId, status: event.to })
        : make(event, "task.status_changed", { task_id: event.taskId, from: event.from, to: event.to });
    case "planning_started":
      state.planning.add(session);
      return make(event, "agent.planning_started", {});
    case "llm_call_start":
      return make(event, "agent.deciding", {});
    case "tool_calls_preparing":
      return make(event, "agent.tool_calls_preparing", { tool_names: event.names });
    case "message_stream_started":
      return make(event, "agent.message_stream_started", { stream_id: event.streamId });
    case "chunk":
      return event.streamId === undefined || event.content === ""
        ? []
        : make(event, "agent.message_delta", { stream_id: event.streamId, content: event.content });
    case "message_stream_completed":
      return make(event, "agent.message_stream_completed", { stream_id: event.streamId });
    case "message_stream_cancelled":
      return make(event, "agent.message_stream_cancelled", { stream_id: event.streamId, reason: event.reason });
    case "message": {
      if (event.depth !== 0 || event.message.role !== "assistant" || !state.planning.has(session)) return [];
      const content = textOf(event.message);
      return content.trim() === "" ? [] : make(event, "agent.plan_message", { content });
    }
    case "plan_ready":
      return make(event, "agent.plan_ready", { artifact_id: event.artifactId, plan: event.summary });
    case "question":
      return make(event, "agent.question", { question_id: event.questionId, question: event.question.question });
    case "message_steered":
      return make(event, "agent.message_steered", { message_id: event.messageId, content: event.message.content });
    case "turn_stopped":
      return make(event, "agent.turn_stopped", { reason: event.reason });
    case "role_changed":
      if (event.to === "planner") state.planning.add(session);
      else state.planning.delete(session);
      return make(event, "agent.role_changed", { from: event.from, to: event.to });
    case "subagent_status":
      return make(event, "agent.sub_agent_status", {
        sub_agent_id: event.sessionId,
        parent_session_id: event.parentSessionId,
        from: event.from,
        to: event.to,
      });
    case "done":
      return event.depth === 0 ? make(event, "agent.run_finished", { status: event.result.status }) : [];
    case "tool_call_update":
      return toolCall(event);
    case "approval_request": {
      const { requestId, toolCallId, name, args } = event.request;
      return make(event, "tool.approval_requested", {
        request_id: requestId,
        tool_call_id: toolCallId,
        tool_name: name,
        args,
      });
    }
    case "approval_resolved":
      return make(event, "tool.approval_resolved", {
        request_id: event.requestId,
        approved: event.approved,
        ...(event.reason !== undefined && { reason: event.reason }),
      });
    case "tool_log":
      return make(event, `log.${event.level}`, {
        message: event.message,
        tool_call_id: event.toolCallId,
        tool_name: event.name,
      });
    case "warning":
      return make(event, "log.warn", { message: event.message, code: event.code });
    case "context_compacted":
      return make(event, "log.info", {
        message: `Context compacted: ~${event.tokensBefore} → ~${event.tokensAfter} estimated tokens (${event.summarizedMessages} messages summarized, by ${event.source}).`,
        code: "context_compacted",
      });
    case "guardrail_tripped":
      return make(event, "log.warn", {
        message: `Blocked by the ${event.guard} guardrail: ${event.reason}`,
        code: "guardrail_tripped",
      });
    case "budget_exceeded":
      return make(event, "log.warn", {
        message: `Budget exceeded: ${event.reason} (limit ${event.limit}, observed ${event.observed})`,
        code: "budget_exceeded",
      });
    case "error":
      return make(event, "log.error", {
        message: event.message,
        ...(event.code !== undefined && { code: event.code }),
      });
    case "artifact_created":
      return make(event, "artifact.created", {
        artifact_id: event.artifactId,
        filename: event.filename,
        kind: event.kind,
        content_preview: event.preview,
      });
    // client_tool_call: its `tool.call_started` went out; its `tool.call_finished` comes with the client's result.
    case "client_tool_call":
    case "usage":
    case "tool_progress":
    case "tool_input_delta":
    case "thinking":
    case "message_queued":
      return [];
    default:
      return unknownEvent(event);
  }
}

/** A type this version does not know (a newer runtime's) is passed over; the `never` keeps the switch exhaustive. */
function unknownEvent(event: never): TaskEvent[] {
  void event;
  return [];
}

function toolCall(event: Extract<DeliverableEvent, { type: "tool_call_update" }>): TaskEvent[] {
  const { toolCallId: tool_call_id, name: tool_name } = event;
  if (event.status === "start") return make(event, "tool.call_started", { tool_call_id, tool_name, args: event.args });
  return make(event, "tool.call_finished", {
    tool_call_id,
    tool_name,
    result: event.result,
    is_error: event.isError === true,
    ...(event.durationMs !== undefined && { duration_ms: event.durationMs }),
    ...(event.refused !== undefined && { refused: event.refused }),
  });
}
