import type { DeliverableEvent } from "../delivery/deliverable-event.js";

/** The AG-UI 1.0 event types `toAgUiEvents` writes. */
export type AgUiEventType =
  | "RUN_STARTED"
  | "RUN_FINISHED"
  | "RUN_ERROR"
  | "TEXT_MESSAGE_START"
  | "TEXT_MESSAGE_CONTENT"
  | "TEXT_MESSAGE_END"
  | "REASONING_START"
  | "REASONING_MESSAGE_START"
  | "REASONING_MESSAGE_CONTENT"
  | "REASONING_MESSAGE_END"
  | "REASONING_END"
  | "TOOL_CALL_START"
  | "TOOL_CALL_ARGS"
  | "TOOL_CALL_END"
  | "TOOL_CALL_RESULT"
  | "STATE_SNAPSHOT"
  | "STATE_DELTA"
  | "SUBAGENT_STARTED"
  | "SUBAGENT_FINISHED"
  | "SUBAGENT_ERROR"
  | "CUSTOM";

/**
 * An AG-UI 1.0 event (`@ag-ui/core`'s `BaseEvent` shape: `type`, optional `timestamp`, then the
 * type's fields). Declared loosely here so that `@agentry/core/ui` needs no AG-UI install; every
 * event written is checked against `@ag-ui/core`'s schemas in Agentry's tests.
 */
export interface AgUiEvent {
  type: AgUiEventType;
  timestamp?: number;
  [field: string]: unknown;
}

/** An AG-UI interrupt (run paused for an approval, a question or a plan review). */
export interface AgUiInterrupt {
  id: string;
  reason: "tool_approval" | "question" | "plan_review";
  message?: string;
  toolCallId?: string;
  subagentRunId?: string;
  responseSchema?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** Options of `toAgUiEvents`. */
export interface AgUiEventsOptions {
  /** @default the events' `sessionId` (else `"agentry"`) */
  threadId?: string;
  /** @default the events' `runId` (else a random UUID) */
  runId?: string;
}

/** The state `toAgUiEvents` keeps in AG-UI's state channel (snapshot, then JSON Patch deltas). */
export interface AgUiAgentState {
  /** Every tool call of the run by id: nesting, status and timing. */
  tools: Record<
    string,
    {
      name: string;
      parentId: string | null;
      depth: number;
      title?: string;
      status: "running" | "awaiting_approval" | "done" | "error" | "denied";
      durationMs?: number;
    }
  >;
  task: { taskId: string; status: string } | null;
  plan: { artifactId: string; taskId: string | null; plan: unknown } | null;
  budgetExceeded: { reason: string; limit: number; observed: number } | null;
}

const APPROVAL_SCHEMA = { type: "object", properties: { approved: { type: "boolean" }, reason: { type: "string" } }, required: ["approved"] };
const PLAN_REVIEW_SCHEMA = { type: "object", properties: { decision: { enum: ["approve", "revise"] }, feedback: { type: "string" } }, required: ["decision"] };

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const pointer = (...tokens: string[]) => tokens.map((t) => "/" + t.replaceAll("~", "~0").replaceAll("/", "~1")).join("");
const textOf = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? "null"));

/**
 * Translates Agentry events into AG-UI 1.0 events, one event at a time (`push`), closing with
 * `end` when the events stop without a root `done`. Used by `toAgUiEvents`; exported for hosts
 * with their own transport.
 */
export function createAgUiTranslator(options: AgUiEventsOptions = {}) {
  const st: AgUiTranslatorState = {
    options,
    out: [],
    runId: undefined,
    threadId: "agentry",
    state: { tools: {}, task: null, plan: null, budgetExceeded: null },
    texts: new Map(),
    reasonings: new Map(),
    openSubagents: new Set(),
    interrupts: new Map(),
    usage: new Map(),
    counter: 0,
    rootError: undefined,
  };
  return {
    /** The AG-UI events `event` becomes. */
    push(event: DeliverableEvent): AgUiEvent[] {
      translateEvent(st, event);
      return st.out.splice(0);
    },
    /** Ends an open run (`RUN_ERROR`, code `incomplete`, or the given error's message). */
    end(error?: unknown): AgUiEvent[] {
      if (st.runId !== undefined) {
        if (error !== undefined) st.rootError = error instanceof Error ? error.message : textOf(error);
        finishRun(st, undefined);
      }
      return st.out.splice(0);
    },
  };
}

/** What one translator keeps between events. */
interface AgUiTranslatorState {
  options: AgUiEventsOptions;
  out: AgUiEvent[];
  runId: string | undefined;
  threadId: string;
  state: AgUiAgentState;
  /** Open text / reasoning message per level ("" = root, else the run_subtask id). */
  texts: Map<string, string>;
  reasonings: Map<string, string>;
  openSubagents: Set<string>;
  interrupts: Map<string, AgUiInterrupt>;
  usage: Map<string, { model: string; inputTokens: number; outputTokens: number; totalTokens: number }>;
  counter: number;
  rootError: string | undefined;
}

/** One Agentry event's AG-UI events into `st.out`. */
function translateEvent(st: AgUiTranslatorState, event: DeliverableEvent): void {
  if (st.runId === undefined) startRun(st, event);
  if (TEXT_TYPES.has(event.type)) translateTextEvent(st, event);
  else if (TOOL_TYPES.has(event.type)) translateToolEvent(st, event);
  else translateOtherEvent(st, event);
}

const TEXT_TYPES: ReadonlySet<string> = new Set([
  "chunk",
  "llm_call_start",
  "message",
  "message_stream_completed",
  "message_stream_started",
  "thinking",
  "tool_calls_preparing",
]);
const TOOL_TYPES: ReadonlySet<string> = new Set(["approval_request", "approval_resolved", "tool_call_update"]);

/** Text, reasoning, model calls and message streams. */
function translateTextEvent(st: AgUiTranslatorState, event: DeliverableEvent): void {
  const { depth, parentId, ts } = event;
  const level = parentId ?? "";
  const sub = parentId ?? undefined;
  switch (event.type) {
    case "chunk": {
      if (event.content !== "") {
        closeReasoning(st, level, ts);
        let id = st.texts.get(level);
        if (id === undefined) {
          id = event.streamId ?? `${st.runId}:text:${++st.counter}`;
          st.texts.set(level, id);
          emit(st, "TEXT_MESSAGE_START", { messageId: id, role: "assistant" }, ts, sub);
        }
        emit(st, "TEXT_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, sub);
      }
      if (event.done) closeText(st, level, ts);
      return;
    }
    case "thinking": {
      closeText(st, level, ts);
      let id = st.reasonings.get(level);
      if (id === undefined) {
        id = `${st.runId}:reasoning:${++st.counter}`;
        st.reasonings.set(level, id);
        emit(st, "REASONING_START", { messageId: id }, ts, sub);
        emit(st, "REASONING_MESSAGE_START", { messageId: id, role: "reasoning" }, ts, sub);
      }
      emit(st, "REASONING_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, sub);
      return;
    }
    case "message":
      closeLevel(st, level, ts);
      return;
    case "llm_call_start":
      closeLevel(st, level, ts);
      emit(st, "CUSTOM", { name: "agentry.deciding", value: { depth, parentId, iteration: event.iteration } }, ts);
      return;
    case "tool_calls_preparing":
      closeLevel(st, level, ts);
      emit(st, "CUSTOM", { name: "agentry.tool_calls_preparing", value: { depth, parentId, names: event.names } }, ts);
      return;
    case "message_stream_started":
      closeLevel(st, level, ts);
      st.texts.set(level, event.streamId);
      emit(st, "TEXT_MESSAGE_START", { messageId: event.streamId, role: "assistant" }, ts, sub);
      return;
    case "message_stream_completed":
      if (st.texts.get(level) === event.streamId) closeText(st, level, ts);
      return;
    default:
      return;
  }
}

/** Tool calls, approvals and sub-agents. */
function translateToolEvent(st: AgUiTranslatorState, event: DeliverableEvent): void {
  const { depth, parentId, ts } = event;
  const level = parentId ?? "";
  const sub = parentId ?? undefined;
  switch (event.type) {
    case "tool_call_update": {
      closeLevel(st, level, ts);
      if (event.status === "start") {
        startTool(st, event.toolCallId, event.name, event.args, depth, parentId, ts);
        return;
      }
      if (!st.state.tools[event.toolCallId]) startTool(st, event.toolCallId, event.name, null, depth, parentId, ts);
      if (st.openSubagents.delete(event.toolCallId)) {
        if (event.isError) emit(st, "SUBAGENT_ERROR", { subagentRunId: event.toolCallId, message: textOf(event.result) }, ts);
        else emit(st, "SUBAGENT_FINISHED", { subagentRunId: event.toolCallId, result: event.result ?? null, outcome: { type: "success" } }, ts);
      }
      emit(
        st,
        "TOOL_CALL_RESULT",
        { messageId: `${event.toolCallId}:result`, toolCallId: event.toolCallId, content: textOf(event.result), role: "tool" },
        ts,
        sub,
      );
      const current = st.state.tools[event.toolCallId]?.status;
      setToolStatus(st, event.toolCallId, current === "denied" ? "denied" : event.isError ? "error" : "done", ts, event.durationMs);
      return;
    }
    case "approval_request": {
      const request = event.request;
      if (!st.state.tools[request.toolCallId]) startTool(st, request.toolCallId, request.name, request.args, depth, parentId, ts);
      st.interrupts.set(request.requestId, {
        id: request.requestId,
        reason: "tool_approval",
        message: request.reason || `Approve ${request.name}?`,
        toolCallId: request.toolCallId,
        ...(sub && { subagentRunId: sub }),
        responseSchema: APPROVAL_SCHEMA,
        metadata: { name: request.name, args: request.args ?? null, depth },
      });
      setToolStatus(st, request.toolCallId, "awaiting_approval", ts);
      emit(st, "CUSTOM", { name: "agentry.approval_request", value: request }, ts);
      return;
    }
    case "approval_resolved": {
      const toolCallId = st.interrupts.get(event.requestId)?.toolCallId;
      st.interrupts.delete(event.requestId);
      if (toolCallId !== undefined) setToolStatus(st, toolCallId, event.approved ? "running" : "denied", ts);
      emit(
        st,
        "CUSTOM",
        {
          name: "agentry.approval_resolved",
          value: { requestId: event.requestId, approved: event.approved, ...(event.reason !== undefined && { reason: event.reason }) },
        },
        ts,
      );
      return;
    }
    default:
      return;
  }
}

/** Usage, budget, warnings, errors, the end, tasks, plans, questions, other custom events (and types this version does not know). */
function translateOtherEvent(st: AgUiTranslatorState, event: DeliverableEvent): void {
  const { depth, parentId, ts } = event;
  const level = parentId ?? "";
  const sub = parentId ?? undefined;
  switch (event.type) {
    case "usage": {
      const entry = st.usage.get(event.model) ?? { model: event.model, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
      entry.inputTokens += event.inputTokens;
      entry.outputTokens += event.outputTokens;
      entry.totalTokens = entry.inputTokens + entry.outputTokens;
      st.usage.set(event.model, entry);
      return;
    }
    case "budget_exceeded":
      st.state.budgetExceeded = { reason: event.reason, limit: event.limit, observed: event.observed };
      patch(st, [{ op: "replace", path: "/budgetExceeded", value: st.state.budgetExceeded }], ts);
      emit(st, "CUSTOM", { name: "agentry.budget_exceeded", value: { ...st.state.budgetExceeded, depth, parentId } }, ts);
      return;
    case "warning":
      emit(st, "CUSTOM", { name: "agentry.warning", value: { code: event.code, message: event.message, depth, parentId } }, ts);
      return;
    case "error":
      if (depth === 0) st.rootError = event.message;
      else emit(st, "CUSTOM", { name: "agentry.error", value: { message: event.message, depth, parentId } }, ts);
      return;
    case "done":
      if (depth === 0) finishRun(st, event);
      return;
    case "task_status":
      st.state.task = { taskId: event.taskId, status: event.to };
      patch(st, [{ op: "replace", path: "/task", value: st.state.task }], ts);
      // A task that left review no longer waits on its plan.
      if (event.to !== "awaiting_review") for (const [id, i] of st.interrupts) if (i.reason === "plan_review") st.interrupts.delete(id);
      emit(st, "CUSTOM", { name: "agentry.task_status", value: { taskId: event.taskId, from: event.from, to: event.to } }, ts);
      return;
    case "plan_ready":
      st.state.plan = { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan };
      patch(st, [{ op: "replace", path: "/plan", value: st.state.plan }], ts);
      st.interrupts.set(event.artifactId, {
        id: event.artifactId,
        reason: "plan_review",
        message: event.plan.goal,
        responseSchema: PLAN_REVIEW_SCHEMA,
        metadata: { plan: event.plan, taskId: event.taskId ?? null },
      });
      emit(st, "CUSTOM", { name: "agentry.plan_ready", value: { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan } }, ts);
      return;
    case "question": {
      const q = event.question;
      const values = q.options.map((o) => o.value);
      const responseSchema = q.allow_custom
        ? { type: "object", properties: { value: { enum: values }, text: { type: "string" } } }
        : { type: "object", properties: { value: { enum: values } }, required: ["value"] };
      st.interrupts.set(event.questionId, {
        id: event.questionId,
        reason: "question",
        message: q.question,
        ...(sub && { subagentRunId: sub }),
        responseSchema,
        metadata: { question: q },
      });
      const call = event.toolCallId !== undefined ? { toolCallId: event.toolCallId } : {};
      emit(st, "CUSTOM", { name: "agentry.question", value: { questionId: event.questionId, ...call, question: q, depth, parentId } }, ts);
      return;
    }
    case "planning_started":
    case "artifact_created":
    case "role_changed":
    case "message_stream_cancelled": {
      const { type, depth: _d, parentId: _p, sessionId: _s, agentId: _a, runId: _r, seq: _q, ts: _t, ...value } = event;
      if (type === "message_stream_cancelled") closeText(st, level, ts);
      emit(st, "CUSTOM", { name: `agentry.${type}`, value }, ts);
      return;
    }
    default:
      // A type this version does not know (a newer runtime): nothing to send, not an error.
      return;
  }
}

function emit(st: AgUiTranslatorState, type: AgUiEventType, fields: Record<string, unknown>, ts?: number, subagentRunId?: string | null): void {
  const event: AgUiEvent = { type, ...fields };
  if (ts !== undefined && Number.isSafeInteger(ts)) event.timestamp = ts;
  if (subagentRunId) event.subagentRunId = subagentRunId;
  st.out.push(event);
}
function patch(st: AgUiTranslatorState, ops: Record<string, unknown>[], ts?: number): void {
  emit(st, "STATE_DELTA", { delta: ops }, ts);
}

function closeText(st: AgUiTranslatorState, level: string, ts?: number): void {
  const id = st.texts.get(level);
  if (id === undefined) return;
  st.texts.delete(level);
  emit(st, "TEXT_MESSAGE_END", { messageId: id }, ts, level || undefined);
}
function closeReasoning(st: AgUiTranslatorState, level: string, ts?: number): void {
  const id = st.reasonings.get(level);
  if (id === undefined) return;
  st.reasonings.delete(level);
  emit(st, "REASONING_MESSAGE_END", { messageId: id }, ts, level || undefined);
  emit(st, "REASONING_END", { messageId: id }, ts, level || undefined);
}
function closeLevel(st: AgUiTranslatorState, level: string, ts?: number): void {
  closeReasoning(st, level, ts);
  closeText(st, level, ts);
}

function startRun(st: AgUiTranslatorState, event: DeliverableEvent): void {
  st.runId = st.options.runId ?? event.runId ?? globalThis.crypto.randomUUID();
  st.threadId = st.options.threadId ?? event.sessionId ?? "agentry";
  st.state = { tools: {}, task: st.state.task, plan: st.state.plan, budgetExceeded: null };
  emit(st, "RUN_STARTED", { threadId: st.threadId, runId: st.runId, protocolVersion: "1.0" }, event.ts);
  emit(st, "STATE_SNAPSHOT", { snapshot: st.state }, event.ts);
}

function startTool(st: AgUiTranslatorState, toolCallId: string, name: string, args: unknown, depth: number, parentId: string | null, ts?: number): void {
  emit(st, "TOOL_CALL_START", { toolCallId, toolCallName: name }, ts, parentId);
  emit(st, "TOOL_CALL_ARGS", { toolCallId, delta: JSON.stringify(args ?? {}) }, ts, parentId);
  emit(st, "TOOL_CALL_END", { toolCallId }, ts, parentId);
  const title = name === "run_subtask" ? (args as { title?: unknown } | null)?.title : undefined;
  const entry: AgUiAgentState["tools"][string] = { name, parentId, depth, status: "running", ...(typeof title === "string" && { title }) };
  st.state.tools[toolCallId] = entry;
  patch(st, [{ op: "add", path: pointer("tools", toolCallId), value: entry }], ts);
  if (name === "run_subtask") {
    st.openSubagents.add(toolCallId);
    emit(
      st,
      "SUBAGENT_STARTED",
      {
        subagentRunId: toolCallId,
        name: "run_subtask",
        ...(typeof title === "string" && { description: title }),
        parentToolCallId: toolCallId,
        ...(parentId && { parentSubagentRunId: parentId }),
      },
      ts,
    );
  }
}
function setToolStatus(st: AgUiTranslatorState, toolCallId: string, status: AgUiAgentState["tools"][string]["status"], ts?: number, durationMs?: number): void {
  const entry = st.state.tools[toolCallId];
  if (!entry) return;
  entry.status = status;
  const ops: Record<string, unknown>[] = [{ op: "replace", path: pointer("tools", toolCallId, "status"), value: status }];
  if (durationMs !== undefined) {
    entry.durationMs = durationMs;
    ops.push({ op: "add", path: pointer("tools", toolCallId, "durationMs"), value: durationMs });
  }
  patch(st, ops, ts);
}

function finishRun(st: AgUiTranslatorState, event: Extract<DeliverableEvent, { type: "done" }> | undefined): void {
  const ts = event?.ts;
  for (const level of [...new Set([...st.texts.keys(), ...st.reasonings.keys()])]) closeLevel(st, level, ts);
  const pending = [...st.interrupts.values()];
  for (const subagent of st.openSubagents) {
    const ids = pending.filter((i) => i.subagentRunId === subagent || st.state.tools[i.toolCallId ?? ""]?.parentId === subagent).map((i) => i.id);
    emit(st, "SUBAGENT_FINISHED", { subagentRunId: subagent, outcome: { type: "suspended", ...(ids.length > 0 && { interruptIds: ids }) } }, ts);
  }
  st.openSubagents.clear();
  const usageList = [...st.usage.values()];
  const usageField = usageList.length > 0 ? { usage: usageList } : {};
  const result = event?.result;
  const status = result?.status ?? "error";
  if (status === "complete" || status === "suspended") {
    const outcome = pending.length > 0 ? { type: "interrupt", interrupts: pending } : { type: "success" };
    emit(st, "RUN_FINISHED", { threadId: st.threadId, runId: st.runId, ...(result?.text && { result: result.text }), outcome, ...usageField }, ts);
  } else if (status === "aborted") {
    emit(st, "RUN_FINISHED", { threadId: st.threadId, runId: st.runId, outcome: { type: "cancelled" }, ...usageField }, ts);
  } else {
    const message = result?.error?.message ?? st.rootError ?? "The event stream ended before the turn finished";
    emit(st, "RUN_ERROR", { message, code: result ? status : "incomplete", ...usageField }, ts);
  }
  st.runId = undefined;
  st.interrupts.clear();
  st.usage.clear();
  st.rootError = undefined;
}

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
 *   changes, "deciding" / "preparing") → `CUSTOM` `agentry.<type>`.
 *
 * Several turns in one source (a session followed with `EventLog.resume`) become several runs.
 *
 * @example
 * ```ts
 * for await (const event of toAgUiEvents(runtime.stream({ agentId, content }))) write(`data: ${JSON.stringify(event)}\n\n`);
 * ```
 */
export async function* toAgUiEvents(events: AsyncIterable<DeliverableEvent>, options: AgUiEventsOptions = {}): AsyncGenerator<AgUiEvent> {
  const translator = createAgUiTranslator(options);
  try {
    for await (const event of events) yield* translator.push(event);
  } catch (error) {
    yield* translator.end(error);
    return;
  }
  yield* translator.end();
}
