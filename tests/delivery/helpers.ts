import { z } from "zod";
import { defineTool } from "@agentry/core";

/** One parsed SSE message (`retry`/comments kept for the tests that look at them). */
export interface SseMessage {
  id?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Reads a whole `text/event-stream` body and parses it per the SSE spec's line rules (enough for these tests). */
export async function readSse(stream: ReadableStream<Uint8Array>): Promise<SseMessage[]> {
  const text = await new Response(stream).text();
  return parseSse(text);
}

export function parseSse(text: string): SseMessage[] {
  const messages: SseMessage[] = [];
  for (const block of text.split("\n\n")) {
    if (block === "") continue;
    const message: SseMessage = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) message.comment = line.slice(1).trim();
      else {
        const colon = line.indexOf(":");
        const field = line.slice(0, colon) as keyof SseMessage;
        const value = line.slice(colon + 1).replace(/^ /, "");
        message[field] = field === "data" && message.data !== undefined ? `${message.data}\n${value}` : value;
      }
    }
    messages.push(message);
  }
  return messages;
}

/** A tool that waits until `open()` is called: keeps a turn running while a test reconnects. */
export function gate(name = "wait_for_gate") {
  let open!: () => void;
  let entered!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (entered = resolve));
  const tool = defineTool({
    name,
    description: "Waits for the test",
    input: z.object({}),
    execute: async () => {
      entered();
      await opened;
      return "gate opened";
    },
  });
  return { tool, open: () => open(), reached };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
