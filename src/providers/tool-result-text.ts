import type { ToolResultPart } from "../contracts/message.js";

/** A tool result as message text: a string as it is, anything else as JSON. */
export function toolResultText(part: ToolResultPart): string {
  if (typeof part.result === "string") return part.result;
  return JSON.stringify(part.result ?? null) ?? "null";
}
