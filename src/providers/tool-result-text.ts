import type { ToolResultContent, ToolResultPart } from "../contracts/message.js";
import {
  boundToolResultContent,
  isToolResultContent,
  toolResultContentText,
  type MediaPart,
} from "../internal/tool-result-content.js";

/**
 * A tool result as message text: a string as it is, a `ToolResultContent` as its text parts with a
 * note for each image or audio part (see `toolResultContentText`), anything else as JSON.
 */
export function toolResultText(part: ToolResultPart, describe?: (part: MediaPart) => string): string {
  if (typeof part.result === "string") return part.result;
  if (isToolResultContent(part.result)) return toolResultContentText(boundToolResultContent(part.result), describe);
  return JSON.stringify(part.result ?? null) ?? "null";
}

/**
 * The result's content when it carries media and is not an error (an error result goes as text),
 * with its media bounded again: a stored history may hold results no loop checked (a host's own
 * messages). `undefined` for any other result.
 */
export function toolResultMedia(part: ToolResultPart): ToolResultContent | undefined {
  if (part.isError || !isToolResultContent(part.result)) return undefined;
  const content = boundToolResultContent(part.result);
  return content.parts.some((inner) => inner.type !== "text") ? content : undefined;
}
