import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import { errorTextOf, maskErrors, type UiErrorHandler, type UiErrorInfo } from "./ui-errors.js";
import { handleEvent, type EventHandlers, type EventOf } from "./event-handlers.js";

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
  /**
   * The text the client gets for an error (a tool call's error result, a sub-task's failure, the
   * run's error, a failure of the stream): return `error.message` to show it as is.
   * @default every error masked as "An error occurred."
   */
  onError?: UiErrorHandler;
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
      /** `awaiting_client`: a client tool's call (a tool with no `execute`), for the client to run. */
      status: "running" | "awaiting_approval" | "awaiting_client" | "done" | "error" | "denied";
      durationMs?: number;
    }
  >;
  task: { taskId: string; status: string } | null;
  plan: { artifactId: string; taskId: string | null; plan: unknown } | null;
  budgetExceeded: { reason: string; limit: number; observed: number } | null;
}

const APPROVAL_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string" } },
  required: ["approved"],
};
const PLAN_REVIEW_SCHEMA = {
  type: "object",
  properties: { decision: { enum: ["approve", "revise"] }, feedback: { type: "string" } },
  required: ["decision"],
};

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const pointer = (...tokens: string[]) =>
  tokens.map((t) => "/" + t.replaceAll("~", "~0").replaceAll("/", "~1")).join("");
/** The text the client gets for an error: what the host's `onError` makes of it (masked by default). */
const masked = (st: AgUiTranslatorState, error: UiErrorInfo): string =>
  errorTextOf(st.options.onError ?? maskErrors, error);

/** A tool call's error result as the client gets it. */
const toolError = (st: AgUiTranslatorState, event: EventOf<"tool_call_update">): string =>
  masked(st, {
    kind: "tool",
    message: textOf(event.result),
    toolCallId: event.toolCallId,
    name: event.name,
    depth: event.depth,
  });

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
    inputs: new Map(),
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
        if (error !== undefined) {
          const message = error instanceof Error ? error.message : textOf(error);
          st.rootError = masked(st, { kind: "stream", message, depth: 0 });
        }
        finishRun(st, undefined);
      }
      return st.out.splice(0);
    },
  };
}

/** What one translator keeps between events. */
export interface AgUiTranslatorState {
  options: AgUiEventsOptions;
  out: AgUiEvent[];
  runId: string | undefined;
  threadId: string;
  state: AgUiAgentState;
  /** Open text / reasoning message per level ("" = root, else the run_subtask id). */
  texts: Map<string, string>;
  reasonings: Map<string, string>;
  openSubagents: Set<string>;
  /** Calls whose arguments are streaming (`TOOL_CALL_START` sent, not ended), by id: their level. */
  inputs: Map<string, string>;
  interrupts: Map<string, AgUiInterrupt>;
  usage: Map<string, { model: string; inputTokens: number; outputTokens: number; totalTokens: number }>;
  counter: number;
  rootError: string | undefined;
}

/** One Agentry event's AG-UI events into `st.out`. */
function translateEvent(st: AgUiTranslatorState, event: DeliverableEvent): void {
  if (st.runId === undefined) startRun(st, event);
  handleEvent(AG_UI_HANDLERS, st, event);
}

/** The level an event belongs to: "" for the root, else its `run_subtask` call's id. */
const levelOf = (event: DeliverableEvent) => event.parentId ?? "";
/** The subagent run an event belongs to (its `run_subtask` call), none at the root. */
const subagentOf = (event: DeliverableEvent) => event.parentId ?? undefined;

/** Each event type's AG-UI events (exported for the completeness check in the tests). */
export const AG_UI_HANDLERS: EventHandlers<AgUiTranslatorState> = {
  chunk(st, event) {
    const [level, ts] = [levelOf(event), event.ts];
    if (event.content !== "") {
      closeReasoning(st, level, ts);
      let id = st.texts.get(level);
      if (id === undefined) {
        id = event.streamId ?? `${st.runId}:text:${++st.counter}`;
        st.texts.set(level, id);
        emit(st, "TEXT_MESSAGE_START", { messageId: id, role: "assistant" }, ts, subagentOf(event));
      }
      emit(st, "TEXT_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, subagentOf(event));
    }
    if (event.done) closeText(st, level, ts);
  },
  thinking(st, event) {
    const [level, ts, sub] = [levelOf(event), event.ts, subagentOf(event)];
    closeText(st, level, ts);
    let id = st.reasonings.get(level);
    if (id === undefined) {
      id = `${st.runId}:reasoning:${++st.counter}`;
      st.reasonings.set(level, id);
      emit(st, "REASONING_START", { messageId: id }, ts, sub);
      emit(st, "REASONING_MESSAGE_START", { messageId: id, role: "reasoning" }, ts, sub);
    }
    emit(st, "REASONING_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, sub);
  },
  message(st, event) {
    closeLevel(st, levelOf(event), event.ts);
    // The response is complete: a streamed call that is not in it was cut off (it never starts).
    const { message } = event;
    if (message.role === "assistant") {
      const kept = new Set(message.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : [])));
      endInputs(st, levelOf(event), event.ts, kept);
    }
  },
  llm_call_start(st, event) {
    closeLevel(st, levelOf(event), event.ts);
    endInputs(st, levelOf(event), event.ts);
    emit(
      st,
      "CUSTOM",
      { name: "agentry.deciding", value: { depth: event.depth, parentId: event.parentId, iteration: event.iteration } },
      event.ts,
    );
  },
  tool_calls_preparing(st, event) {
    closeLevel(st, levelOf(event), event.ts);
    emit(
      st,
      "CUSTOM",
      {
        name: "agentry.tool_calls_preparing",
        value: { depth: event.depth, parentId: event.parentId, names: event.names },
      },
      event.ts,
    );
  },
  tool_input_delta(st, event) {
    const { toolCallId, ts, parentId } = event;
    if (st.state.tools[toolCallId]) return; // already started whole
    if (!st.inputs.has(toolCallId)) {
      closeLevel(st, levelOf(event), ts);
      st.inputs.set(toolCallId, levelOf(event));
      emit(st, "TOOL_CALL_START", { toolCallId, toolCallName: event.name }, ts, parentId);
    }
    if (event.delta !== "") emit(st, "TOOL_CALL_ARGS", { toolCallId, delta: event.delta }, ts, parentId);
  },
  tool_progress(st, event) {
    const { toolCallId, name, progress, depth, parentId } = event;
    emit(
      st,
      "CUSTOM",
      { name: "agentry.tool_progress", value: { toolCallId, name, progress, depth, parentId } },
      event.ts,
    );
  },
  tool_log(st, event) {
    const { toolCallId, name, level, message, depth, parentId } = event;
    emit(
      st,
      "CUSTOM",
      { name: "agentry.tool_log", value: { toolCallId, name, level, message, depth, parentId } },
      event.ts,
    );
  },
  message_stream_started(st, event) {
    closeLevel(st, levelOf(event), event.ts);
    st.texts.set(levelOf(event), event.streamId);
    emit(st, "TEXT_MESSAGE_START", { messageId: event.streamId, role: "assistant" }, event.ts, subagentOf(event));
  },
  message_stream_completed(st, event) {
    if (st.texts.get(levelOf(event)) === event.streamId) closeText(st, levelOf(event), event.ts);
  },
  message_stream_cancelled(st, event) {
    closeText(st, levelOf(event), event.ts);
    customOf(st, event);
  },
  tool_call_update: toolCallUpdate,
  approval_request: approvalRequest,
  client_tool_call(st, event) {
    // The call ended at its TOOL_CALL_END with no result: the client runs it (AG-UI's frontend tools).
    const { request, depth, parentId, ts } = event;
    if (!st.state.tools[request.toolCallId])
      startTool(st, request.toolCallId, request.name, request.args, depth, parentId, ts);
    setToolStatus(st, request.toolCallId, "awaiting_client", ts);
    emit(st, "CUSTOM", { name: "agentry.client_tool_call", value: request }, ts);
  },
  approval_resolved(st, event) {
    const toolCallId = st.interrupts.get(event.requestId)?.toolCallId;
    st.interrupts.delete(event.requestId);
    if (toolCallId !== undefined) setToolStatus(st, toolCallId, event.approved ? "running" : "denied", event.ts);
    emit(
      st,
      "CUSTOM",
      {
        name: "agentry.approval_resolved",
        value: {
          requestId: event.requestId,
          approved: event.approved,
          ...(event.reason !== undefined && { reason: event.reason }),
        },
      },
      event.ts,
    );
  },
  message_queued(st, event) {
    // The message was stored behind a pending decision: the run ends here, its turn runs later.
    emit(
      st,
      "CUSTOM",
      {
        name: "agentry.message_queued",
        value: {
          ...(event.queuedMessageId !== undefined && { queuedMessageId: event.queuedMessageId }),
          runId: event.runId,
          pendingRequestIds: event.pendingRequestIds,
        },
      },
      event.ts,
    );
    if (event.depth === 0) finishRun(st, undefined, event.ts);
  },
  usage(st, event) {
    const entry = st.usage.get(event.model) ?? { model: event.model, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    entry.inputTokens += event.inputTokens;
    entry.outputTokens += event.outputTokens;
    entry.totalTokens = entry.inputTokens + entry.outputTokens;
    st.usage.set(event.model, entry);
  },
  budget_exceeded(st, event) {
    st.state.budgetExceeded = { reason: event.reason, limit: event.limit, observed: event.observed };
    patch(st, [{ op: "replace", path: "/budgetExceeded", value: st.state.budgetExceeded }], event.ts);
    const value = { ...st.state.budgetExceeded, depth: event.depth, parentId: event.parentId };
    emit(st, "CUSTOM", { name: "agentry.budget_exceeded", value }, event.ts);
  },
  guardrail_tripped(st, event) {
    const value = { guard: event.guard, reason: event.reason, depth: event.depth, parentId: event.parentId };
    emit(st, "CUSTOM", { name: "agentry.guardrail_tripped", value }, event.ts);
  },
  warning(st, event) {
    const value = { code: event.code, message: event.message, depth: event.depth, parentId: event.parentId };
    emit(st, "CUSTOM", { name: "agentry.warning", value }, event.ts);
  },
  error(st, event) {
    const info: UiErrorInfo = { kind: "turn", message: event.message, depth: event.depth };
    if (event.code !== undefined) info.code = event.code;
    const message = masked(st, info);
    if (event.depth === 0) st.rootError = message;
    else
      emit(
        st,
        "CUSTOM",
        { name: "agentry.error", value: { message, depth: event.depth, parentId: event.parentId } },
        event.ts,
      );
  },
  done(st, event) {
    if (event.depth === 0) finishRun(st, event);
  },
  task_status(st, event) {
    st.state.task = { taskId: event.taskId, status: event.to };
    patch(st, [{ op: "replace", path: "/task", value: st.state.task }], event.ts);
    // A task that left review no longer waits on its plan.
    if (event.to !== "awaiting_review")
      for (const [id, i] of st.interrupts) if (i.reason === "plan_review") st.interrupts.delete(id);
    emit(
      st,
      "CUSTOM",
      { name: "agentry.task_status", value: { taskId: event.taskId, from: event.from, to: event.to } },
      event.ts,
    );
  },
  plan_ready(st, event) {
    st.state.plan = { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan };
    patch(st, [{ op: "replace", path: "/plan", value: st.state.plan }], event.ts);
    st.interrupts.set(event.artifactId, {
      id: event.artifactId,
      reason: "plan_review",
      message: event.plan.goal,
      responseSchema: PLAN_REVIEW_SCHEMA,
      metadata: { plan: event.plan, taskId: event.taskId ?? null },
    });
    const value = { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan };
    emit(st, "CUSTOM", { name: "agentry.plan_ready", value }, event.ts);
  },
  question,
  planning_started: customOf,
  artifact_created: customOf,
  role_changed: customOf,
  message_steered: customOf,
  turn_stopped: customOf,
  context_compacted: customOf,
  subagent_status: null,
};

/** An event as `CUSTOM` `agentry.<type>`, its fields (without the delivery stamp and level) as the value. */
function customOf(
  st: AgUiTranslatorState,
  event: EventOf<
    | "planning_started"
    | "artifact_created"
    | "role_changed"
    | "message_stream_cancelled"
    | "message_steered"
    | "turn_stopped"
    | "context_compacted"
  >,
): void {
  const { type, depth: _d, parentId: _p, sessionId: _s, agentId: _a, runId: _r, seq: _q, ts: _t, ...value } = event;
  emit(st, "CUSTOM", { name: `agentry.${type}`, value }, event.ts);
}

/** A tool call's start or end (a `run_subtask` call's end also ends its subagent). */
function toolCallUpdate(st: AgUiTranslatorState, event: EventOf<"tool_call_update">): void {
  const { depth, parentId, ts } = event;
  closeLevel(st, levelOf(event), ts);
  if (event.status === "start") {
    startTool(st, event.toolCallId, event.name, event.args, depth, parentId, ts);
    return;
  }
  if (!st.state.tools[event.toolCallId]) startTool(st, event.toolCallId, event.name, null, depth, parentId, ts);
  if (st.openSubagents.delete(event.toolCallId)) {
    if (event.isError)
      emit(st, "SUBAGENT_ERROR", { subagentRunId: event.toolCallId, message: toolError(st, event) }, ts);
    else
      emit(
        st,
        "SUBAGENT_FINISHED",
        { subagentRunId: event.toolCallId, result: event.result ?? null, outcome: { type: "success" } },
        ts,
      );
  }
  emit(
    st,
    "TOOL_CALL_RESULT",
    {
      messageId: `${event.toolCallId}:result`,
      toolCallId: event.toolCallId,
      content: event.isError ? toolError(st, event) : textOf(event.result),
      role: "tool",
    },
    ts,
    subagentOf(event),
  );
  const current = st.state.tools[event.toolCallId]?.status;
  setToolStatus(
    st,
    event.toolCallId,
    current === "denied" ? "denied" : event.isError ? "error" : "done",
    ts,
    event.durationMs,
  );
}

/** An approval request: an interrupt (`tool_approval`) and the call awaiting approval. */
function approvalRequest(st: AgUiTranslatorState, event: EventOf<"approval_request">): void {
  const { request, depth, parentId, ts } = event;
  const sub = subagentOf(event);
  if (!st.state.tools[request.toolCallId])
    startTool(st, request.toolCallId, request.name, request.args, depth, parentId, ts);
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
}

/** A question: an interrupt (`question`) whose response schema offers its options. */
function question(st: AgUiTranslatorState, event: EventOf<"question">): void {
  const q = event.question;
  const sub = subagentOf(event);
  const values = q.options.map((o) => o.value);
  const responseSchema = q.allow_custom
    ? { type: "object", properties: { value: { enum: values }, text: { type: "string" } } }
    : { type: "object", properties: { value: { enum: values } }, required: ["value"] };
  st.interrupts.set(event.questionId, {
    id: event.questionId,
    reason: "question",
    message: q.question,
    ...(event.toolCallId !== undefined && { toolCallId: event.toolCallId }),
    ...(sub && { subagentRunId: sub }),
    responseSchema,
    metadata: { question: q },
  });
  const call = event.toolCallId !== undefined ? { toolCallId: event.toolCallId } : {};
  const value = { questionId: event.questionId, ...call, question: q, depth: event.depth, parentId: event.parentId };
  emit(st, "CUSTOM", { name: "agentry.question", value }, event.ts);
}

function emit(
  st: AgUiTranslatorState,
  type: AgUiEventType,
  fields: Record<string, unknown>,
  ts?: number,
  subagentRunId?: string | null,
): void {
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

/** A call that starts: its arguments whole (unless they streamed), then its entry in the state. */
function startTool(
  st: AgUiTranslatorState,
  toolCallId: string,
  name: string,
  args: unknown,
  depth: number,
  parentId: string | null,
  ts?: number,
): void {
  // A call whose arguments streamed had its TOOL_CALL_START and TOOL_CALL_ARGS already.
  if (!st.inputs.delete(toolCallId)) {
    emit(st, "TOOL_CALL_START", { toolCallId, toolCallName: name }, ts, parentId);
    emit(st, "TOOL_CALL_ARGS", { toolCallId, delta: JSON.stringify(args ?? {}) }, ts, parentId);
  }
  emit(st, "TOOL_CALL_END", { toolCallId }, ts, parentId);
  const title = name === "run_subtask" ? (args as { title?: unknown } | null)?.title : undefined;
  const entry: AgUiAgentState["tools"][string] = {
    name,
    parentId,
    depth,
    status: "running",
    ...(typeof title === "string" && { title }),
  };
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
/**
 * Ends the streamed calls of a level (every level when undefined) that will not start: all of them,
 * or those not in `kept` (the calls of the level's complete response). They get a `TOOL_CALL_END`
 * and nothing more: no result, no entry in the state.
 */
function endInputs(st: AgUiTranslatorState, level: string | undefined, ts?: number, kept?: ReadonlySet<string>): void {
  for (const [toolCallId, at] of st.inputs) {
    if ((level !== undefined && at !== level) || kept?.has(toolCallId)) continue;
    st.inputs.delete(toolCallId);
    emit(st, "TOOL_CALL_END", { toolCallId }, ts, at || undefined);
  }
}

function setToolStatus(
  st: AgUiTranslatorState,
  toolCallId: string,
  status: AgUiAgentState["tools"][string]["status"],
  ts?: number,
  durationMs?: number,
): void {
  const entry = st.state.tools[toolCallId];
  if (!entry) return;
  entry.status = status;
  const ops: Record<string, unknown>[] = [
    { op: "replace", path: pointer("tools", toolCallId, "status"), value: status },
  ];
  if (durationMs !== undefined) {
    entry.durationMs = durationMs;
    ops.push({ op: "add", path: pointer("tools", toolCallId, "durationMs"), value: durationMs });
  }
  patch(st, ops, ts);
}

/**
 * Ends the run: with the root `done`, else (`event` undefined) as incomplete, or, `queuedAt` given, as
 * finished (the message was stored behind a pending decision: its turn is a run of its own later).
 */
function finishRun(
  st: AgUiTranslatorState,
  event: Extract<DeliverableEvent, { type: "done" }> | undefined,
  queuedAt?: number,
): void {
  const ts = event?.ts ?? queuedAt;
  for (const level of [...new Set([...st.texts.keys(), ...st.reasonings.keys()])]) closeLevel(st, level, ts);
  endInputs(st, undefined, ts);
  const pending = [...st.interrupts.values()];
  for (const subagent of st.openSubagents) {
    const ids = pending
      .filter((i) => i.subagentRunId === subagent || st.state.tools[i.toolCallId ?? ""]?.parentId === subagent)
      .map((i) => i.id);
    emit(
      st,
      "SUBAGENT_FINISHED",
      { subagentRunId: subagent, outcome: { type: "suspended", ...(ids.length > 0 && { interruptIds: ids }) } },
      ts,
    );
  }
  st.openSubagents.clear();
  const usageList = [...st.usage.values()];
  const usageField = usageList.length > 0 ? { usage: usageList } : {};
  const result = event?.result;
  const status = result?.status ?? (queuedAt !== undefined ? "complete" : "error");
  if (status === "complete" || status === "suspended") {
    const outcome = pending.length > 0 ? { type: "interrupt", interrupts: pending } : { type: "success" };
    emit(
      st,
      "RUN_FINISHED",
      { threadId: st.threadId, runId: st.runId, ...(result?.text && { result: result.text }), outcome, ...usageField },
      ts,
    );
  } else if (status === "aborted") {
    emit(
      st,
      "RUN_FINISHED",
      { threadId: st.threadId, runId: st.runId, outcome: { type: "cancelled" }, ...usageField },
      ts,
    );
  } else {
    const error = result?.error;
    const message =
      error !== undefined
        ? masked(st, {
            kind: "turn",
            message: error.message,
            depth: 0,
            ...(error.code !== undefined && { code: error.code }),
          })
        : (st.rootError ?? "The event stream ended before the turn finished");
    emit(st, "RUN_ERROR", { message, code: result ? status : "incomplete", ...usageField }, ts);
  }
  st.runId = undefined;
  st.interrupts.clear();
  st.usage.clear();
  st.rootError = undefined;
}
