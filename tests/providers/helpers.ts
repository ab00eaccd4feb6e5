import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelEvent, ModelRequest, Provider } from "@agentry/core";

/** A seeded PRNG (mulberry32): the same seed gives the same piece sizes on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits bytes into random pieces of 1..maxPiece bytes (UTF-8 sequences and lines split anywhere). */
export function randomPieces(bytes: Uint8Array, seed: number, maxPiece = 64): Uint8Array[] {
  const random = seededRandom(seed);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const size = 1 + Math.floor(random() * maxPiece);
    pieces.push(bytes.subarray(i, i + size));
    i += size;
  }
  return pieces;
}

/** A recorded request to a test server. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: any;
  at: number;
}

/** A local HTTP server on 127.0.0.1 with an ephemeral port. */
export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** Starts a server; `handle` answers each request (the body is already read and parsed). */
export async function startServer(
  handle: (request: SeenRequest, response: ServerResponse, index: number) => void | Promise<void>,
): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the text
      }
      const seen: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        at: Date.now(),
      };
      requests.push(seen);
      Promise.resolve(handle(seen, res, requests.length - 1)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes pieces one by one, letting the event loop turn between them so they leave as separate chunks. */
export async function writePieces(response: ServerResponse, pieces: Uint8Array[]): Promise<void> {
  for (const piece of pieces) {
    if (response.destroyed) return;
    response.write(piece);
    await new Promise((resolve) => setImmediate(resolve));
  }
  response.end();
}

/** A fetch that answers every call with a 200 event stream made of exactly these pieces (no network). */
export function piecesFetch(pieces: Uint8Array[]): typeof fetch {
  return async () => {
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < pieces.length) controller.enqueue(pieces[i++]);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
}

/** What a provider stream said, gathered. */
export interface Collected {
  events: ModelEvent[];
  text: string;
  /** Thinking blocks: deltas accumulate until one carries a `signature`, which closes the block. */
  thinking: { text: string; signature?: string; redacted?: boolean }[];
  calls: { id: string; name: string; args: unknown }[];
  usage: Extract<ModelEvent, { type: "usage" }>[];
  finishes: Extract<ModelEvent, { type: "finish" }>[];
  /** Calls whose arguments streamed, in start order: the `tool_call_delta`s of each joined. */
  streamed: { id: string; name: string; args: string }[];
  /** `tool_call_delta`s of an id with no `tool_call_start` before them (the contract says none). */
  orphanDeltas: number;
  error?: unknown;
}

/** Drains a provider stream; an error is captured in `error` instead of thrown. */
export async function collect(
  provider: Provider,
  request: Partial<ModelRequest> = {},
  signal?: AbortSignal,
): Promise<Collected> {
  const out: Collected = {
    events: [],
    text: "",
    thinking: [],
    calls: [],
    usage: [],
    finishes: [],
    streamed: [],
    orphanDeltas: 0,
  };
  let open: { text: string; signature?: string; redacted?: boolean } | undefined;
  try {
    for await (const event of provider.stream(baseRequest(request), {
      signal: signal ?? new AbortController().signal,
    })) {
      out.events.push(event);
      if (event.type === "text_delta") out.text += event.text;
      else if (event.type === "thinking_delta") {
        open ??= { text: "" };
        open.text += event.text;
        if (event.signature !== undefined) {
          open.signature = event.signature;
          if (event.redacted) open.redacted = true;
          out.thinking.push(open);
          open = undefined;
        }
      } else if (event.type === "tool_call") out.calls.push({ id: event.id, name: event.name, args: event.args });
      else if (event.type === "tool_call_start") out.streamed.push({ id: event.id, name: event.name, args: "" });
      else if (event.type === "tool_call_delta") {
        const call = out.streamed.findLast((c) => c.id === event.id);
        if (call) call.args += event.argsDelta;
        else out.orphanDeltas++;
      } else if (event.type === "usage") out.usage.push(event);
      else if (event.type === "finish") out.finishes.push(event);
    }
  } catch (error) {
    out.error = error;
  }
  if (open) out.thinking.push(open);
  return out;
}

/** A minimal request with overrides. */
export function baseRequest(request: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "test-model", system: "", messages: [{ role: "user", content: "hi" }], tools: [], ...request };
}

/** An event-stream body from JSON payloads (`data: <json>\n\n` each), optionally ending with `[DONE]`. */
export function sseBody(payloads: unknown[], options: { done?: boolean; eventNames?: boolean } = {}): string {
  let text = payloads
    .map((payload) => {
      const name =
        options.eventNames && typeof payload === "object" && payload !== null
          ? (payload as { type?: string }).type
          : undefined;
      return `${name ? `event: ${name}\n` : ""}data: ${JSON.stringify(payload)}\n\n`;
    })
    .join("");
  if (options.done) text += "data: [DONE]\n\n";
  return text;
}

/** A fetch that serves this text as a 200 event stream, in pieces of `pieceSize` bytes, and records request bodies. */
export function textFetch(text: string, pieceSize = 7): typeof fetch & { bodies: any[]; headers: Headers[] } {
  const bytes = new TextEncoder().encode(text);
  const bodies: any[] = [];
  const headers: Headers[] = [];
  const fn = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(typeof init?.body === "string" ? init.body : "null"));
    headers.push(new Headers(init?.headers));
    const pieces: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += pieceSize) pieces.push(bytes.subarray(i, i + pieceSize));
    return piecesFetch(pieces)("");
  };
  const typed: typeof fetch = fn;
  return Object.assign(typed, { bodies, headers });
}
