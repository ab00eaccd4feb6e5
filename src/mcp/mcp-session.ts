import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { McpConnectionError } from "../errors/errors.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import type { ConnectMcpServerOptions, McpWarningCode } from "./mcp-connection.js";
import { mapMcpResult, type McpCallResult } from "./mcp-result.js";
import { toAgentryTool, type McpCallOptions, type McpToolDefinition, type McpToolMapping } from "./mcp-tool.js";
import { callMcpTask } from "./call-mcp-task.js";
import { createBoundedFetch, type BoundedFetch } from "./bounded-fetch.js";
import { createStdioLineBuffer } from "./stdio-line-buffer.js";
import { createTextTail, type TextTail } from "./text-tail.js";

/** Longest text of a transport or protocol error kept in a call's error (an HTTP error body can be long). */
const MAX_ERROR_CHARS = 2_000;

/** Pages of `tools/list` read at most (a server that keeps sending cursors is cut off). */
const MAX_LIST_PAGES = 50;

/**
 * The SDK client validates `structuredContent` against each tool's `outputSchema` with a
 * validator whose cost nobody bounds (Ajv compiles every schema of every `tools/list`, and runs
 * `pattern`s on a backtracking engine). It gets this one instead, which compiles nothing and
 * accepts everything: Agentry checks output schemas itself, with bounds (see `toAgentryTool`).
 */
const ACCEPT_ALL: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** One started server process (or HTTP session) and what we learnt about it. */
export interface McpSession {
  client: Client;
  transport: Transport | undefined;
  stderr: TextTail;
  closed: boolean;
  lastProtocolError: Error | undefined;
  /** Streamable HTTP: the transport's bounded `fetch`. */
  fetcher: BoundedFetch | undefined;
}

/** A server's checked options with their defaults applied. */
export interface McpServerSettings {
  options: ConnectMcpServerOptions;
  name: string;
  /** The command line or URL, for messages. */
  target: string;
  stdio: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  maxTools: number;
  maxMessageBytes: number;
  maxSchemaBytes: number;
  warn: (message: string, code: McpWarningCode) => void;
}

/** What a session tells its connection. */
export interface McpSessionHooks {
  /** The transport closed (the server exited or the HTTP session ended). */
  onClose(session: McpSession): void;
  /** The server sent `notifications/tools/list_changed`. */
  onToolsChanged(session: McpSession): void;
}

/** Starts the server (or opens the HTTP session) and completes the MCP handshake. */
export async function openMcpSession(settings: McpServerSettings, hooks: McpSessionHooks): Promise<McpSession> {
  const session: McpSession = {
    client: new Client({ name: "agentry", version: "1.0.0" }, { capabilities: {}, jsonSchemaValidator: ACCEPT_ALL }),
    transport: undefined,
    stderr: createTextTail(2_000),
    closed: false,
    lastProtocolError: undefined,
    fetcher: undefined,
  };
  const { client } = session;
  client.onerror = (error) => {
    session.lastProtocolError = error;
    settings.warn(`MCP server "${settings.name}": ${error.message}`, "mcp_protocol_error");
  };
  client.onclose = () => {
    session.closed = true;
    hooks.onClose(session);
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsChanged(session));
  try {
    session.transport = makeTransport(settings, session);
    await client.connect(session.transport, { timeout: settings.connectTimeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw startError(settings, error, session);
  }
  return session;
}

/**
 * Ends a session (an HTTP server is told the session is over, within `connectTimeoutMs`: a
 * server that never answers the `DELETE` cannot hold `close()`). Never rejects.
 */
export async function closeMcpSession(session: McpSession, settings: McpServerSettings): Promise<void> {
  // A streamable HTTP server keeps a session per client until told it is over.
  if (session.transport instanceof StreamableHTTPClientTransport) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const giveUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, settings.connectTimeoutMs)));
    await Promise.race([session.transport.terminateSession().catch(() => undefined), giveUp]);
    clearTimeout(timer);
  }
  await session.client.close().catch(() => undefined);
}

function makeTransport(settings: McpServerSettings, session: McpSession): Transport {
  const { options } = settings;
  if (!settings.stdio) return httpTransport(settings, session);
  const transport = new StdioClientTransport({
    command: options.command!,
    args: options.args ?? [],
    env: options.env ?? {},
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stderr: "pipe",
    maxBufferSize: settings.maxMessageBytes,
  });
  transport.stderr?.on("data", (chunk: Buffer | string) => session.stderr.push(String(chunk)));
  // The SDK's read buffer is quadratic in a message's size (seconds for 10 MB); swap in a linear
  // one where the field exists (SDK 1.x). Without it everything still works, only slower.
  const internals = transport as unknown as { _readBuffer?: unknown };
  if (internals._readBuffer !== undefined) internals._readBuffer = createStdioLineBuffer(settings.maxMessageBytes);
  return transport;
}

/**
 * A streamable HTTP transport whose reads are bounded like stdio's: each message at most
 * `maxMessageBytes`, a request's response stream read only until its answer arrives or the call
 * is cancelled (timeout, abort), and the session's `DELETE` within `connectTimeoutMs`.
 */
function httpTransport(settings: McpServerSettings, session: McpSession): Transport {
  const { options } = settings;
  let deliver: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined;
  const fetcher = createBoundedFetch({
    maxMessageBytes: settings.maxMessageBytes,
    deleteTimeoutMs: settings.connectTimeoutMs,
    // The call waiting on that stream fails now, with why, instead of at its timeout.
    onOverflow: (ids, message) =>
      ids.forEach((id) => deliver?.({ jsonrpc: "2.0", id, error: { code: ErrorCode.InternalError, message } })),
  });
  session.fetcher = fetcher;
  const transport = new StreamableHTTPClientTransport(new URL(options.url!), {
    requestInit: { headers: options.headers ?? {} },
    fetch: fetcher.fetch,
  });
  // The client sets `onmessage` when it connects: see each message after it, and stop reading a
  // request's stream once its answer is in (a server may keep the stream open and keep writing).
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => deliver,
    set(handler: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined) {
      deliver =
        handler &&
        ((message, extra) => {
          handler(message, extra);
          const id = (message as { id?: unknown; method?: unknown }).id;
          if ((typeof id === "string" || typeof id === "number") && !("method" in message)) fetcher.finish(id);
        });
    },
  });
  return transport;
}

function startError(settings: McpServerSettings, error: unknown, session: McpSession): McpConnectionError {
  const { name, target, stdio } = settings;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (stdio && (code === "ENOENT" || code === "EACCES")) {
    const why = code === "ENOENT" ? "was not found" : "is not executable";
    return new McpConnectionError(
      `Could not start MCP server "${name}": command "${settings.options.command}" ${why} (${code}).`,
      {
        server: name,
        target,
        cause: error,
      },
    );
  }
  const stderr = session.stderr.text();
  const said = stderr === "" ? "" : ` Its stderr ended with: ${stderr}`;
  if (stdio && session.closed)
    return new McpConnectionError(`MCP server "${name}" (${target}) exited during start.${said}`, {
      server: name,
      target,
      cause: error,
    });
  return new McpConnectionError(
    `MCP server "${name}" (${target}) did not complete the handshake: ${messageOf(error)}.${said}`,
    {
      server: name,
      target,
      cause: error,
    },
  );
}

/** Reads the server's tools (at most `maxTools`, over at most 50 pages) as Agentry tools. */
export async function listMcpTools(
  settings: McpServerSettings,
  session: McpSession,
  mapping: McpToolMapping,
): Promise<Tool[]> {
  const { name, maxTools, warn } = settings;
  const definitions: McpToolDefinition[] = [];
  let cursor: string | undefined;
  let more = false;
  for (let page = 0; page < MAX_LIST_PAGES && !more; page++) {
    const result = await session.client.listTools(cursor === undefined ? undefined : { cursor }, {
      timeout: settings.connectTimeoutMs,
    });
    // One by one, not push(...): a page may hold more tools than a call can take arguments.
    for (const tool of result.tools as McpToolDefinition[]) {
      if (definitions.length === maxTools) {
        more = true;
        break;
      }
      definitions.push(tool);
    }
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  if (more)
    warn(
      `MCP server "${name}" offers more than ${maxTools} tools (maxTools); the rest are left out.`,
      "mcp_tool_skipped",
    );
  const out: Tool[] = [];
  const names = new Set<string>();
  for (const definition of definitions) {
    const tool = toAgentryTool(definition, mapping);
    if ("skipped" in tool) warn(tool.skipped, "mcp_tool_skipped");
    else if (names.has(tool.name))
      warn(
        `MCP tool "${tool.name}" is left out: another tool of server "${name}" has the same name.`,
        "mcp_tool_skipped",
      );
    else {
      names.add(tool.name);
      out.push(tool);
    }
  }
  return out;
}

/**
 * Calls one tool under the turn's abort signal and `timeoutMs` (as a task when the tool requires
 * one, or offers one and the server declares task support for tool calls), with a `progressToken`
 * whose notifications go to `options.onProgress`; failures become errors the model can read.
 */
export async function callMcpTool(
  settings: McpServerSettings,
  session: McpSession,
  toolName: string,
  args: unknown,
  ctx: ToolContext,
  options: McpCallOptions = {},
): Promise<unknown> {
  if (typeof args !== "object" || args === null || Array.isArray(args))
    throw new Error(`Arguments of MCP tool "${settings.name}.${toolName}" must be a JSON object.`);
  // The SDK adds an abort listener to the signal it is given and never removes it: give it a
  // signal per call, so a turn with many calls does not pile listeners onto the turn's signal.
  const controller = new AbortController();
  const onAbort = () => controller.abort(ctx.signal.reason);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  let result: McpCallResult;
  try {
    const onProgress = options.onProgress ?? (() => undefined);
    const params = { name: toolName, arguments: args as Record<string, unknown> };
    result = asTask(session, options.taskSupport)
      ? await callMcpTask(settings, session, {
          toolName,
          args: params.arguments,
          signal: controller.signal,
          onProgress,
        })
      : await session.client.callTool(params, undefined, {
          signal: controller.signal,
          timeout: settings.timeoutMs,
          onprogress: onProgress,
        });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw callError(settings, error, session, toolName);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
  return mapMcpResult(result);
}

/** Whether a call runs as a task: the tool requires it, or offers it and the server runs tool calls as tasks. */
function asTask(session: McpSession, taskSupport: McpCallOptions["taskSupport"]): boolean {
  if (taskSupport === "required") return true;
  return (
    taskSupport === "optional" && session.client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined
  );
}

/**
 * The error the model sees for a failed call. Never the command line, the URL or the server's
 * stderr (they may hold secrets, and go to the provider with the result): the host has those in
 * the connection's `McpConnectionError` (`onClose`, `reconnect()`).
 */
function callError(settings: McpServerSettings, error: unknown, session: McpSession, toolName: string): Error {
  const { name } = settings;
  const invalid = session.lastProtocolError
    ? ` The server sent invalid data: ${session.lastProtocolError.message}.`
    : "";
  if (hasCode(error, ErrorCode.RequestTimeout)) {
    return new Error(
      `MCP server "${name}" did not answer "${toolName}" within ${settings.timeoutMs} ms; the call was cancelled.${invalid}`,
    );
  }
  if (session.closed || hasCode(error, ErrorCode.ConnectionClosed))
    return new Error(`MCP server "${name}" went away during "${toolName}".`);
  const why = messageOf(error);
  return new Error(
    `MCP server "${name}" failed "${toolName}": ${why.length > MAX_ERROR_CHARS ? `${why.slice(0, MAX_ERROR_CHARS)}…` : why}`,
  );
}

function hasCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof McpError && (error.code as ErrorCode) === code;
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
