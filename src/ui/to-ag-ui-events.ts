import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import { createAgUiTranslator, type AgUiEvent, type AgUiEventsOptions } from "./ag-ui-translator.js";

export { createAgUiTranslator } from "./ag-ui-translator.js";
export type { AgUiAgentState, AgUiEvent, AgUiEventsOptions, AgUiEventType, AgUiInterrupt } from "./ag-ui-translator.js";

/**
 * Turns Agentry events into AG-UI 1.0 events:
 *
 * - a turn → `RUN_STARTED` (threadId = session, runId = run) … `RUN_FINISHED` (outcome
 *   `success` with the final text as `result`, `interrupt` while approvals, questions or a plan
 *   review wait, `cancelled` on abort) or `RUN_ERROR` (`code`: the status, e.g.
 *   `budget_exceeded`); token usage per model on the terminal event;
 * - text and reasoning → `TEXT_MESSAGE_*` / `REASONING_*`, one message per stream and level;
 * - tool calls → `TOOL_CALL_START` / `_ARGS` (the arguments as JSON) / `_END`, then
 *   `TOOL_CALL_RESULT` when the call ends;
 * - a `run_subtask` call → also a subagent (`SUBAGENT_STARTED`, `SUBAGENT_FINISHED` /
 *   `SUBAGENT_ERROR`, subagentRunId = its toolCallId); everything inside a sub-task carries
 *   `subagentRunId` = its `parentId`, so parallel sub-tasks stay apart;
 * - state: `STATE_SNAPSHOT` at run start, then `STATE_DELTA` patches of `AgUiAgentState`
 *   (tool tree with status and duration, task status, plan, budget stop);
 * - approvals, questions and plans → interrupts (`reason` `tool_approval` with the call's
 *   `toolCallId`, `question`, `plan_review`; `id` = requestId / questionId / artifactId, the id
 *   to pass to `resolveApproval` / `answerQuestion` / `tasks.approve`) and `CUSTOM`
 *   `agentry.*` events as they happen; other events (warnings, task status, artifacts, role
 *   changes, compactions, "deciding" / "preparing") → `CUSTOM` `agentry.<type>`.
 *
 * Several turns in one source (a session followed with `EventLog.resume`) become several runs.
 *
 * @example
 * ```ts
 * for await (const event of toAgUiEvents(runtime.stream({ agentId, content }))) write(`data:
 * ${JSON.stringify(event)}\n\n`);
 * ```
 */
export async function* toAgUiEvents(
  events: AsyncIterable<DeliverableEvent>,
  options: AgUiEventsOptions = {},
): AsyncGenerator<AgUiEvent> {
  const translator = createAgUiTranslator(options);
  try {
    for await (const event of events) yield* translator.push(event);
  } catch (error) {
    yield* translator.end(error);
    return;
  }
  yield* translator.end();
}
