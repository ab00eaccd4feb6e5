import type { Message } from "../contracts/message.js";
import type { ModelRequest } from "../contracts/provider.js";

/**
 * The request flattened into one prompt for a CLI agent: the system prompt, then the conversation.
 * A lone user message is passed as its text; a longer conversation is labelled turn by turn
 * (`User:`, `Assistant:`, `Tool result (name):`), images become a placeholder.
 */
export function cliPrompt(request: ModelRequest): string {
  const parts: string[] = [];
  if (request.system.trim() !== "") parts.push(request.system.trim());
  const only = request.messages.length === 1 ? request.messages[0] : undefined;
  if (only?.role === "user") parts.push(userText(only));
  else for (const message of request.messages) parts.push(render(message));
  return parts.join("\n\n");
}

function userText(message: Extract<Message, { role: "user" }>): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => (part.type === "text" ? part.text : `[${part.type}: ${part.mediaType}]`))
    .join("\n");
}

function render(message: Message): string {
  switch (message.role) {
    case "user":
      return `User: ${userText(message)}`;
    case "assistant": {
      const lines = message.content.flatMap((part) => {
        if (part.type === "text") return part.text === "" ? [] : [part.text];
        if (part.type === "tool_call") return [`[called ${part.name} with ${JSON.stringify(part.args)}]`];
        return [];
      });
      return `Assistant: ${lines.join("\n")}`;
    }
    case "tool":
      return message.content
        .map(
          (part) =>
            `Tool result (${part.name})${part.isError ? " [error]" : ""}: ${typeof part.result === "string" ? part.result : JSON.stringify(part.result)}`,
        )
        .join("\n\n");
  }
}
