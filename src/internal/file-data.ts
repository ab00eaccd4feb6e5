import type { FilePart, UserPart } from "../contracts/message.js";

/** Bytes encoded per `btoa` call (a multiple of 3, so the pieces concatenate to one base64 text). */
const CHUNK = 3 * 8_192;

/** Base64 of `data` (a string is taken as base64 already). No `node:` imports: runs everywhere. */
export function base64Of(data: string | Uint8Array): string {
  if (typeof data === "string") return data;
  let out = "";
  for (let start = 0; start < data.length; start += CHUNK) {
    out += btoa(String.fromCharCode(...data.subarray(start, start + CHUNK)));
  }
  return out;
}

/** Whether a media type is an image type (`image/png`, ...). */
export const isImageType = (mediaType: string): boolean => /^image\//i.test(mediaType);

/** Whether a media type is PDF. */
export const isPdfType = (mediaType: string): boolean => /^application\/pdf$/i.test(mediaType.split(";")[0]!.trim());

/**
 * A user content with every file part's byte data turned into base64 text (so it can be stored as
 * JSON); the same value when there is none.
 */
export function withBase64Files(content: string | UserPart[]): string | UserPart[] {
  if (
    typeof content === "string" ||
    !content.some((part) => part.type === "file" && part.source.type === "data" && typeof part.source.data !== "string")
  ) {
    return content;
  }
  return content.map((part): UserPart => {
    if (part.type !== "file" || part.source.type !== "data" || typeof part.source.data === "string") return part;
    const file: FilePart = { ...part, source: { type: "data", data: base64Of(part.source.data) } };
    return file;
  });
}

/** What is wrong with the file parts of a host's user content (index and why), or an empty list. */
export function fileProblems(content: readonly unknown[]): string[] {
  const problems: string[] = [];
  content.forEach((part, index) => {
    const file = part as {
      type?: unknown;
      mediaType?: unknown;
      source?: { type?: unknown; data?: unknown; url?: unknown; fileId?: unknown };
    };
    if (file === null || typeof file !== "object" || file.type !== "file") return;
    const at = `content[${index}]`;
    if (typeof file.mediaType !== "string" || file.mediaType === "")
      problems.push(`${at}.mediaType must be a non-empty string`);
    const source = file.source;
    const ok =
      source !== null &&
      typeof source === "object" &&
      ((source.type === "data" && (typeof source.data === "string" || source.data instanceof Uint8Array)) ||
        (source.type === "url" && typeof source.url === "string" && source.url !== "") ||
        (source.type === "file_id" && typeof source.fileId === "string" && source.fileId !== ""));
    if (!ok)
      problems.push(`${at}.source must be { type: "data", data }, { type: "url", url } or { type: "file_id", fileId }`);
  });
  return problems;
}
