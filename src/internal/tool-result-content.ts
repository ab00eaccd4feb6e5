import type { AudioPart, ImagePart, ToolResultContent, ToolResultContentPart } from "../contracts/message.js";

/**
 * Bounds of the media parts of one {@link ToolResultContent}, in characters of base64: a part over
 * `partChars`, parts past the `parts`-th media part, and media past `resultChars` in one result
 * become text notes. 5 MiB is Anthropic's limit for one image.
 */
export const TOOL_RESULT_MEDIA_LIMITS = {
  partChars: 5 * 1024 * 1024,
  parts: 16,
  resultChars: 20 * 1024 * 1024,
} as const;

/** A media part of a tool result. */
export type MediaPart = ImagePart | AudioPart;

const MEDIA_TYPE = /^(image|audio)\/[a-z0-9][a-z0-9.+-]{0,99}$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Longest label of a server's or tool's media type shown in a note. */
const MAX_LABEL_CHARS = 100;

/**
 * Whether `value` is a {@link ToolResultContent}: `type: "content"` and a non-empty `parts` array
 * whose every item is a text part (string `text`) or an image or audio part (string `mediaType`
 * and `data`). Never throws (a getter that throws makes it no content).
 */
export function isToolResultContent(value: unknown): value is ToolResultContent {
  try {
    if (typeof value !== "object" || value === null) return false;
    const { type, parts } = value as { type?: unknown; parts?: unknown };
    if (type !== "content" || !Array.isArray(parts) || parts.length === 0) return false;
    return (parts as unknown[]).every(isContentPart);
  } catch {
    return false;
  }
}

function isContentPart(part: unknown): boolean {
  if (typeof part !== "object" || part === null) return false;
  const { type, text, mediaType, data } = part as Record<string, unknown>;
  if (type === "text") return typeof text === "string";
  return (type === "image" || type === "audio") && typeof mediaType === "string" && typeof data === "string";
}

/** Whether a part is an image or audio part. */
export const isMediaPart = (part: ToolResultContentPart): part is MediaPart => part.type !== "text";

/** A media type for a note: no control characters or brackets, cut to 100 characters. */
export function mediaLabel(mediaType: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = mediaType.replace(/[\u0000-\u001f\u007f[\]<>]/g, " ").trim();
  return clean.length > MAX_LABEL_CHARS ? `${clean.slice(0, MAX_LABEL_CHARS)}…` : clean || "unknown type";
}

/** About how many bytes base64 `data` decodes to. */
export const base64Bytes = (data: string): number => Math.floor((data.length * 3) / 4);

/** The text in place of a media part that is not sent: `[image image/png, 4035 bytes, not shown: why]`. */
export function mediaNote(part: MediaPart, why: string): string {
  return `[${part.type} ${mediaLabel(part.mediaType)}, ${base64Bytes(part.data)} bytes, not shown: ${why}]`;
}

/**
 * The content with its media bounded (`TOOL_RESULT_MEDIA_LIMITS`): a media part whose type is not
 * `image/*` (image parts) or `audio/*` (audio parts), whose data is not base64, or that is over a
 * limit becomes a text note saying why. The same object when every part is fine.
 */
export function boundToolResultContent(content: ToolResultContent): ToolResultContent {
  let mediaParts = 0;
  let mediaChars = 0;
  let changed = false;
  const parts = content.parts.map((part): ToolResultContentPart => {
    if (!isMediaPart(part)) return part;
    const why = mediaProblem(part, mediaParts, mediaChars);
    if (why === undefined) {
      mediaParts++;
      mediaChars += part.data.length;
      return part;
    }
    changed = true;
    return { type: "text", text: mediaNote(part, why) };
  });
  return changed ? { type: "content", parts } : content;
}

function mediaProblem(part: MediaPart, before: number, beforeChars: number): string | undefined {
  const limits = TOOL_RESULT_MEDIA_LIMITS;
  if (!MEDIA_TYPE.test(part.mediaType) || !part.mediaType.toLowerCase().startsWith(`${part.type}/`))
    return `not an ${part.type}/* media type`;
  if (part.data.length > limits.partChars) return `larger than ${limits.partChars} characters of base64`;
  if (before >= limits.parts) return `more than ${limits.parts} media parts in one result`;
  if (beforeChars + part.data.length > limits.resultChars)
    return `the result's media would exceed ${limits.resultChars} characters of base64`;
  if (!BASE64.test(part.data)) return "its data is not base64";
  return undefined;
}

/**
 * The content as one text, for a model that reads text only: text parts joined by newlines, each
 * media part as `describe(part)` (by default a note that it is not shown).
 */
export function toolResultContentText(
  content: ToolResultContent,
  describe: (part: MediaPart) => string = (part) => mediaNote(part, "this model reads text only here"),
): string {
  return content.parts.map((part) => (isMediaPart(part) ? describe(part) : part.text)).join("\n");
}
