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
  const out: AgUiEvent[] = [];
  let runId: string | undefined;
  let threadId = "agentry";
  let state: AgUiAgentState = { tools: {}, task: null, plan: null, budgetExceeded: null };
  /** Open text / reasoning message per level ("" = root, else the run_subtask id). */
  const texts = new Map<string, string>();
  const reasonings = new Map<string, string>();
  const openSubagents = new Set<string>();
  const interrupts = new Map<string, AgUiInterrupt>();
  const usage = new Map<string, { model: string; inputTokens: number; outputTokens: number; totalTokens: number }>();
  let counter = 0;
  let rootError: string | undefined;

  const emit = (type: AgUiEventType, fields: Record<string, unknown>, ts?: number, subagentRunId?: string | null) => {
    const event: AgUiEvent = { type, ...fields };
    if (ts !== undefined && Number.isSafeInteger(ts)) event.timestamp = ts;
    if (subagentRunId) event.subagentRunId = subagentRunId;
    out.push(event);
  };
  const patch = (ops: Record<string, unknown>[], ts?: number) => emit("STATE_DELTA", { delta: ops }, ts);

  const closeText = (level: string, ts?: number) => {
    const id = texts.get(level);
    if (id === undefined) return;
    texts.delete(level);
    emit("TEXT_MESSAGE_END", { messageId: id }, ts, level || undefined);
  };
  const closeReasoning = (level: string, ts?: number) => {
    const id = reasonings.get(level);
    if (id === undefined) return;
    reasonings.delete(level);
    emit("REASONING_MESSAGE_END", { messageId: id }, ts, level || undefined);
    emit("REASONING_END", { messageId: id }, ts, level || undefined);
  };
  const closeLevel = (level: string, ts?: number) => {
    closeReasoning(level, ts);
    closeText(level, ts);
  };

  const startRun = (event: DeliverableEvent) => {
    runId = options.runId ?? event.runId ?? globalThis.crypto.randomUUID();
    threadId = options.threadId ?? event.sessionId ?? "agentry";
    state = { tools: {}, task: state.task, plan: state.plan, budgetExceeded: null };
    emit("RUN_STARTED", { threadId, runId, protocolVersion: "1.0" }, event.ts);
    emit("STATE_SNAPSHOT", { snapshot: state }, event.ts);
  };

  const startTool = (toolCallId: string, name: string, args: unknown, depth: number, parentId: string | null, ts?: number) => {
    emit("TOOL_CALL_START", { toolCallId, toolCallName: name }, ts, parentId);
    emit("TOOL_CALL_ARGS", { toolCallId, delta: JSON.stringify(args ?? {}) }, ts, parentId);
    emit("TOOL_CALL_END", { toolCallId }, ts, parentId);
    const title = name === "run_subtask" ? (args as { title?: unknown } | null)?.title : undefined;
    const entry: AgUiAgentState["tools"][string] = { name, parentId, depth, status: "running", ...(typeof title === "string" && { title }) };
    state.tools[toolCallId] = entry;
    patch([{ op: "add", path: pointer("tools", toolCallId), value: entry }], ts);
    if (name === "run_subtask") {
      openSubagents.add(toolCallId);
      emit(
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
  };
  const setToolStatus = (toolCallId: string, status: AgUiAgentState["tools"][string]["status"], ts?: number, durationMs?: number) => {
    const entry = state.tools[toolCallId];
    if (!entry) return;
    entry.status = status;
    const ops: Record<string, unknown>[] = [{ op: "replace", path: pointer("tools", toolCallId, "status"), value: status }];
    if (durationMs !== undefined) {
      entry.durationMs = durationMs;
      ops.push({ op: "add", path: pointer("tools", toolCallId, "durationMs"), value: durationMs });
    }
    patch(ops, ts);
  };

  const finishRun = (event: Extract<DeliverableEvent, { type: "done" }> | undefined) => {
    const ts = event?.ts;
    for (const level of [...new Set([...texts.keys(), ...reasonings.keys()])]) closeLevel(level, ts);
    const pending = [...interrupts.values()];
    for (const subagent of openSubagents) {
      const ids = pending.filter((i) => i.subagentRunId === subagent || state.tools[i.toolCallId ?? ""]?.parentId === subagent).map((i) => i.id);
      emit("SUBAGENT_FINISHED", { subagentRunId: subagent, outcome: { type: "suspended", ...(ids.length > 0 && { interruptIds: ids }) } }, ts);
    }
    openSubagents.clear();
    const usageList = [...usage.values()];
    const usageField = usageList.length > 0 ? { usage: usageList } : {};
    const result = event?.result;
    const status = result?.status ?? "error";
    if (status === "complete" || status === "suspended") {
      const outcome = pending.length > 0 ? { type: "interrupt", interrupts: pending } : { type: "success" };
      emit("RUN_FINISHED", { threadId, runId, ...(result?.text && { result: result.text }), outcome, ...usageField }, ts);
    } else if (status === "aborted") {
      emit("RUN_FINISHED", { threadId, runId, outcome: { type: "cancelled" }, ...usageField }, ts);
    } else {
      const message = result?.error?.message ?? rootError ?? "The event stream ended before the turn finished";
      emit("RUN_ERROR", { message, code: result ? status : "incomplete", ...usageField }, ts);
    }
    runId = undefined;
    interrupts.clear();
    usage.clear();
    rootError = undefined;
  };

  const translate = (event: DeliverableEvent) => {
    if (runId === undefined) startRun(event);
    const { depth, parentId, ts } = event;
    const level = parentId ?? "";
    const sub = parentId ?? undefined;
    switch (event.type) {
      case "chunk": {
        if (event.content !== "") {
          closeReasoning(level, ts);
          let id = texts.get(level);
          if (id === undefined) {
            id = event.streamId ?? `${runId}:text:${++counter}`;
            texts.set(level, id);
            emit("TEXT_MESSAGE_START", { messageId: id, role: "assistant" }, ts, sub);
          }
          emit("TEXT_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, sub);
        }
        if (event.done) closeText(level, ts);
        return;
      }
      case "thinking": {
        closeText(level, ts);
        let id = reasonings.get(level);
        if (id === undefined) {
          id = `${runId}:reasoning:${++counter}`;
          reasonings.set(level, id);
          emit("REASONING_START", { messageId: id }, ts, sub);
          emit("REASONING_MESSAGE_START", { messageId: id, role: "reasoning" }, ts, sub);
        }
        emit("REASONING_MESSAGE_CONTENT", { messageId: id, delta: event.content }, ts, sub);
        return;
      }
      case "message":
        closeLevel(level, ts);
        return;
      case "llm_call_start":
        closeLevel(level, ts);
        emit("CUSTOM", { name: "agentry.deciding", value: { depth, parentId, iteration: event.iteration } }, ts);
        return;
      case "tool_calls_preparing":
        closeLevel(level, ts);
        emit("CUSTOM", { name: "agentry.tool_calls_preparing", value: { depth, parentId, names: event.names } }, ts);
        return;
      case "tool_call_update": {
        closeLevel(level, ts);
        if (event.status === "start") {
          startTool(event.toolCallId, event.name, event.args, depth, parentId, ts);
          return;
        }
        if (!state.tools[event.toolCallId]) startTool(event.toolCallId, event.name, null, depth, parentId, ts);
        if (openSubagents.delete(event.toolCallId)) {
          if (event.isError) emit("SUBAGENT_ERROR", { subagentRunId: event.toolCallId, message: textOf(event.result) }, ts);
          else emit("SUBAGENT_FINISHED", { subagentRunId: event.toolCallId, result: event.result ?? null, outcome: { type: "success" } }, ts);
        }
        emit(
          "TOOL_CALL_RESULT",
          { messageId: `${event.toolCallId}:result`, toolCallId: event.toolCallId, content: textOf(event.result), role: "tool" },
          ts,
          sub,
        );
        const current = state.tools[event.toolCallId]?.status;
        setToolStatus(event.toolCallId, current === "denied" ? "denied" : event.isError ? "error" : "done", ts, event.durationMs);
        return;
      }
      case "approval_request": {
        const request = event.request;
        if (!state.tools[request.toolCallId]) startTool(request.toolCallId, request.name, request.args, depth, parentId, ts);
        interrupts.set(request.requestId, {
          id: request.requestId,
          reason: "tool_approval",
          message: request.reason || `Approve ${request.name}?`,
          toolCallId: request.toolCallId,
          ...(sub && { subagentRunId: sub }),
          responseSchema: APPROVAL_SCHEMA,
          metadata: { name: request.name, args: request.args ?? null, depth },
        });
        setToolStatus(request.toolCallId, "awaiting_approval", ts);
        emit("CUSTOM", { name: "agentry.approval_request", value: request }, ts);
        return;
      }
      case "approval_resolved": {
        const toolCallId = interrupts.get(event.requestId)?.toolCallId;
        interrupts.delete(event.requestId);
        if (toolCallId !== undefined) setToolStatus(toolCallId, event.approved ? "running" : "denied", ts);
        emit(
          "CUSTOM",
          {
            name: "agentry.approval_resolved",
            value: { requestId: event.requestId, approved: event.approved, ...(event.reason !== undefined && { reason: event.reason }) },
          },
          ts,
        );
        return;
      }
      case "usage": {
        const entry = usage.get(event.model) ?? { model: event.model, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
        entry.inputTokens += event.inputTokens;
        entry.outputTokens += event.outputTokens;
        entry.totalTokens = entry.inputTokens + entry.outputTokens;
        usage.set(event.model, entry);
        return;
      }
      case "budget_exceeded":
        state.budgetExceeded = { reason: event.reason, limit: event.limit, observed: event.observed };
        patch([{ op: "replace", path: "/budgetExceeded", value: state.budgetExceeded }], ts);
        emit("CUSTOM", { name: "agentry.budget_exceeded", value: { ...state.budgetExceeded, depth, parentId } }, ts);
        return;
      case "warning":
        emit("CUSTOM", { name: "agentry.warning", value: { code: event.code, message: event.message, depth, parentId } }, ts);
        return;
      case "error":
        if (depth === 0) rootError = event.message;
        else emit("CUSTOM", { name: "agentry.error", value: { message: event.message, depth, parentId } }, ts);
        return;
      case "done":
        if (depth === 0) finishRun(event);
        return;
      case "task_status":
        state.task = { taskId: event.taskId, status: event.to };
        patch([{ op: "replace", path: "/task", value: state.task }], ts);
        // A task that left review no longer waits on its plan.
        if (event.to !== "awaiting_review") for (const [id, i] of interrupts) if (i.reason === "plan_review") interrupts.delete(id);
        emit("CUSTOM", { name: "agentry.task_status", value: { taskId: event.taskId, from: event.from, to: event.to } }, ts);
        return;
      case "plan_ready":
        state.plan = { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan };
        patch([{ op: "replace", path: "/plan", value: state.plan }], ts);
        interrupts.set(event.artifactId, {
          id: event.artifactId,
          reason: "plan_review",
          message: event.plan.goal,
          responseSchema: PLAN_REVIEW_SCHEMA,
          metadata: { plan: event.plan, taskId: event.taskId ?? null },
        });
        emit("CUSTOM", { name: "agentry.plan_ready", value: { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan } }, ts);
        return;
      case "question": {
        const q = event.question;
        const values = q.options.map((o) => o.value);
        const responseSchema = q.allow_custom
          ? { type: "object", properties: { value: { enum: values }, text: { type: "string" } } }
          : { type: "object", properties: { value: { enum: values } }, required: ["value"] };
        interrupts.set(event.questionId, {
          id: event.questionId,
          reason: "question",
          message: q.question,
          ...(sub && { subagentRunId: sub }),
          responseSchema,
          metadata: { question: q },
        });
        emit("CUSTOM", { name: "agentry.question", value: { questionId: event.questionId, question: q, depth, parentId } }, ts);
        return;
      }
      case "planning_started":
      case "artifact_created":
      case "role_changed":
      case "message_stream_cancelled": {
        const { type, depth: _d, parentId: _p, sessionId: _s, agentId: _a, runId: _r, seq: _q, ts: _t, ...value } = event;
        if (type === "message_stream_cancelled") closeText(level, ts);
        emit("CUSTOM", { name: `agentry.${type}`, value }, ts);
        return;
      }
      case "message_stream_started":
        closeLevel(level, ts);
        texts.set(level, event.streamId);
        emit("TEXT_MESSAGE_START", { messageId: event.streamId, role: "assistant" }, ts, sub);
        return;
      case "message_stream_completed":
        if (texts.get(level) === event.streamId) closeText(level, ts);
        return;
      default:
        // A type this version does not know (a newer runtime): nothing to send, not an error.
        return;
    }
  };

  return {
    /** The AG-UI events `event` becomes. */
    push(event: DeliverableEvent): AgUiEvent[] {
      translate(event);
      return out.splice(0);
    },
    /** Ends an open run (`RUN_ERROR`, code `incomplete`, or the given error's message). */
    end(error?: unknown): AgUiEvent[] {
      if (runId !== undefined) {
        if (error !== undefined) rootError = error instanceof Error ? error.message : textOf(error);
        finishRun(undefined);
      }
      return out.splice(0);
    },
  };
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
