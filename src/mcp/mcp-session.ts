import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpConnectionError } from "../errors/errors.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import type { ConnectMcpServerOptions, McpWarningCode } from "./mcp-connection.js";
import { mapMcpResult, type McpCallResult } from "./mcp-result.js";
import { toAgentryTool, type McpToolDefinition, type McpToolMapping } from "./mcp-tool.js";
import { createStdioLineBuffer } from "./stdio-line-buffer.js";
import { createTextTail, type TextTail } from "./text-tail.js";

/** Pages of `tools/list` read at most (a server that keeps sending cursors is cut off). */
const MAX_LIST_PAGES = 50;

/** One started server process (or HTTP session) and what we learnt about it. */
export interface McpSession {
  client: Client;
  transport: Transport | undefined;
  stderr: TextTail;
  closed: boolean;
  lastProtocolError: Error | undefined;
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
    client: new Client({ name: "agentry", version: "1.0.0" }, { capabilities: {} }),
    transport: undefined,
    stderr: createTextTail(2_000),
    closed: false,
    lastProtocolError: undefined,
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
    session.transport = makeTransport(settings, session.stderr);
    await client.connect(session.transport, { timeout: settings.connectTimeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw startError(settings, error, session);
  }
  return session;
}

/** Ends a session (an HTTP server is told the session is over). Never rejects. */
export async function closeMcpSession(session: McpSession): Promise<void> {
  // A streamable HTTP server keeps a session per client until told it is over.
  if (session.transport instanceof StreamableHTTPClientTransport) {
    await session.transport.terminateSession().catch(() => undefined);
  }
  await session.client.close().catch(() => undefined);
}

function makeTransport(settings: McpServerSettings, stderr: TextTail): Transport {
  const { options } = settings;
  if (!settings.stdio) return new StreamableHTTPClientTransport(new URL(options.url!), { requestInit: { headers: options.headers ?? {} } });
  const transport = new StdioClientTransport({
    command: options.command!,
    args: options.args ?? [],
    env: options.env ?? {},
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stderr: "pipe",
    maxBufferSize: settings.maxMessageBytes,
  });
  transport.stderr?.on("data", (chunk: Buffer | string) => stderr.push(String(chunk)));
  // The SDK's read buffer is quadratic in a message's size (seconds for 10 MB); swap in a linear
  // one where the field exists (SDK 1.x). Without it everything still works, only slower.
  const internals = transport as unknown as { _readBuffer?: unknown };
  if (internals._readBuffer !== undefined) internals._readBuffer = createStdioLineBuffer(settings.maxMessageBytes);
  return transport;
}

function startError(settings: McpServerSettings, error: unknown, session: McpSession): McpConnectionError {
  const { name, target, stdio } = settings;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (stdio && (code === "ENOENT" || code === "EACCES")) {
    const why = code === "ENOENT" ? "was not found" : "is not executable";
    return new McpConnectionError(`Could not start MCP server "${name}": command "${settings.options.command}" ${why} (${code}).`, {
      server: name,
      target,
      cause: error,
    });
  }
  const stderr = session.stderr.text();
  const said = stderr === "" ? "" : ` Its stderr ended with: ${stderr}`;
  if (stdio && session.closed)
    return new McpConnectionError(`MCP server "${name}" (${target}) exited during start.${said}`, { server: name, target, cause: error });
  return new McpConnectionError(`MCP server "${name}" (${target}) did not complete the handshake: ${messageOf(error)}.${said}`, {
    server: name,
    target,
    cause: error,
  });
}

/** Reads the server's tools (at most `maxTools`, over at most 50 pages) as Agentry tools. */
export async function listMcpTools(settings: McpServerSettings, session: McpSession, mapping: McpToolMapping): Promise<Tool[]> {
  const { name, maxTools, warn } = settings;
  const definitions: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES && definitions.length <= maxTools; page++) {
    const result = await session.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: settings.connectTimeoutMs });
    definitions.push(...(result.tools as McpToolDefinition[]));
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  const out: Tool[] = [];
  const names = new Set<string>();
  for (const definition of definitions) {
    if (out.length === maxTools) {
      warn(`MCP server "${name}" offers more than ${maxTools} tools (maxTools); the rest are left out.`, "mcp_tool_skipped");
      break;
    }
    const tool = toAgentryTool(definition, mapping);
    if ("skipped" in tool) warn(tool.skipped, "mcp_tool_skipped");
    else if (names.has(tool.name)) warn(`MCP tool "${tool.name}" is left out: another tool of server "${name}" has the same name.`, "mcp_tool_skipped");
    else {
      names.add(tool.name);
      out.push(tool);
    }
  }
  return out;
}

/** Calls one tool under the turn's abort signal and `timeoutMs`; failures become errors the model can read. */
export async function callMcpTool(settings: McpServerSettings, session: McpSession, toolName: string, args: unknown, ctx: ToolContext): Promise<unknown> {
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
    result = await session.client.callTool({ name: toolName, arguments: args as Record<string, unknown> }, undefined, {
      signal: controller.signal,
      timeout: settings.timeoutMs,
    });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw callError(settings, error, session, toolName);
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
  return mapMcpResult(result);
}

function callError(settings: McpServerSettings, error: unknown, session: McpSession, toolName: string): Error {
  const { name } = settings;
  const invalid = session.lastProtocolError ? ` The server sent invalid data: ${session.lastProtocolError.message}.` : "";
  if (hasCode(error, ErrorCode.RequestTimeout)) {
    return new Error(`MCP server "${name}" did not answer "${toolName}" within ${settings.timeoutMs} ms; the call was cancelled.${invalid}`);
  }
  if (session.closed || hasCode(error, ErrorCode.ConnectionClosed)) {
    const stderr = session.stderr.text();
    return new Error(`MCP server "${name}" went away during "${toolName}".${stderr === "" ? "" : ` Its stderr ended with: ${stderr}`}`);
  }
  return new Error(`MCP server "${name}" failed "${toolName}": ${messageOf(error)}`);
}

function hasCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof McpError && (error.code as ErrorCode) === code;
}

/** An error's message, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
