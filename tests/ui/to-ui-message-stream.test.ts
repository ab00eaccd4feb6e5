import { describe, expect, it } from "vitest";
import {
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import type { DeliverableEvent } from "@agentry/core";
import {
  toUIMessageStream,
  toUIMessageStreamResponse,
  UI_MESSAGE_STREAM_HEADERS,
  type UIMessageStreamOptions,
} from "@agentry/core/ui";
import {
  approvalRuns,
  errorRun,
  iterate,
  toolLogRun,
  toolProgressRun,
  parallelSubtasksRun,
  streamedArgsRun,
  planRun,
  queuedRun,
  withMarkedHistory,
} from "./scenarios.js";

/**
 * What a `useChat` client gets: the response body parsed by the `ai` package's own SSE reader
 * and chunk schema (DefaultChatTransport's path), then assembled by its `readUIMessageStream`.
 */
async function throughAiSdk(events: DeliverableEvent[], options: UIMessageStreamOptions = {}) {
  const response = toUIMessageStreamResponse(iterate(events), options);
  const chunks: UIMessageChunk[] = [];
  const invalid: unknown[] = [];
  const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) invalid.push(result.error);
        else {
          chunks.push(result.value);
          controller.enqueue(result.value);
        }
      },
    }),
  );
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  const states: UIMessage[] = [];
  for await (const state of readUIMessageStream<UIMessage>({
    stream: parsed,
    onError: (error) => errors.push(error),
  })) {
    message = state;
    states.push(structuredClone(state));
  }
  return { message: message!, states, chunks, invalid, errors, response };
}

const toolParts = (message: UIMessage) =>
  message.parts.filter(
    (p): p is Extract<UIMessage["parts"][number], { type: "dynamic-tool" }> => p.type === "dynamic-tool",
  );

describe("toUIMessageStream (read by the ai package)", () => {
  it("ends with the turn's outcome only: nothing of the done event's message history or execution tree reaches the client", async () => {
    const { chunks } = await throughAiSdk(withMarkedHistory(await parallelSubtasksRun(), "HISTORY-MARKER"));
    expect(chunks.at(-1)).toMatchObject({ type: "finish", messageMetadata: { status: "complete" } });
    expect(JSON.stringify(chunks)).not.toContain("HISTORY-MARKER");
  });

  it("renders a run with parallel sub-tasks: text, reasoning, nested tool parts with input, output and depth", async () => {
    const events = await parallelSubtasksRun();
    const { message, invalid, errors, response, chunks } = await throughAiSdk(events);
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe(
      UI_MESSAGE_STREAM_HEADERS["x-vercel-ai-ui-message-stream"],
    );
    expect(message.id).toBe(events[0]!.runId);
    expect(message.metadata).toMatchObject({
      sessionId: events[0]!.sessionId,
      agentId: "general",
      status: "complete",
      usage: { inputTokens: 30, outputTokens: 8 },
    });
    const texts = message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
    expect(texts).toEqual(["Let me split this. ", "Both found."]);
    expect(message.parts.find((p) => p.type === "reasoning")).toMatchObject({
      text: "Two independent lookups.",
      state: "done",
    });
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);

    const tools = toolParts(message);
    const subtasks = tools.filter((t) => t.toolName === "run_subtask");
    expect(subtasks.map((t) => [t.toolCallId, t.title, t.state, t.output])).toEqual([
      ["sub_a", "Look up A", "output-available", "found alpha"],
      ["sub_b", "Look up B", "output-available", "found beta"],
    ]);
    expect(subtasks.map((t) => t.toolMetadata)).toEqual([
      expect.objectContaining({ depth: 0, parentId: null }),
      expect.objectContaining({ depth: 0, parentId: null }),
    ]);
    const children = tools.filter((t) => t.toolName === "echo");
    expect(children.map((t) => [t.toolMetadata?.parentId, t.toolMetadata?.depth, t.input, t.output]).sort()).toEqual([
      ["sub_a", 1, { text: "alpha" }, "echo: alpha"],
      ["sub_b", 1, { text: "beta" }, "echo: beta"],
    ]);
    expect(typeof children[0]!.toolMetadata?.durationMs).toBe("number");
    // Sub-task text stays out of the message, as transient data for onData.
    expect(texts.join("")).not.toContain("Checking");
    expect(
      chunks
        .filter((c) => c.type === "data-agentry-subtask-text")
        .every((c) => (c as { transient?: boolean }).transient === true),
    ).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("renders an approval as a tool approval request, and a denial in the resumed turn as denied output", async () => {
    const { suspended, resumed } = await approvalRuns(false);
    const first = await throughAiSdk(suspended);
    expect(first.invalid).toEqual([]);
    const [part] = toolParts(first.message);
    const request = suspended.find((e) => e.type === "approval_request")!;
    expect(part).toMatchObject({
      toolCallId: "del_1",
      toolName: "todo_delete",
      state: "approval-requested",
      input: { item: "milk" },
      approval: { id: request.type === "approval_request" ? request.request.requestId : "" },
    });
    expect(first.chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "tool-calls",
      messageMetadata: { status: "suspended" },
    });

    const second = await throughAiSdk(resumed, { messageId: first.message.id });
    expect(second.invalid).toEqual([]);
    expect(second.errors).toEqual([]);
    expect(second.message.id).toBe(first.message.id);
    expect(toolParts(second.message).find((t) => t.toolCallId === "del_1")?.state).toBe("output-denied");
    expect(
      second.message.parts
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join(""),
    ).toMatch(/not approved/);
  });

  it("renders an approved call's output in the resumed turn", async () => {
    const { resumed } = await approvalRuns(true);
    const { message, invalid, errors } = await throughAiSdk(resumed);
    expect([invalid, errors]).toEqual([[], []]);
    expect(toolParts(message).find((t) => t.toolCallId === "del_1")).toMatchObject({
      state: "output-available",
      output: "deleted milk",
    });
  });

  it("renders a plan, a question, task status and artifacts as data parts keyed by id", async () => {
    const { message, invalid, errors } = await throughAiSdk(await planRun());
    expect([invalid, errors]).toEqual([[], []]);
    const data = (type: string) => message.parts.filter((p) => p.type === type) as { id?: string; data: any }[];
    expect(data("data-agentry-plan")).toEqual([
      expect.objectContaining({
        id: "art_1",
        data: expect.objectContaining({ taskId: "task_1", plan: expect.objectContaining({ goal: "Ship the report" }) }),
      }),
    ]);
    expect(data("data-agentry-question")[0]?.data.question.options.map((o: { value: string }) => o.value)).toEqual([
      "q1",
      "q2",
    ]);
    expect(data("data-agentry-question")[0]?.data.toolCallId).toBe("call_ask");
    // One task part, updated in place to the latest status.
    expect(data("data-agentry-task").map((p) => p.data.to)).toEqual(["awaiting_review"]);
    expect(data("data-agentry-artifact")[0]?.id).toBe("art_1");
    expect(data("data-agentry-role")[0]?.data).toEqual({ from: "planner", to: "actor" });
  });

  it("streams a generator tool's yields as preliminary outputs, then its result as the final output", async () => {
    const { invalid, errors, chunks, message } = await throughAiSdk(await toolProgressRun());
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    const outputs = chunks.filter((chunk) => chunk.type === "tool-output-available");
    expect(outputs.map((chunk) => [chunk.output, chunk.preliminary ?? false])).toEqual([
      [{ found: 1, done: false }, true],
      [{ found: 3, done: false }, true],
      [{ found: 3, done: true }, false],
    ]);
    expect(toolParts(message)[0]).toMatchObject({ state: "output-available", output: { found: 3, done: true } });
  });

  it("streams a call's arguments as tool-input-start / tool-input-delta, then its input whole: input-streaming, then input-available", async () => {
    const { invalid, errors, chunks, message, states } = await throughAiSdk(await streamedArgsRun());
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    const starts = chunks.filter((chunk) => chunk.type === "tool-input-start");
    expect(starts.map((chunk) => [chunk.toolCallId, chunk.toolName, chunk.dynamic])).toEqual([
      ["echo_1", "echo", true],
      ["echo_2", "echo", true],
    ]);
    const deltas = chunks.filter((chunk) => chunk.type === "tool-input-delta");
    expect(deltas.length).toBeGreaterThanOrEqual(6);
    for (const id of ["echo_1", "echo_2"]) {
      const text = deltas
        .filter((chunk) => chunk.toolCallId === id)
        .map((chunk) => chunk.inputTextDelta)
        .join("");
      const available = chunks.find((chunk) => chunk.type === "tool-input-available" && chunk.toolCallId === id);
      expect(JSON.parse(text)).toEqual((available as { input: unknown }).input);
      expect(chunks.indexOf(available!)).toBeGreaterThan(chunks.indexOf(deltas.findLast((c) => c.toolCallId === id)!));
    }
    // What useChat shows for the first call, state by state: streaming (partial input), then available, then done.
    const seen = states.flatMap((state) => {
      const part = toolParts(state).find((p) => p.toolCallId === "echo_1");
      return part ? [part.state] : [];
    });
    expect([...new Set(seen)]).toEqual(["input-streaming", "input-available", "output-available"]);
    const partial = states
      .map((state) => toolParts(state).find((p) => p.toolCallId === "echo_1"))
      .find((p) => p?.state === "input-streaming" && typeof (p.input as { text?: unknown })?.text === "string");
    expect((partial!.input as { text: string }).text.length).toBeLessThan("a fairly long first argument".length);
    expect(toolParts(message).map((p) => [p.toolCallId, p.state])).toEqual([
      ["echo_1", "output-available"],
      ["echo_2", "output-available"],
    ]);
  });

  it("ends calls that streamed but were cut off with tool-input-error: no part is left streaming", async () => {
    const { invalid, errors, chunks, message } = await throughAiSdk(await streamedArgsRun({ cutOff: true }));
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    expect(chunks.filter((chunk) => chunk.type === "tool-input-error").map((c) => c.toolCallId)).toEqual([
      "echo_1",
      "echo_2",
    ]);
    expect(chunks.some((chunk) => chunk.type === "tool-input-available")).toBe(false);
    expect(toolParts(message).map((p) => p.state)).toEqual(["output-error", "output-error"]);
  });

  it("streams a tool's log lines as transient data parts naming the call", async () => {
    const { invalid, errors, chunks } = await throughAiSdk(await toolLogRun());
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    const lines = chunks.filter((chunk) => chunk.type === "data-agentry-tool-log");
    expect(lines).toEqual([
      expect.objectContaining({
        transient: true,
        data: expect.objectContaining({ toolCallId: "sync_1", level: "info", message: "copied 10 of 20" }),
      }),
      expect.objectContaining({
        transient: true,
        data: expect.objectContaining({ toolCallId: "sync_1", level: "warn", message: "one file skipped" }),
      }),
    ]);
  });

  it("renders a failed turn: the text so far, an error the client sees, finish reason error", async () => {
    const { message, invalid, errors, chunks } = await throughAiSdk(await errorRun(), {
      onError: (error) => error.message,
    });
    expect(invalid).toEqual([]);
    expect(errors.map((e) => (e as Error).message)).toEqual([expect.stringMatching(/upstream overloaded/)]);
    expect(chunks.filter((c) => c.type === "error")).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "error",
      messageMetadata: { status: "error" },
    });
    expect(message.metadata).toMatchObject({ status: "error" });
  });

  it("masks error text unless the host's onError says otherwise (as the AI SDK does)", async () => {
    const masked = await throughAiSdk(await errorRun());
    expect(masked.invalid).toEqual([]);
    expect(masked.chunks.filter((c) => c.type === "error")).toEqual([
      { type: "error", errorText: "An error occurred." },
    ]);
    const failedTool = (await toolLogRun()).map((event) =>
      event.type === "tool_call_update" && event.status === "end"
        ? { ...event, isError: true, result: "EACCES /srv/secret/path" }
        : event,
    );
    const tool = await throughAiSdk(failedTool);
    expect(tool.chunks.find((c) => c.type === "tool-output-error")).toMatchObject({ errorText: "An error occurred." });
    expect(JSON.stringify(tool.chunks)).not.toContain("/srv/secret/path");
    const shown = await throughAiSdk(failedTool, {
      onError: ({ kind, name, message }) => `${kind} ${name}: ${message}`,
    });
    expect(shown.chunks.find((c) => c.type === "tool-output-error")).toMatchObject({
      errorText: "tool sync_files: EACCES /srv/secret/path",
    });
    const throwing = await throughAiSdk(failedTool, {
      onError: () => {
        throw new Error("bad handler");
      },
    });
    expect(throwing.chunks.find((c) => c.type === "tool-output-error")).toMatchObject({
      errorText: "An error occurred.",
    });
  });

  it("renders a message stored behind a pending decision as a data-agentry-queued part, and finishes", async () => {
    const events = await queuedRun();
    const { chunks, invalid, errors, message } = await throughAiSdk(events);
    expect(invalid).toEqual([]);
    expect(errors).toEqual([]);
    const queued = events[0]!;
    expect(chunks.map((c) => c.type)).toEqual(["start", "data-agentry-queued", "finish"]);
    expect(message.parts).toEqual([
      {
        type: "data-agentry-queued",
        data: {
          queuedMessageId: `queued:${queued.runId}`,
          runId: queued.runId,
          pendingRequestIds: [expect.any(String)],
        },
      },
    ]);
  });

  it("closes the message when the events stop without done or the source throws", async () => {
    async function* broken(): AsyncGenerator<DeliverableEvent> {
      yield { type: "chunk", content: "partial", depth: 0, parentId: null };
      throw new Error("connection lost");
    }
    const chunks: unknown[] = [];
    for await (const chunk of toUIMessageStream(broken()) as unknown as AsyncIterable<unknown>) chunks.push(chunk);
    expect(chunks.map((c) => (c as { type: string }).type)).toEqual([
      "start",
      "text-start",
      "text-delta",
      "error",
      "text-end",
      "finish",
    ]);
  });

  it("stops reading the source after the root done", async () => {
    const events = await parallelSubtasksRun();
    let readAfterDone = false;
    async function* source(): AsyncGenerator<DeliverableEvent> {
      yield* events;
      readAfterDone = true;
      yield { type: "chunk", content: "late", depth: 0, parentId: null };
    }
    const reader = toUIMessageStream(source()).getReader();
    while (!(await reader.read()).done);
    expect(readAfterDone).toBe(false);
  });
});
