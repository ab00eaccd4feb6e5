import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

type RequestId = string | number;

/** What {@link createBoundedFetch} takes. */
export interface BoundedFetchOptions {
  /** Most bytes of one message: of an SSE event (between blank lines), or of a whole non-SSE body. */
  maxMessageBytes: number;
  /** Time limit of a `DELETE` (the session's end): a server that never answers it cannot hold `close()`. */
  deleteTimeoutMs: number;
  /**
   * A response stream of these requests went over `maxMessageBytes` (SSE only: a JSON body's reader fails by itself).
   */
  onOverflow(requestIds: RequestId[], message: string): void;
}

/** A `fetch` for the SDK's streamable HTTP client transport whose reads are bounded. */
export interface BoundedFetch {
  fetch: FetchLike;
  /** Stops reading the response stream of request `id` (its answer arrived, or it was cancelled). */
  finish(id: RequestId): void;
}

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The JSON-RPC request ids a POST body carries, and the request ids it cancels. */
function idsOf(body: unknown): { requests: RequestId[]; cancelled: RequestId[] } {
  const requests: RequestId[] = [];
  const cancelled: RequestId[] = [];
  if (typeof body !== "string") return { requests, cancelled };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { requests, cancelled };
  }
  for (const message of Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]) {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } } | null;
    if (typeof m?.method !== "string") continue;
    if (typeof m.id === "string" || typeof m.id === "number") requests.push(m.id);
    const cancels = m.params?.requestId;
    if (m.method === "notifications/cancelled" && (typeof cancels === "string" || typeof cancels === "number"))
      cancelled.push(cancels);
  }
  return { requests, cancelled };
}

/**
 * Counts the bytes of the current message: an SSE event ends at a blank line; any other body is
 * one message. Returns a function that takes each chunk and says whether the cap still holds.
 */
function messageMeter(sse: boolean, maxBytes: number): (chunk: Uint8Array) => boolean {
  let size = 0;
  let newline = false; // the previous byte ended a line
  let carriageReturn = false;
  return (chunk) => {
    if (!sse) {
      size += chunk.length;
      return size <= maxBytes;
    }
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === 10 && carriageReturn) {
        carriageReturn = false;
        continue;
      }
      carriageReturn = byte === 13;
      if (byte === 10 || byte === 13) {
        if (newline) size = 0;
        newline = true;
        continue;
      }
      newline = false;
      if (++size > maxBytes) return false;
    }
    return true;
  };
}

/**
 * A `fetch` whose response bodies are read under a byte cap per message (an SSE line or event
 * that never ends, a JSON body that never ends: the stream fails at `maxMessageBytes`), whose
 * request streams can be stopped by request id (`finish`: when the answer arrived, and when the
 * SDK cancels the request after a timeout or an abort, which it announces with
 * `notifications/cancelled`), and whose `DELETE` gives up after `deleteTimeoutMs`.
 */
export function createBoundedFetch(options: BoundedFetchOptions): BoundedFetch {
  const streams = new Map<RequestId, () => void>();
  const finish = (id: RequestId) => {
    const stop = streams.get(id);
    streams.delete(id);
    stop?.();
  };

  const boundedFetch: FetchLike = async (url, init = {}) => {
    const { requests, cancelled } = idsOf(init.body);
    cancelled.forEach(finish);
    const controller = new AbortController();
    const parent = init.signal;
    const onAbort = () => controller.abort(parent?.reason);
    if (parent?.aborted) onAbort();
    else parent?.addEventListener("abort", onAbort, { once: true });
    const timer =
      init.method === "DELETE"
        ? setTimeout(
            () => controller.abort(new Error("the server did not answer the session's end")),
            options.deleteTimeoutMs,
          )
        : undefined;
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: controller.signal });
    } catch (error) {
      parent?.removeEventListener("abort", onAbort);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (!response.body || NULL_BODY.has(response.status)) {
      parent?.removeEventListener("abort", onAbort);
      return response;
    }
    const sse = (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
    const fits = messageMeter(sse, options.maxMessageBytes);
    const reader = response.body.getReader();
    let out!: ReadableStreamDefaultController<Uint8Array>;
    let ended = false;
    const end = (error?: Error) => {
      if (ended) return;
      ended = true;
      parent?.removeEventListener("abort", onAbort);
      for (const id of requests) if (streams.get(id) === stop) streams.delete(id);
      void reader.cancel().catch(() => undefined);
      controller.abort();
      try {
        if (error) out.error(error);
        else out.close();
      } catch {
        // The reader already cancelled the stream.
      }
    };
    const stop = () => end();
    for (const id of requests) streams.set(id, stop);
    const body = new ReadableStream<Uint8Array>({
      start(streamController) {
        out = streamController;
      },
      async pull() {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          end(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (ended) return;
        if (next.done) return end();
        if (!fits(next.value)) {
          const message = `the MCP server sent a message over ${options.maxMessageBytes} bytes (maxMessageBytes); the response was cut off`;
          end(new Error(message));
          if (sse && requests.length > 0) options.onOverflow(requests, message);
          return;
        }
        out.enqueue(next.value);
      },
      cancel() {
        end();
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: boundedFetch, finish };
}
