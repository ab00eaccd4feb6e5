/**
 * The parts of Node's `IncomingMessage` the adapter uses (structural, so this module imports
 * nothing from `node:*` and the inspector entry loads on any runtime).
 */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express sets it to the path before its mount point was stripped. */
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** The parts of Node's `ServerResponse` the adapter uses. */
export interface NodeResponseLike {
  headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string): unknown;
  destroy(): unknown;
  on(event: "close", listener: () => void): unknown;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** A Fetch handler, as `createInspector` returns. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Adapts a Fetch handler to Node's `http` (and Express) `(req, res)` signature. The request's
 * abort signal fires when the client goes, so a live stream ends with the connection.
 *
 * @example
 * import { createServer } from "node:http";
 * createServer(toNodeHandler(createInspector({ runtime, authorize }))).listen(4000);
 * // Express: app.use("/inspector", toNodeHandler(createInspector({ runtime, authorize, basePath: "/inspector/" })))
 * // (mount with the full path: Express strips the mount path from req.url, so pass originalUrl through basePath)
 */
export function toNodeHandler(handler: FetchHandler): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return (req, res) => {
    void serve(handler, req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(500, { "content-type": "application/json" });
        res.end('{"error":"internal error"}');
      }
    });
  };
}

async function serve(handler: FetchHandler, req: NodeRequestLike, res: NodeResponseLike): Promise<void> {
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const hostHeader = req.headers.host;
  const host = typeof hostHeader === "string" && /^[A-Za-z0-9.:[\]-]+$/.test(hostHeader) ? hostHeader : "localhost";
  const path = req.originalUrl ?? req.url ?? "/";
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method: req.method ?? "GET", headers, signal: controller.signal };
  if (hasBody) {
    init.body = new ReadableStream<Uint8Array>({
      start(stream) {
        req.on("data", (chunk: Uint8Array) => stream.enqueue(new Uint8Array(chunk)));
        req.on("end", () => stream.close());
        req.on("error", (error) => stream.error(error));
      },
    });
    init.duplex = "half";
  }
  const response = await handler(new Request(new URL(path, `http://${host}`), init));
  const outHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (outHeaders[name] = value));
  res.writeHead(response.status, outHeaders);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  controller.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await drained(res);
  }
  res.end();
}

/** Resolves when `res` drains or closes; the listener of the other event is removed, so a long stream adds none. */
function drained(res: NodeResponseLike): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}
