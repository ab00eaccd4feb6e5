import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import type { UiJsonValue, UiMessageChunk, UiToolMetadata } from "./ui-message-chunk.js";

/** Options of `toUIMessageStream`. */
export interface UIMessageStreamOptions {
  /**
   * The id of the assistant message the stream builds. Pass the id of the message a resumed
   * turn continues (after an approval) so the client appends to it.
   * @default the `runId` of the first event, when it has one
   */
  messageId?: string;
}

const FINISH_REASONS: Record<string, Extract<UiMessageChunk, { type: "finish" }>["finishReason"]> = {
  complete: "stop",
  suspended: "tool-calls",
  error: "error",
  aborted: "other",
  budget_exceeded: "other",
  iteration_limit: "other",
};

const errorText = (value: unknown): string => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

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
      if (error !== undefined && !st.ended) st.out.push({ type: "error", errorText: error instanceof Error ? error.message : errorText(error) });
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
interface TranslatorState {
  options: UIMessageStreamOptions;
  started: boolean;
  ended: boolean;
  stepOpen: boolean;
  textId: string | undefined;
  reasoningId: string | undefined;
  counter: number;
  rootErrorSent: boolean;
  tools: Map<string, { denied: boolean; metadata: UiToolMetadata }>;
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
    st.out.push({ type: "start", ...(messageId !== undefined && { messageId }), ...(Object.keys(metadata).length > 0 && { messageMetadata: metadata }) });
  }
  if (STREAM_TYPES.has(event.type)) translateStreamEvent(st, event);
  else if (TOOL_TYPES.has(event.type)) translateToolEvent(st, event);
  else translateOtherEvent(st, event);
}

const STREAM_TYPES: ReadonlySet<string> = new Set([
  "chunk",
  "llm_call_start",
  "message",
  "message_stream_cancelled",
  "message_stream_completed",
  "message_stream_started",
  "thinking",
  "tool_calls_preparing",
]);
const TOOL_TYPES: ReadonlySet<string> = new Set(["approval_request", "approval_resolved", "tool_call_update"]);

/** Root text, reasoning and steps; sub-task text as transient data. */
function translateStreamEvent(st: TranslatorState, event: DeliverableEvent): void {
  const { depth, parentId } = event;
  const root = depth === 0;
  const where = { depth, parentId };
  switch (event.type) {
    case "llm_call_start":
      if (root) {
        closeStreams(st);
        if (st.stepOpen) st.out.push({ type: "finish-step" });
        st.out.push({ type: "start-step" });
        st.stepOpen = true;
      }
      st.out.push({ type: "data-agentry-activity", data: { kind: "deciding", ...where }, transient: true });
      return;
    case "chunk":
      if (!root) {
        if (event.content !== "") st.out.push({ type: "data-agentry-subtask-text", data: { kind: "text", delta: event.content, ...where }, transient: true });
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
      return;
    case "thinking":
      if (!root) {
        if (event.content !== "")
          st.out.push({ type: "data-agentry-subtask-text", data: { kind: "reasoning", delta: event.content, ...where }, transient: true });
        return;
      }
      closeText(st);
      if (st.reasoningId === undefined) {
        st.reasoningId = `reasoning-${++st.counter}`;
        st.out.push({ type: "reasoning-start", id: st.reasoningId });
      }
      st.out.push({ type: "reasoning-delta", id: st.reasoningId, delta: event.content });
      return;
    case "message":
      if (root) closeStreams(st);
      return;
    case "tool_calls_preparing":
      if (root) closeStreams(st);
      st.out.push({ type: "data-agentry-activity", data: { kind: "preparing", names: event.names, ...where }, transient: true });
      return;
    case "message_stream_started":
      if (!root) return;
      closeStreams(st);
      st.textId = event.streamId;
      st.out.push({ type: "text-start", id: st.textId });
      return;
    case "message_stream_completed":
      if (root && st.textId === event.streamId) closeText(st);
      return;
    case "message_stream_cancelled":
      if (!root) return;
      if (st.textId === event.streamId) closeText(st);
      st.out.push({ type: "data-agentry-stream-cancelled", data: { streamId: event.streamId, reason: event.reason }, transient: true });
      return;
    default:
      return;
  }
}

/** Tool calls, approvals and denials. */
function translateToolEvent(st: TranslatorState, event: DeliverableEvent): void {
  const { depth, parentId } = event;
  const root = depth === 0;
  switch (event.type) {
    case "tool_call_update": {
      if (root) closeStreams(st);
      if (event.status === "start") {
        const metadata: UiToolMetadata = { depth, parentId };
        st.tools.set(event.toolCallId, { denied: false, metadata });
        const title = event.name === "run_subtask" ? (event.args as { title?: unknown } | undefined)?.title : undefined;
        st.out.push({
          type: "tool-input-available",
          toolCallId: event.toolCallId,
          toolName: event.name,
          input: event.args ?? {},
          dynamic: true,
          ...(typeof title === "string" && { title }),
          toolMetadata: metadata,
        });
        return;
      }
      const known = st.tools.has(event.toolCallId);
      const tool = ensureTool(st, event.toolCallId, event.name, null, depth, parentId);
      if (!known && event.isError) {
        const at = st.unpairedDenials.indexOf(parentId ?? "");
        if (at >= 0) {
          st.unpairedDenials.splice(at, 1);
          deny(st, event.toolCallId);
        }
      }
      if (tool.denied) return;
      const metadata: UiToolMetadata = { ...tool.metadata, ...(event.durationMs !== undefined && { durationMs: event.durationMs }) };
      if (event.isError)
        st.out.push({ type: "tool-output-error", toolCallId: event.toolCallId, errorText: errorText(event.result), dynamic: true, toolMetadata: metadata });
      else st.out.push({ type: "tool-output-available", toolCallId: event.toolCallId, output: event.result ?? null, dynamic: true, toolMetadata: metadata });
      return;
    }
    case "approval_request":
      ensureTool(st, event.request.toolCallId, event.request.name, event.request.args, depth, parentId);
      st.out.push({ type: "tool-approval-request", approvalId: event.request.requestId, toolCallId: event.request.toolCallId });
      return;
    case "approval_resolved": {
      if (event.approved) return;
      // The request id is not the call id: find the call through the approval request seen
      // earlier (or a `toolCallId` on the event, should the runtime add one). A resumed turn's
      // stream starts at the decision: its call is the next failed end at the same level.
      const toolCallId = st.approvals.get(event.requestId) ?? (event as { toolCallId?: string }).toolCallId;
      if (toolCallId === undefined) {
        st.unpairedDenials.push(parentId ?? "");
        return;
      }
      deny(st, toolCallId);
      return;
    }
    default:
      return;
  }
}

/** Usage, budget, warnings, errors, the end, tasks, plans, questions and roles (and types this version does not know). */
function translateOtherEvent(st: TranslatorState, event: DeliverableEvent): void {
  const { depth, parentId } = event;
  const root = depth === 0;
  const where = { depth, parentId };
  switch (event.type) {
    case "usage":
      return;
    case "budget_exceeded":
      st.out.push({ type: "data-agentry-budget", data: { reason: event.reason, limit: event.limit, observed: event.observed, ...where } });
      return;
    case "warning":
      st.out.push({ type: "data-agentry-warning", data: { code: event.code, message: event.message, ...where } });
      return;
    case "error":
      if (root) {
        st.rootErrorSent = true;
        st.out.push({ type: "error", errorText: event.message });
      } else st.out.push({ type: "data-agentry-error", data: { message: event.message, ...where } });
      return;
    case "done": {
      if (!root) return;
      const result = event.result;
      if (result.status === "error" && !st.rootErrorSent) st.out.push({ type: "error", errorText: result.error?.message ?? "The turn failed" });
      if (result.status === "aborted") {
        closeStreams(st);
        st.out.push({ type: "abort", reason: result.error?.message ?? "aborted" });
      }
      endMessage(
        st,
        result.status,
        json({ status: result.status, usage: json({ ...result.usage }), ...(result.error && { error: json({ ...result.error }) }) }),
      );
      return;
    }
    case "task_status":
      st.out.push({ type: "data-agentry-task", id: event.taskId, data: { taskId: event.taskId, from: event.from, to: event.to } });
      return;
    case "planning_started":
      st.out.push({ type: "data-agentry-activity", data: { kind: "planning", taskId: event.taskId ?? null, ...where }, transient: true });
      return;
    case "artifact_created":
      st.out.push({
        type: "data-agentry-artifact",
        id: event.artifactId,
        data: { artifactId: event.artifactId, filename: event.filename, kind: event.kind, preview: event.preview },
      });
      return;
    case "plan_ready":
      st.out.push({ type: "data-agentry-plan", id: event.artifactId, data: { artifactId: event.artifactId, taskId: event.taskId ?? null, plan: event.plan } });
      return;
    case "question":
      st.out.push({
        type: "data-agentry-question",
        id: event.questionId,
        data: { questionId: event.questionId, ...(event.toolCallId !== undefined && { toolCallId: event.toolCallId }), question: event.question, ...where },
      });
      return;
    case "role_changed":
      st.out.push({ type: "data-agentry-role", data: { from: event.from, to: event.to } });
      return;
    default:
      // A type this version does not know (a newer runtime): nothing to render, not an error.
      return;
  }
}

function endMessage(st: TranslatorState, status?: string, metadata?: Record<string, UiJsonValue>): void {
  if (st.ended) return;
  st.ended = true;
  if (!st.started) st.out.push({ type: "start" });
  closeStreams(st);
  if (st.stepOpen) st.out.push({ type: "finish-step" });
  st.out.push({
    type: "finish",
    finishReason: (status === undefined ? undefined : FINISH_REASONS[status]) ?? "other",
    ...(metadata && { messageMetadata: metadata }),
  });
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
function ensureTool(st: TranslatorState, toolCallId: string, name: string, input: unknown, depth: number, parentId: string | null) {
  let tool = st.tools.get(toolCallId);
  if (!tool) {
    tool = { denied: false, metadata: { depth, parentId } };
    st.tools.set(toolCallId, tool);
    st.out.push({ type: "tool-input-available", toolCallId, toolName: name, input: input ?? null, dynamic: true, toolMetadata: tool.metadata });
  }
  return tool;
}

/**
 * Turns Agentry events (`runtime.stream(...)`, `runUnifiedAgentLoop`, an `EventLog.resume`)
 * into the AI SDK's UI message stream, so a `useChat` front end renders an Agentry turn as one
 * assistant message:
 *
 * - root text and reasoning → `text-*` and `reasoning-*` parts; each model call is a step;
 * - every tool call, sub-task calls and their children included → a dynamic tool part
 *   (`tool-input-available`, then `tool-output-available` / `tool-output-error`), with
 *   `toolMetadata: { depth, parentId, durationMs? }` for nesting cards under their
 *   `run_subtask` (whose part also gets the sub-task's `title`);
 * - an approval → `tool-approval-request` (`approvalId` = the Agentry `requestId`, for
 *   `runtime.resolveApproval`); a denial → `tool-output-denied`;
 * - a root error → `error`; an abort → `abort`; the end → `finish` with `messageMetadata`
 *   `{ status, usage }` (the start carries `{ sessionId, agentId, runId }`);
 * - text and reasoning inside sub-tasks → transient `data-agentry-subtask-text` chunks
 *   (`useChat`'s `onData`; kept out of the message so the main thread stays clean);
 *   "thinking" / "preparing" → transient `data-agentry-activity`;
 * - budget stops, warnings, sub-task errors, plans, questions, task status, artifacts, role
 *   changes → `data-agentry-budget` / `-warning` / `-error` / `-plan` / `-question` / `-task` /
 *   `-artifact` / `-role` parts (plans, questions, tasks and artifacts keyed by their id).
 *
 * The stream ends after the root `done` (the source is returned then, or when the stream is
 * cancelled). If the source throws or stops early, an `error` chunk and `finish` close it.
 *
 * @example
 * ```ts
 * const chunks = toUIMessageStream(runtime.stream({ agentId: "assistant", content }));
 * return createUIMessageStreamResponse({ stream: chunks }); // from "ai", or toUIMessageStreamResponse below
 * ```
 */
export function toUIMessageStream(events: AsyncIterable<DeliverableEvent>, options: UIMessageStreamOptions = {}): ReadableStream<UiMessageChunk> {
  const translator = createUIMessageTranslator(options);
  let iterator: AsyncIterator<DeliverableEvent> | undefined;
  let done = false;
  return new ReadableStream<UiMessageChunk>(
    {
      start() {
        iterator = events[Symbol.asyncIterator]();
      },
      async pull(controller) {
        for (;;) {
          let chunks: UiMessageChunk[];
          let last = false;
          try {
            const result = await iterator!.next();
            if (result.done) {
              chunks = translator.end();
              last = true;
            } else {
              chunks = translator.push(result.value);
              last = translator.finished;
            }
          } catch (error) {
            chunks = translator.end(error);
            last = true;
          }
          for (const chunk of chunks) controller.enqueue(chunk);
          if (last) {
            done = true;
            controller.close();
            iterator?.return?.()?.catch(() => {});
            return;
          }
          if (chunks.length > 0) return;
        }
      },
      cancel() {
        if (done) return;
        done = true;
        iterator?.return?.()?.catch(() => {});
      },
    },
    { highWaterMark: 16 },
  );
}

/** Headers of a UI message stream response (as the `ai` package's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no",
});

/**
 * The UI message stream as the bytes `useChat`'s default transport reads: SSE `data:` lines of
 * JSON chunks, then `data: [DONE]`.
 */
export function toUIMessageSseStream(chunks: ReadableStream<UiMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return chunks.pipeThrough(
    new TransformStream<UiMessageChunk, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
      },
      flush(controller) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
      },
    }),
  );
}

/**
 * A `Response` carrying the UI message stream of `events` the way `useChat` expects it
 * (`toUIMessageSseStream` body, `UI_MESSAGE_STREAM_HEADERS`).
 */
export function toUIMessageStreamResponse(
  events: AsyncIterable<DeliverableEvent>,
  init: UIMessageStreamOptions & { status?: number; headers?: Record<string, string> } = {},
): Response {
  const { status, headers, ...options } = init;
  return new Response(toUIMessageSseStream(toUIMessageStream(events, options)), {
    status: status ?? 200,
    headers: { ...UI_MESSAGE_STREAM_HEADERS, ...headers },
  });
}
