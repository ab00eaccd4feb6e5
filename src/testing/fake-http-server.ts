import { argsText, FakeScriptExhaustedError, resolveFakeTurn, type FakeScript, type FakeTurn } from "./fake-script.js";
import { restoreToolNames } from "./vendor-tool-names.js";
import { timerDelay } from "../internal/timer-delay.js";
import type { ModelEvent, ModelRequest, Provider } from "../contracts/provider.js";

/** The body field the side channel of `FakeServer.provider` travels in (taken out by the server). */
const SIDE_CHANNEL_FIELD = "agentry_fake_request";

/** A fake model server on 127.0.0.1 (ephemeral port) that plays a `FakeScript` in one wire format. */
export interface FakeServer {
  /** The server's origin, e.g. `http://127.0.0.1:50123`. */
  readonly url: string;
  /** What to pass as `baseURL` to the matching provider. */
  readonly baseURL: string;
  /** Every request body, parsed, in order (the wire format, as the provider sent it). */
  readonly requests: unknown[];
  /**
   * Every request mapped back to a `ModelRequest`: what a function script was given, in the shape
   * `createFakeProvider` gives it (tool names as defined, tool results as values, the wire's
   * `tool_choice` as `toolChoice` with the tool's defined name). No `caller`: providers never send it.
   */
  readonly calls: ModelRequest[];
  /**
   * `inner` (a provider pointed at this server: `openai({ baseURL: server.baseURL })`, ...) with
   * an in-process side channel for what the wire cannot carry: each request it sends is handed to
   * the script, and recorded in `calls`, as the `ModelRequest` the loop made (`caller` included,
   * tool names as defined from the very first request), so one function script sees the same
   * requests through `createFakeProvider` and every fake server. The side channel is a field of
   * the body (`agentry_fake_request`) that the server takes out before recording `requests`.
   */
  provider(inner: Provider): Provider;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** Options of `createFakeOpenAIServer`, `createFakeAnthropicServer` and `createFakeResponsesServer`. */
export interface FakeServerOptions {
  /**
   * The tools the agent is given (or their names). Only names with a `.` matter: the adapters
   * send `tickets.get` as `tickets_get`, and the wire alone cannot say which it was. The server
   * also learns every name an array script holds and every name the script answers with, so
   * this is needed only for a dotted name a function script must see before it first calls it.
   * @default []
   */
  tools?: readonly (string | { readonly name: string })[];
  /**
   * Answer CORS preflights and allow every origin, so a page in a browser (on another origin,
   * such as a dev server) can call the fake server with `fetch`.
   * @default false
   */
  cors?: boolean;
}

/** What a wire format contributes to the shared server. */
export interface FakeWireFormat {
  /** Which adapter's wire format this is (a function script's `info.transport`). */
  transport: "openai" | "anthropic" | "responses";
  /** The POST path served, e.g. `/v1/chat/completions`. */
  path: string;
  /** Appended to the origin to make `baseURL`. */
  baseURLSuffix: string;
  toModelRequest(body: any): ModelRequest;
  /** The SSE chunks of a turn (each written separately), including an in-stream error when `withError`. */
  encodeTurn(turn: FakeTurn, callIndex: number, withError: boolean): string[];
  /** An HTTP error body for `error`. */
  errorBody(message: string, type: string): unknown;
}

// The few parts of node:http used here, declared locally: the testing entry must not need @types/node.
interface NodeRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end", listener: () => void): void;
}
interface NodeResponse {
  readonly destroyed: boolean;
  readonly headersSent: boolean;
  writeHead(status: number, headers?: Record<string, string>): void;
  write(chunk: string): boolean;
  end(chunk?: string): void;
  on(event: "close", listener: () => void): void;
}
interface NodeServer {
  listen(port: number, host: string, listener: () => void): void;
  address(): { port: number } | string | null;
  close(listener: () => void): void;
  closeAllConnections(): void;
}
interface NodeHttp {
  createServer(handler: (request: NodeRequest, response: NodeResponse) => void): NodeServer;
}

/**
 * Starts a fake server for one wire format. Per request: the body is recorded, mapped back to a
 * `ModelRequest` (tool names the adapter mapped restored), and the script's turn for that call
 * index is played (its tool names mapped as the vendor would): `delayMs` first, then the
 * turn's chunks. A turn `error` with nothing before it becomes an HTTP error response (status from
 * the error's `status`, default 500; `x-should-retry` from its `retryable`); after content it is an
 * error event inside the stream. A request past the end of the script gets a 500 that says so,
 * with `x-should-retry: false`. With `cors`, an `OPTIONS` preflight gets a 204 that allows the
 * requested method and headers, and every response allows any origin.
 */
export async function startFakeHttpServer(init: {
  script: FakeScript;
  format: FakeWireFormat;
  options?: FakeServerOptions;
}): Promise<FakeServer> {
  const { script, format } = init;
  const known = new Set((init.options?.tools ?? []).map((tool) => (typeof tool === "string" ? tool : tool.name)));
  if (Array.isArray(script)) for (const turn of script) for (const call of turn.toolCalls ?? []) known.add(call.name);
  const specifier = "node:http";
  const http = (await import(/* @vite-ignore */ specifier)) as NodeHttp;
  const requests: unknown[] = [];
  const calls: ModelRequest[] = [];
  const cors = init.options?.cors === true;
  /** The requests `provider(...)` sent, by their side-channel token (a retry sends the same token again). */
  const sent = new Map<string, ModelRequest>();
  const sidePrefix = globalThis.crypto.randomUUID();
  const allowOrigin: Record<string, string> = cors ? { "access-control-allow-origin": "*" } : {};
  const headersFor = (headers: Record<string, string>) => ({ ...headers, ...allowOrigin });
  let next = 0;

  const handle = async (body: string, response: NodeResponse) => {
    let closed = false;
    let wakeOnClose: (() => void) | undefined;
    response.on("close", () => {
      closed = true;
      wakeOnClose?.();
    });
    const parsed: unknown = JSON.parse(body);
    const original = takeSideChannel(parsed, sent);
    requests.push(parsed);
    for (const tool of original?.tools ?? []) known.add(tool.name);
    const restored = restoreToolNames(format.toModelRequest(parsed), known);
    const { toVendor } = restored;
    const request = original ? structuredClone(original) : restored.request;
    calls.push(request);
    const callIndex = next++;
    let turn: FakeTurn;
    try {
      turn = vendorNamed(
        await resolveFakeTurn(script, request, callIndex, { transport: format.transport, raw: parsed }),
        known,
        toVendor,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const type = FakeScriptExhaustedError.isInstance(error) ? "fake_script_exhausted" : "fake_script_error";
      response.writeHead(500, headersFor({ "content-type": "application/json", "x-should-retry": "false" }));
      response.end(JSON.stringify(format.errorBody(message, type)));
      return;
    }
    if (turn.delayMs) {
      // Like the fake provider's abortable delay: a client that hangs up ends the wait.
      await new Promise<void>((resolve) => {
        // Over 2^31-1 ms (or Infinity): wait until the client hangs up, never "at once".
        const delay = timerDelay(turn.delayMs);
        const timer = delay === undefined ? undefined : setTimeout(resolve, delay);
        wakeOnClose = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (closed) return;
    const hasContent = Boolean(turn.text || turn.chunks?.length || turn.thinking || turn.toolCalls?.length);
    if (turn.error !== undefined && !hasContent) {
      const error = turn.error as { status?: unknown; retryable?: unknown; retryAfterMs?: unknown };
      const status = typeof error.status === "number" && error.status >= 400 ? error.status : 500;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (typeof error.retryable === "boolean") headers["x-should-retry"] = String(error.retryable);
      if (typeof error.retryAfterMs === "number") headers["retry-after-ms"] = String(error.retryAfterMs);
      response.writeHead(status, headersFor(headers));
      response.end(
        JSON.stringify(format.errorBody(fakeErrorMessage(turn.error), fakeErrorType(turn.error, "api_error"))),
      );
      return;
    }
    response.writeHead(200, headersFor({ "content-type": "text/event-stream", "cache-control": "no-cache" }));
    for (const chunk of format.encodeTurn(turn, callIndex, turn.error !== undefined)) {
      if (closed) return;
      response.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    response.end();
  };

  const server = http.createServer((request, response) => {
    const decoder = new TextDecoder();
    let body = "";
    request.on("data", (chunk) => (body += decoder.decode(chunk, { stream: true })));
    request.on("end", () => route(request, response, { cors, format, headersFor }, () => handle(body, response)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    url,
    baseURL: `${url}${format.baseURLSuffix}`,
    requests,
    calls,
    provider: (inner) => sideChannelProvider(inner, sent, sidePrefix),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers a preflight or an unknown route itself; hands a POST to the format's path to `serve`. */
function route(
  request: NodeRequest,
  response: NodeResponse,
  server: {
    cors: boolean;
    format: FakeWireFormat;
    headersFor: (headers: Record<string, string>) => Record<string, string>;
  },
  serve: () => Promise<void>,
): void {
  if (server.cors && request.method === "OPTIONS") {
    response.writeHead(204, preflightHeaders(request));
    response.end();
    return;
  }
  const fail = (status: number, message: string, type: string) => {
    response.writeHead(status, server.headersFor({ "content-type": "application/json" }));
    response.end(JSON.stringify(server.format.errorBody(message, type)));
  };
  if (request.method !== "POST" || !request.url?.startsWith(server.format.path))
    return fail(404, `No route for ${request.method} ${request.url}`, "not_found_error");
  serve().catch((error: unknown) => {
    if (!response.destroyed && !response.headersSent)
      fail(400, error instanceof Error ? error.message : String(error), "invalid_request_error");
  });
}

/** `inner` sending each request's side-channel token in its body (see `FakeServer.provider`). */
function sideChannelProvider(inner: Provider, sent: Map<string, ModelRequest>, prefix: string): Provider {
  return {
    id: inner.id,
    stream(request, options) {
      const token = `${prefix}:${sent.size + 1}`;
      sent.set(token, structuredClone(request));
      const providerOptions = { ...request.providerOptions, [SIDE_CHANNEL_FIELD]: token };
      return inner.stream({ ...request, providerOptions }, options);
    },
  };
}

/** The request a side-channel token in `body` stands for (the field is taken out of the body). */
function takeSideChannel(body: unknown, sent: ReadonlyMap<string, ModelRequest>): ModelRequest | undefined {
  if (typeof body !== "object" || body === null || !(SIDE_CHANNEL_FIELD in body)) return undefined;
  const record = body as Record<string, unknown>;
  const token = record[SIDE_CHANNEL_FIELD];
  delete record[SIDE_CHANNEL_FIELD];
  return typeof token === "string" ? sent.get(token) : undefined;
}

/** A CORS preflight's answer: any origin, POST, the headers the browser asked for. */
function preflightHeaders(request: NodeRequest): Record<string, string> {
  const asked = request.headers["access-control-request-headers"];
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers": (Array.isArray(asked) ? asked.join(", ") : asked) || "content-type, authorization",
    "access-control-max-age": "600",
  };
}

/** The turn with its tool calls under the names the vendor would use; the names are learned. */
function vendorNamed(turn: FakeTurn, known: Set<string>, toVendor: (name: string) => string): FakeTurn {
  if (!turn.toolCalls?.length) return turn;
  for (const call of turn.toolCalls) if (typeof call.name === "string") known.add(call.name);
  return { ...turn, toolCalls: turn.toolCalls.map((call) => ({ ...call, name: toVendor(call.name) })) };
}

/** The message of a scripted error (an `Error`, a string, or anything JSON-able). */
export function fakeErrorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message;
  }
  return typeof error === "string" ? error : JSON.stringify(error);
}

/** The `errorType` of a scripted error (a `ProviderError` has one), else `fallback`. */
export function fakeErrorType(error: unknown, fallback: string): string {
  const type = typeof error === "object" && error !== null ? (error as { errorType?: unknown }).errorType : undefined;
  return typeof type === "string" ? type : fallback;
}

/** Splits JSON text into up to three pieces, so argument assembly across chunks is exercised. */
export function splitInThree(text: string): string[] {
  if (text.length < 3) return [text];
  const a = Math.ceil(text.length / 3);
  return [text.slice(0, a), text.slice(a, 2 * a), text.slice(2 * a)];
}

/** One step of a turn's tool calls on the wire: a call opens, gets a piece of its arguments, or closes. */
export type ToolCallStep =
  | { step: "start"; index: number; id: string; name: string }
  | { step: "args"; index: number; text: string }
  | { step: "end"; index: number; args: string };

/**
 * The tool calls among a turn's events as wire steps, `index` counting the calls in the order they
 * open. Streamed arguments (`FakeTurn.streamToolArgs`) keep their pieces and their order (interleaved
 * too); a call sent complete opens, gets its arguments in up to three pieces and closes, one call
 * after another.
 */
export function toolCallSteps(events: readonly ModelEvent[]): ToolCallStep[] {
  const steps: ToolCallStep[] = [];
  const open = new Map<string, number>();
  let next = 0;
  for (const event of events) {
    if (event.type === "tool_call_start") {
      const index = next++;
      open.set(event.id, index);
      steps.push({ step: "start", index, id: event.id, name: event.name });
    } else if (event.type === "tool_call_delta") {
      const index = open.get(event.id);
      if (index !== undefined) steps.push({ step: "args", index, text: event.argsDelta });
    } else if (event.type === "tool_call") {
      const args = argsText(event.args);
      let index = open.get(event.id);
      open.delete(event.id);
      if (index === undefined) {
        index = next++;
        steps.push({ step: "start", index, id: event.id, name: event.name });
        for (const text of splitInThree(args)) steps.push({ step: "args", index, text });
      }
      steps.push({ step: "end", index, args });
    }
  }
  return steps;
}
