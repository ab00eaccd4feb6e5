import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import { handleEvent, type EventHandlers, type EventOf } from "./event-handlers.js";
import type { UiJsonValue, UiMessageChunk, UiToolMetadata } from "./ui-message-chunk.js";
import { errorTextOf, maskErrors, type UiErrorHandler, type UiErrorInfo } from "./ui-errors.js";

/** Options of `toUIMessageStream`. */
export interface UIMessageStreamOptions {
  /**
   * The id of the assistant message the stream builds. Pass the id of the message a resumed
   * turn continues (after an approval) so the client appends to it.
   * @default the `runId` of the first event, when it has one
   */
  messageId?: string;
  /**
   * The text the client gets for an error (a tool call's error result, the turn's error, a
   * failure of the stream), as the AI SDK's `onError`: return `error.message` to show it as is.
   * @default every error masked as "An error occurred."
   */
  onError?: UiErrorHandler;
}

const FINISH_REASONS: Record<string, Extract<UiMessageChunk, { type: "finish" }>["finishReason"]> = {
  complete: "stop",
  suspended: "tool-calls",
  error: "error",
  aborted: "other",
  budget_exceeded: "other",
  iteration_limit: "other",
  blocked: "content-filter",
};

const errorText = (value: unknown): string =>
  typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));

/** The text the client gets for an error: what the host's `onError` makes of it (masked by default). */
const masked = (st: TranslatorState, error: UiErrorInfo): string =>
  errorTextOf(st.options.onError ?? maskErrors, error);

/** Keeps the JSON-valued fields of an object (drops `undefined`), for metadata. */
function json(fields: Record<string, unknown>): Record<string, UiJsonValue> {
  const out: Record<string, UiJsonValue> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value as UiJsonValue;
  return out;
}

/**
 * Translates Agentry events into UI message stream chunks, one event at a time. `push` returns
 * the chunks an event becomes; `end` closes what is open and returns the final chunks (it is
 * called by `push` on the root `done`, and must be called when the events stop without one).
 * Used by `toUIMessageStream`; exported for hosts with their own transport.
 */
export function createUIMessageTranslator(options: UIMessageStreamOptions = {}) {
  const st: TranslatorState = {
    options,
    started: false,
    ended: false,
    stepOpen: false,
    textId: undefined,
    reasoningId: undefined,
    counter: 0,
    rootErrorSent: false,
    tools: new Map(),
    inputs: new Map(),
    approvals: new Map(),
    out: [],
    unpairedDenials: [],
  };
  return {
    /** The chunks `event` becomes (empty after the end). */
    push(event: DeliverableEvent): UiMessageChunk[] {
      if (event.type === "approval_request") st.approvals.set(event.request.requestId, event.request.toolCallId);
      translateEvent(st, event);
      return st.out.splice(0);
    },
    /** Closes open parts and finishes the message (no-op once finished). */
    end(error?: unknown): UiMessageChunk[] {
      if (error !== undefined && !st.ended) {
        const message = error instanceof Error ? error.message : errorText(error);
        st.out.push({ type: "error", errorText: masked(st, { kind: "stream", message, depth: 0 }) });
      }
      endMessage(st, error !== undefined ? "error" : undefined);
      return st.out.splice(0);
    },
    /** Whether the root `done` (or `end`) finished the message. */
    get finished() {
      return st.ended;
    },
  };
}

/** What one translator keeps between events. */
export interface TranslatorState {
  options: UIMessageStreamOptions;
  started: boolean;
  ended: boolean;
  stepOpen: boolean;
  textId: string | undefined;
  reasoningId: string | undefined;
  counter: number;
  rootErrorSent: boolean;
  tools: Map<string, { denied: boolean; metadata: UiToolMetadata }>;
  /** Calls whose arguments are streaming (`tool-input-start` sent, no `tool-input-available` yet), by id. */
  inputs: Map<string, { name: string; metadata: UiToolMetadata; client?: true }>;
  /** Approval request id → tool call id. */
  approvals: Map<string, string>;
  out: UiMessageChunk[];
  /** Levels (parentId, "" for the root) of denials whose call this stream has not seen. */
  unpairedDenials: string[];
}

/** One event's chunks into `st.out`. */
function translateEvent(st: TranslatorState, event: DeliverableEvent): void {
  if (st.ended) return;
  if (!st.started) {
    st.started = true;
    const messageId = st.options.messageId ?? event.runId;
    const metadata = json({ sessionId: event.sessionId, agentId: event.agentId, runId: event.runId });
    st.out.push({
      type: "start",
      ...(messageId !== undefined && { messageId }),
      ...(Object.keys(metadata).length > 0 && { messageMetadata: metadata }),
    });
  }
  handleEvent(UI_HANDLERS, st, event);
}

/** Where an event happened: its depth and the `run_subtask` call it is inside (null at the root). */
const whereOf = (event: DeliverableEvent) => ({ depth: event.depth, parentId: event.parentId });

/** Each event type's UI message chunks (exported for the completeness check in the tests). */
export const UI_HANDLERS: EventHandlers<TranslatorState> = {
  llm_call_start(st, event) {
    abandonInputs(st, event.parentId);
    if (event.depth === 0) {
      closeStreams(st);
      if (st.stepOpen) st.out.push({ type: "finish-step" });
      st.out.push({ type: "start-step" });
      st.stepOpen = true;
    }
    st.out.push({ type: "data-agentry-activity", data: { kind: "deciding", ...whereOf(event) }, transient: true });
  },
  chunk(st, event) {
    if (event.depth !== 0) {
      if (event.content !== "") {
        st.out.push({
          type: "data-agentry-subtask-text",
          data: { kind: "text", delta: event.content, ...whereOf(event) },
          transient: true,
        });
      }
      return;
    }
    closeReasoning(st);
    if (event.content !== "") {
      if (st.textId === undefined) {
        st.textId = event.streamId ?? `text-${++st.counter}`;
        st.out.push({ type: "text-start", id: st.textId });
      }
      st.out.push({ type: "text-delta", id: st.textId, delta: event.content });
    }
    if (event.done) closeText(st);
  },
  thinking(st, event) {
    if (event.depth !== 0) {
      if (event.content !== "") {
        st.out.push({
          type: "data-agentry-subtask-text",
          data: { kind: "reasoning", delta: event.content, ...whereOf(event) },
          transient: true,
        });
      }
      return;
    }
    closeText(st);
    if (st.reasoningId === undefined) {
      st.reasoningId = `reasoning-${++st.counter}`;
      st.out.push({ type: "reasoning-start", id: st.reasoningId });
    }
    st.out.push({ type: "reasoning-delta", id: st.reasoningId, delta: event.content });
  },
  message(st, event) {
    if (event.depth === 0) closeStreams(st);
    // The response is complete: a streamed call that is not in it was cut off (it never starts).
    const { message } = event;
    if (message.role === "assistant")
      abandonInputs(
        st,
        event.parentId,
        new Set(message.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : []))),
      );
  },
  tool_calls_preparing(st, event) {
    if (event.depth === 0) closeStreams(st);
    st.out.push({
      type: "data-agentry-activity",
      data: { kind: "preparing", names: event.names, ...whereOf(event) },
      transient: true,
    });
  },
  message_stream_started(st, event) {
    if (event.depth !== 0) return;
    closeStreams(st);
    st.textId = event.streamId;
    st.out.push({ type: "text-start", id: st.textId });
  },
  message_stream_completed(st, event) {
    if (event.depth === 0 && st.textId === event.streamId) closeText(st);
  },
  message_stream_cancelled(st, event) {
    if (event.depth !== 0) return;
    if (st.textId === event.streamId) closeText(st);
    st.out.push({
      type: "data-agentry-stream-cancelled",
      data: { streamId: event.streamId, reason: event.reason },
      transient: true,
    });
  },
  tool_call_update: toolCallUpdate,
  tool_input_delta(st, event) {
    const { toolCallId, depth, parentId } = event;
    if (st.tools.has(toolCallId)) return; // its input is already available
    if (!st.inputs.has(toolCallId)) {
      if (depth === 0) closeStreams(st);
      const metadata: UiToolMetadata = { depth, parentId };
      st.inputs.set(toolCallId, { name: event.name, metadata, ...(event.client === true && { client: true }) });
      st.out.push({
        type: "tool-input-start",
        toolCallId,
        toolName: event.name,
        ...dynamicUnless(event.client),
        toolMetadata: metadata,
      });
    }
    if (event.delta !== "") st.out.push({ type: "tool-input-delta", toolCallId, inputTextDelta: event.delta });
  },
  tool_progress(st, event) {
    const tool = ensureTool(st, event.toolCallId, event.name, null, event.depth, event.parentId);
    if (tool.denied) return;
    st.out.push({
      type: "tool-output-available",
      toolCallId: event.toolCallId,
      output: event.progress ?? null,
      dynamic: true,
      toolMetadata: tool.metadata,
      preliminary: true,
    });
  },
  tool_log(st, event) {
    const { toolCallId, name, level, message } = event;
    st.out.push({
      type: "data-agentry-tool-log",
      data: { toolCallId, name, level, message, ...whereOf(event) },
      transient: true,
    });
  },
  approval_request(st, event) {
    ensureTool(st, event.request.toolCallId, event.request.name, event.request.args, event.depth, event.parentId);
    st.out.push({
      type: "tool-approval-request",
      approvalId: event.request.requestId,
      toolCallId: event.request.toolCallId,
    });
  },
  client_tool_call(st, event) {
    // The call's start showed it already; a stream that did not see it (a turn resumed after its
    // approval, a call surfaced from a delegated agent) shows it now, for `onToolCall` to run it.
    const { toolCallId, name, args } = event.request;
    if (st.tools.has(toolCallId)) return;
    const metadata: UiToolMetadata = { depth: event.depth, parentId: event.parentId };
    st.tools.set(toolCallId, { denied: false, metadata });
    st.out.push({
      type: "tool-input-available",
      toolCallId,
      toolName: name,
      input: args ?? {},
      toolMetadata: metadata,
    });
  },
  approval_resolved(st, event) {
    if (event.approved) return;
    // The request id is not the call id: find the call through the approval request seen
    // earlier (or a `toolCallId` on the event, should the runtime add one). A resumed turn's
    // stream starts at the decision: its call is the next failed end at the same level.
    const toolCallId = st.approvals.get(event.requestId) ?? (event as { toolCallId?: string }).toolCallId;
    if (toolCallId === undefined) st.unpairedDenials.push(event.parentId ?? "");
    else deny(st, toolCallId);
  },
  message_queued(st, event) {
    // The message was stored behind a pending decision: the stream ends here, its turn runs later.
    st.out.push({
      type: "data-agentry-queued",
      data: json({
        queuedMessageId: event.queuedMessageId,
        runId: event.runId,
        pendingRequestIds: event.pendingRequestIds,
      }),
    });
  },
  usage: null,
  budget_exceeded(st, event) {
    st.out.push({
      type: "data-agentry-budget",
      data: { reason: event.reason, limit: event.limit, observed: event.observed, ...whereOf(event) },
    });
  },
  context_compacted(st, event) {
    st.out.push({
      type: "data-agentry-compaction",
      id: event.recordId,
      data: {
        trigger: event.trigger,
        source: event.source,
        summary: event.summary,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        summarizedMessages: event.summarizedMessages,
        ...whereOf(event),
      },
    });
  },
  guardrail_tripped(st, event) {
    st.out.push({
      type: "data-agentry-guardrail",
      data: { guard: event.guard, reason: event.reason, ...whereOf(event) },
    });
  },
  warning(st, event) {
    st.out.push({
      type: "data-agentry-warning",
      data: { code: event.code, message: event.message, ...whereOf(event) },
    });
  },
  error(st, event) {
    const info: UiErrorInfo = { kind: "turn", message: event.message, depth: event.depth };
    if (event.code !== undefined) info.code = event.code;
    const text = masked(st, info);
    if (event.depth === 0) {
      st.rootErrorSent = true;
      st.out.push({ type: "error", errorText: text });
    } else st.out.push({ type: "data-agentry-error", data: { message: text, ...whereOf(event) } });
  },
  done(st, event) {
    if (event.depth !== 0) return;
    const result = event.result;
    if (result.status === "error" && !st.rootErrorSent) {
      const info: UiErrorInfo = { kind: "turn", message: result.error?.message ?? "The turn failed", depth: 0 };
      if (result.error?.code !== undefined) info.code = result.error.code;
      st.out.push({ type: "error", errorText: masked(st, info) });
    }
    if (result.status === "aborted") {
      closeStreams(st);
      st.out.push({ type: "abort", reason: result.error?.message ?? "aborted" });
    }
    endMessage(
      st,
      result.status,
      json({
        status: result.status,
        usage: json({ ...result.usage }),
        ...(result.error && { error: json({ ...result.error }) }),
      }),
    );
  },
  task_status(st, event) {
    st.out.push({
      type: "data-agentry-task",
      id: event.taskId,
      data: { taskId: event.taskId, from: event.from, to: event.to },
    });
  },
  planning_started(st, event) {
    st.out.push({
      type: "data-agentry-activity",
      data: { kind: "planning", taskId: event.taskId ?? null, ...whereOf(event) },
      transient: true,
    });
  },
  artifact_created(st, event) {
    st.out.push({
      type: "data-agentry-artifact",
      id: event.artifactId,
      data: { artifactId: event.artifactId, filename: event.filename, kind: event.kind, preview: event.preview },
    });
  },
  plan_ready(st, event) {
    st.out.push({
      type: "data-agentry-plan",
      id: event.artifactId,
      data: { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan },
    });
  },
  question(st, event) {
    const call = event.toolCallId !== undefined ? { toolCallId: event.toolCallId } : {};
    st.out.push({
      type: "data-agentry-question",
      id: event.questionId,
      data: { questionId: event.questionId, ...call, question: event.question, ...whereOf(event) },
    });
  },
  role_changed(st, event) {
    st.out.push({ type: "data-agentry-role", data: { from: event.from, to: event.to } });
  },
  message_steered(st, event) {
    // The user's steering message, where the turn read it: the model's next step answers it.
    closeStreams(st);
    st.out.push({
      type: "data-agentry-steered",
      id: event.messageId,
      data: { messageId: event.messageId, content: event.message.content },
    });
  },
  turn_stopped(st, event) {
    st.out.push({ type: "data-agentry-stopped", data: { reason: event.reason } });
  },
  subagent_status: null,
};

/** A tool call's start or end (a denied call's end was already sent as its denial). */
function toolCallUpdate(st: TranslatorState, event: EventOf<"tool_call_update">): void {
  const { depth, parentId } = event;
  if (depth === 0) closeStreams(st);
  if (event.status === "start") {
    st.inputs.delete(event.toolCallId);
    const metadata: UiToolMetadata = { depth, parentId };
    st.tools.set(event.toolCallId, { denied: false, metadata });
    const title = event.name === "run_subtask" ? (event.args as { title?: unknown } | undefined)?.title : undefined;
    st.out.push({
      type: "tool-input-available",
      toolCallId: event.toolCallId,
      toolName: event.name,
      input: event.args ?? {},
      ...dynamicUnless(event.client),
      ...(typeof title === "string" && { title }),
      toolMetadata: metadata,
    });
    return;
  }
  const known = st.tools.has(event.toolCallId);
  // A client call's result comes in the turn resumed after it: the client has the call's part
  // (a static one) already, so only the output is sent.
  if (!known && event.client === true) st.tools.set(event.toolCallId, { denied: false, metadata: { depth, parentId } });
  const tool = ensureTool(st, event.toolCallId, event.name, null, depth, parentId);
  if (!known && event.isError) {
    const at = st.unpairedDenials.indexOf(parentId ?? "");
    if (at >= 0) {
      st.unpairedDenials.splice(at, 1);
      deny(st, event.toolCallId);
    }
  }
  if (tool.denied) return;
  const metadata: UiToolMetadata = {
    ...tool.metadata,
    ...(event.durationMs !== undefined && { durationMs: event.durationMs }),
  };
  if (event.isError)
    st.out.push({
      type: "tool-output-error",
      toolCallId: event.toolCallId,
      errorText: masked(st, {
        kind: "tool",
        message: errorText(event.result),
        toolCallId: event.toolCallId,
        name: event.name,
        depth,
      }),
      ...dynamicUnless(event.client),
      toolMetadata: metadata,
    });
  else
    st.out.push({
      type: "tool-output-available",
      toolCallId: event.toolCallId,
      output: event.result ?? null,
      ...dynamicUnless(event.client),
      toolMetadata: metadata,
    });
}

/**
 * A tool part's `dynamic` flag: set on every call the server runs; left out on a client tool's
 * call (a tool with no `execute`), so `useChat` makes it a static `tool-<name>` part and its
 * `onToolCall` runs it (the AI SDK's docs skip dynamic calls there).
 */
function dynamicUnless(client: true | undefined): { dynamic?: true } {
  return client === true ? {} : { dynamic: true };
}

function endMessage(st: TranslatorState, status?: string, metadata?: Record<string, UiJsonValue>): void {
  if (st.ended) return;
  st.ended = true;
  if (!st.started) st.out.push({ type: "start" });
  closeStreams(st);
  abandonInputs(st, undefined);
  if (st.stepOpen) st.out.push({ type: "finish-step" });
  st.out.push({
    type: "finish",
    finishReason: (status === undefined ? undefined : FINISH_REASONS[status]) ?? "other",
    ...(metadata && { messageMetadata: metadata }),
  });
}

/**
 * Ends the streamed calls of a level (`parentId`; every level when undefined) that will not start:
 * all of them, or those not in `kept` (the calls of the level's complete response).
 */
function abandonInputs(st: TranslatorState, parentId: string | null | undefined, kept?: ReadonlySet<string>): void {
  for (const [toolCallId, input] of st.inputs) {
    if (parentId !== undefined && input.metadata.parentId !== parentId) continue;
    if (kept?.has(toolCallId)) continue;
    st.inputs.delete(toolCallId);
    st.out.push({
      type: "tool-input-error",
      toolCallId,
      toolName: input.name,
      input: null,
      errorText: "The model did not complete this tool call.",
      ...dynamicUnless(input.client),
      toolMetadata: input.metadata,
    });
  }
}

function deny(st: TranslatorState, toolCallId: string): void {
  const tool = st.tools.get(toolCallId);
  if (tool) tool.denied = true;
  st.out.push({ type: "tool-output-denied", toolCallId });
}
function closeText(st: TranslatorState): void {
  if (st.textId !== undefined) st.out.push({ type: "text-end", id: st.textId });
  st.textId = undefined;
}
function closeReasoning(st: TranslatorState): void {
  if (st.reasoningId !== undefined) st.out.push({ type: "reasoning-end", id: st.reasoningId });
  st.reasoningId = undefined;
}
function closeStreams(st: TranslatorState): void {
  closeReasoning(st);
  closeText(st);
}
/** Makes sure the client has a part for this call (a resumed turn ends calls it did not start). */
function ensureTool(
  st: TranslatorState,
  toolCallId: string,
  name: string,
  input: unknown,
  depth: number,
  parentId: string | null,
) {
  let tool = st.tools.get(toolCallId);
  if (!tool) {
    tool = { denied: false, metadata: { depth, parentId } };
    st.tools.set(toolCallId, tool);
    st.out.push({
      type: "tool-input-available",
      toolCallId,
      toolName: name,
      input: input ?? null,
      dynamic: true,
      toolMetadata: tool.metadata,
    });
  }
  return tool;
}
