import type { FilePart } from "../contracts/message.js";

/** Longest file name or media type shown in a note; longer ones are cut. */
const MAX_LABEL_CHARS = 100;

/** A label from the user's file: no control characters or brackets (the note's own), cut to a bounded length. */
function label(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f[\]<>]/g, " ").trim();
  return clean.length > MAX_LABEL_CHARS ? `${clean.slice(0, MAX_LABEL_CHARS)}…` : clean;
}

/** Why a file part was left out: its type, or how it is given (by URL, by file id). */
export type UnsentReason = "type" | "url" | "file_id";

const REASONS: Record<UnsentReason, string> = {
  type: "does not take this file type",
  url: "does not take this file by URL; attach its data instead",
  file_id: "does not take this file by file id; attach its data instead",
};

/**
 * The text sent in place of a file part the model's API cannot take, in that request only: the
 * stored message keeps the part, so a history holding it never fails a later request, and the
 * model reads that the file was left out and why (e.g. `[attachment report.docx
 * (application/msword) not sent: openai does not take this file type]`).
 */
export function unsentAttachmentNote(part: FilePart, provider: string, reason: UnsentReason): string {
  const name = typeof part.filename === "string" && part.filename !== "" ? `${label(part.filename)} ` : "";
  return `[attachment ${name}(${label(String(part.mediaType))}) not sent: ${label(provider)} ${REASONS[reason]}]`;
}
