import type { AssistantMessage, Message, ToolMessage, UserMessage } from "@agentry/core";

/** A user message with plain text. */
export const user = (text: string): UserMessage => ({ role: "user", content: text });

/** An assistant message with plain text. */
export const answer = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }] });

/** An assistant message calling `tool` once per id, and the tool message answering every call. */
export function exchange(ids: string[], tool = "read_file", result = "ok"): [AssistantMessage, ToolMessage] {
  return [
    { role: "assistant", content: ids.map((id) => ({ type: "tool_call", id, name: tool, args: { id } })) },
    { role: "tool", content: ids.map((id) => ({ type: "tool_result", toolCallId: id, name: tool, result })) },
  ];
}

/** `n` characters of filler text. */
export const text = (n: number, char = "x"): string => char.repeat(n);

/**
 * Why a history would be rejected by a provider's tool pairing rules: every assistant tool call
 * has its result in the very next message (a tool message), and every tool message answers
 * exactly the calls of the assistant message right before it. Empty when valid.
 */
export function pairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const previous = messages[index - 1];
    const next = messages[index + 1];
    if (message.role === "assistant") {
      const calls = message.content.flatMap((part) => (part.type === "tool_call" ? [part.id] : []));
      if (calls.length === 0) return;
      const answered = next?.role === "tool" ? next.content.map((result) => result.toolCallId) : [];
      for (const id of calls)
        if (!answered.includes(id)) problems.push(`#${index}: call ${id} has no result in the next message`);
    } else if (message.role === "tool") {
      const calls =
        previous?.role === "assistant"
          ? previous.content.flatMap((part) => (part.type === "tool_call" ? [part.id] : []))
          : [];
      for (const result of message.content) {
        if (!calls.includes(result.toolCallId))
          problems.push(`#${index}: result ${result.toolCallId} has no call in the previous message`);
      }
    }
  });
  return problems;
}
