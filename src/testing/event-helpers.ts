import type { Message, ToolCallPart } from "../contracts/message.js";
import type { LoopEvent } from "../contracts/loop-event.js";

/** Drains an event stream; returns every event and the generator's return value. */
export async function collectEvents<E, R>(
  stream: AsyncGenerator<E, R> | AsyncIterable<E>,
): Promise<{ events: E[]; result: R | undefined }> {
  const events: E[] = [];
  const iterator = (stream as AsyncIterable<E>)[Symbol.asyncIterator]() as AsyncIterator<E, R>;
  for (;;) {
    const step = await iterator.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

/** The events of one type, narrowed. */
export function eventsOfType<T extends LoopEvent["type"], E extends { type: string }>(
  events: readonly E[],
  type: T,
): Extract<E, { type: T }>[] {
  return events.filter((e): e is Extract<E, { type: T }> => e.type === type);
}

/**
 * Problems that would make a provider reject this history: a tool call without a result in the
 * next message, a result without its call, a tool message in the wrong place. Empty = valid.
 */
export function historyProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      const calls = message.content.filter((p): p is ToolCallPart => p.type === "tool_call");
      if (calls.length === 0) return;
      const next = messages[index + 1];
      if (next?.role !== "tool") {
        problems.push(
          `message ${index}: tool calls ${calls.map((c) => c.id).join(", ")} have no tool message after them`,
        );
        return;
      }
      const answered = new Set(next.content.map((r) => r.toolCallId));
      for (const call of calls)
        if (!answered.has(call.id)) problems.push(`message ${index}: tool call ${call.id} has no result`);
      const asked = new Set(calls.map((c) => c.id));
      for (const result of next.content)
        if (!asked.has(result.toolCallId))
          problems.push(`message ${index + 1}: result for unknown call ${result.toolCallId}`);
    } else if (message.role === "tool") {
      const previous = messages[index - 1];
      if (previous?.role !== "assistant" || !previous.content.some((p) => p.type === "tool_call")) {
        problems.push(`message ${index}: tool message does not follow an assistant message with tool calls`);
      }
    }
  });
  return problems;
}

function short(value: unknown, max = 80): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (text === undefined) return "";
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

/**
 * A one-line, indented, human-readable form of an event (nesting by `depth`), or `undefined`
 * for events not worth a line (text chunks: print those as they stream).
 */
export function formatEvent(event: LoopEvent): string | undefined {
  const pad = "  ".repeat(event.depth);
  switch (event.type) {
    case "llm_call_start":
      return `${pad}· model call ${event.iteration}`;
    case "tool_call_update":
      return event.status === "start"
        ? `${pad}→ ${event.name}(${short(event.args)})`
        : `${pad}← ${event.name}${event.isError ? " ✗" : ""} ${short(event.result)} (${event.durationMs ?? 0} ms)`;
    case "approval_request":
      return `${pad}? approval needed for ${event.request.name}`;
    case "client_tool_call":
      return `${pad}? the client runs ${event.request.name}(${short(event.request.args)})`;
    case "approval_resolved":
      return `${pad}${event.approved ? "✓ approved" : "✗ denied"}`;
    case "usage":
      return `${pad}· usage ${event.inputTokens} in / ${event.outputTokens} out`;
    case "budget_exceeded":
      return `${pad}! budget exceeded: ${event.reason} (limit ${event.limit}, observed ${event.observed})`;
    case "warning":
      return `${pad}! ${event.code}: ${event.message}`;
    case "error":
      return `${pad}✗ ${event.message}`;
    case "done":
      return `${pad}done: ${event.result.status}`;
    case "message":
      return event.message.role === "user" && event.depth > 0
        ? `${pad}▸ sub-task: ${short(event.message.content)}`
        : undefined;
    case "task_status":
      return `${pad}▣ task ${event.taskId}: ${event.from ?? "new"} → ${event.to}`;
    case "planning_started":
      return `${pad}▣ planning started${event.taskId !== undefined ? ` (task ${event.taskId})` : ""}`;
    case "artifact_created":
      return `${pad}▣ artifact ${short(event.filename)} (${short(event.kind)})`;
    case "plan_ready":
      return `${pad}▣ plan ready: ${short(event.plan?.goal)} (${Array.isArray(event.plan?.steps) ? event.plan.steps.length : 0} steps)`;
    case "question":
      return `${pad}? question: ${short(event.question?.question)}`;
    case "subagent_status":
      return `${pad}▣ background agent ${event.sessionId}: ${event.from ?? "new"} → ${event.to}`;
    case "role_changed":
      return `${pad}▣ role: ${event.from ?? "none"} → ${event.to}`;
    case "message_queued":
      return `${pad}… message queued behind ${event.pendingRequestIds.join(", ")}`;
    case "tool_log":
      return `${pad}  ${event.name} [${event.level}] ${short(event.message)}`;
    case "tool_progress":
      return `${pad}  ${event.name} … ${short(event.progress)}`;
    case "context_compacted":
      return `${pad}▣ context compacted: ~${event.tokensBefore} → ~${event.tokensAfter} tokens (${event.summarizedMessages} messages, ${event.source})`;
    case "guardrail_tripped":
      return `${pad}⊘ blocked by the ${event.guard} guardrail: ${short(event.reason)}`;
    case "message_steered":
      return `${pad}↪ steered: ${short(event.message.content)}`;
    case "turn_stopped":
      return `${pad}■ stopped: ${short(event.reason)}`;
    case "chunk":
    case "thinking":
    case "tool_calls_preparing":
    case "tool_input_delta":
    case "message_stream_started":
    case "message_stream_completed":
    case "message_stream_cancelled":
      return undefined;
    default:
      return assertNever(event);
  }
}

function assertNever(value: never): never {
  throw new Error(`Unexpected event: ${JSON.stringify(value)}`);
}
