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
  if (typeof content === "string" || !content.some((part) => part.type === "file" && part.source.type === "data" && typeof part.source.data !== "string")) {
    return content;
  }
  return content.map((part): UserPart => {
    if (part.type !== "file" || part.source.type !== "data" || typeof part.source.data === "string") return part;
    const file: FilePart = { ...part, source: { type: "data", data: base64Of(part.source.data) } };
    return file;
  });
}
