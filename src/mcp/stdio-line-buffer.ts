import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What the SDK's stdio client transport needs from its read buffer. */
export interface StdioLineBuffer {
  append(chunk: Buffer): void;
  readMessage(): JSONRPCMessage | null;
  clear(): void;
}

/**
 * A read buffer for newline-delimited JSON-RPC that copies each byte once. The SDK's own buffer
 * concatenates the whole pending buffer on every chunk, so a 10 MB message arriving in 64 KB
 * chunks costs about a gigabyte of copying (seconds per call); this one keeps the chunks and
 * joins them once a line is complete. Same contract: throws (and clears) past `maxBytes`.
 */
export function createStdioLineBuffer(maxBytes: number): StdioLineBuffer {
  let chunks: Buffer[] = [];
  let size = 0;
  /** Leading chunks already known to hold no newline. */
  let scanned = 0;
  const clear = () => {
    chunks = [];
    size = 0;
    scanned = 0;
  };
  return {
    append(chunk) {
      if (size + chunk.length > maxBytes) {
        clear();
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
      }
      chunks.push(chunk);
      size += chunk.length;
    },
    readMessage() {
      for (let i = scanned; i < chunks.length; i++) {
        const at = chunks[i]!.indexOf(10);
        if (at === -1) {
          scanned = i + 1;
          continue;
        }
        const head = i === 0 ? chunks[0]! : Buffer.concat(chunks.slice(0, i + 1));
        const end = head.length - chunks[i]!.length + at;
        const line = head.toString("utf8", 0, end).replace(/\r$/, "");
        const rest = head.subarray(end + 1);
        chunks = rest.length > 0 ? [rest, ...chunks.slice(i + 1)] : chunks.slice(i + 1);
        size -= end + 1;
        scanned = 0;
        return deserializeMessage(line);
      }
      return null;
    },
    clear,
  };
}
