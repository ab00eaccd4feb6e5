import type { AssistantMessage } from "../../contracts/message.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";

/** Longest response text returned by `agents_message` before it is cut. */
export const MAX_DELEGATION_RESPONSE_CHARS = 20_000;

/** Where a delegated answer comes from, as `agents_message` reports it. */
export interface DelegationBase {
  agentId: string;
  sessionId: string;
  [key: string]: unknown;
}

/**
 * What a sync `agents_message` call returns for the target's turn: its answer (text, tool calls,
 * thinking) when it completed, else an error result saying why. The same whether the answer came
 * at once or after the target waited for a decision (then `resumed: true`).
 */
export function delegationAnswer(
  result: TurnResult,
  base: DelegationBase,
  durationMs: number | undefined,
): { value: unknown; isError: boolean } {
  if (result.status !== "complete") {
    return {
      value: `Agent "${result.agentId}" did not complete (status ${result.status})${result.error ? `: ${result.error.message}` : ""}.`,
      isError: true,
    };
  }
  const nodes = result.executionTree.nodes;
  const thinking = result.messages
    .filter((m): m is AssistantMessage => m.role === "assistant")
    .flatMap((m) => m.content.flatMap((p) => (p.type === "thinking" && !p.redacted ? [p.text] : [])))
    .join("\n");
  const truncated = result.text.length > MAX_DELEGATION_RESPONSE_CHARS;
  const value = {
    mode: "sync" as const,
    status: "complete" as const,
    ...base,
    response: truncated ? result.text.slice(0, MAX_DELEGATION_RESPONSE_CHARS) : result.text,
    truncated,
    ...(durationMs !== undefined && { durationMs }),
    // A CLI agent runs its own tools: the loop never sees them, its usage counts them.
    toolCallCount: Math.max(nodes.length, result.usage.toolCalls),
    toolCalls: nodes.map((n) => ({ name: n.name, durationMs: n.duration_ms })),
    ...(thinking !== "" && { thinkingText: thinking }),
  };
  return { value, isError: false };
}

/**
 * The id under which a sync `agents_message` call waits when its target suspends (one per call, the same in every
 * process).
 */
export function waitRequestId(runId: string, toolCallId: string): string {
  return `${runId}:wait:${toolCallId}`;
}
