import type { DeliverableEvent } from "../delivery/deliverable-event.js";
import type { UiMessageChunk } from "./ui-message-chunk.js";
import { createUIMessageTranslator, type UIMessageStreamOptions } from "./ui-message-translator.js";

export { createUIMessageTranslator } from "./ui-message-translator.js";
export type { UIMessageStreamOptions } from "./ui-message-translator.js";

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
 *   changes, compactions → `data-agentry-budget` / `-warning` / `-error` / `-plan` / `-question` /
 *   `-task` / `-artifact` / `-role` / `-compaction` parts (plans, questions, tasks, artifacts and
 *   compactions keyed by their id);
 * - a message steered into the turn → `data-agentry-steered` (`{ messageId, content }`, keyed by
 *   the message id), a stopped turn → `data-agentry-stopped` (`{ reason }`) before its `abort`;
 * - a message stored behind a pending decision (`message_queued`) → `data-agentry-queued`
 *   (`{ queuedMessageId, runId, pendingRequestIds }`), and the stream ends there.
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
export function toUIMessageStream(
  events: AsyncIterable<DeliverableEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UiMessageChunk> {
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
