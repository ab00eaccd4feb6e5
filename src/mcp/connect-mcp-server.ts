import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { InvalidArgumentError, McpConnectionError } from "../errors/errors.js";
import type { Tool, ToolContext } from "../contracts/tool.js";
import type { ConnectMcpServerOptions, McpConnection, McpConnectionStatus, McpWarningCode } from "./mcp-connection.js";
import { mapMcpResult, type McpCallResult } from "./mcp-result.js";
import { toAgentryTool, type McpToolDefinition, type McpToolMapping } from "./mcp-tool.js";
import { createStdioLineBuffer } from "./stdio-line-buffer.js";
import { createTextTail, type TextTail } from "./text-tail.js";

const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;
/** Pages of `tools/list` read at most (a server that keeps sending cursors is cut off). */
const MAX_LIST_PAGES = 50;

/** One started server process (or HTTP session) and what we learnt about it. */
interface Session {
  client: Client;
  transport: Transport | undefined;
  stderr: TextTail;
  closed: boolean;
  lastProtocolError: Error | undefined;
}

/**
 * Connects to an MCP server, over stdio (`command`) or streamable HTTP (`url`), and reads its
 * tools as Agentry tools named `${name}.${tool}`, with `mcpServer: name` (so
 * `policy.allowedMcpServers` must list `name`), the server's JSON Schema as `inputSchema`,
 * `permissionClass` from the options (default `"network"`) and approval from the annotations
 * (see `ConnectMcpServerOptions.approval`). Tools declared read-only carry `readOnly: true`.
 *
 * A tool call honours the turn's abort signal (the request is cancelled on the server) and
 * `timeoutMs`; an error result, a timeout, invalid data or a server that dies mid-call become
 * error results the model sees. `notifications/tools/list_changed` is followed.
 *
 * Rejects with `McpConnectionError` when the command is not found, the server exits or does not
 * answer the handshake within `connectTimeoutMs`, or the URL cannot be reached; with
 * `InvalidArgumentError` for bad options.
 *
 * @example
 * const fs = await connectMcpServer({ name: "fs", command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", dir] });
 * const runtime = createAgentRuntime({ ..., tools: toolsWithMcp({ connections: [fs] }),
 *   policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"], allowedMcpServers: ["fs"] } });
 */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpConnection> {
  checkOptions(options);
  const { name } = options;
  const stdio = options.command !== undefined;
  const target = stdio ? [options.command!, ...(options.args ?? [])].join(" ") : options.url!;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
  const maxTools = options.maxTools ?? 500;
  const maxMessageBytes = options.maxMessageBytes ?? 32 * 1024 * 1024;
  const warn = (message: string, code: McpWarningCode) => {
    try {
      options.onWarning?.(message, code);
    } catch {
      // A host's logger must not break the connection.
    }
  };

  let status: McpConnectionStatus = "connected";
  let current: Session | undefined;
  let failure: Error | undefined;
  let tools: Tool[] = [];
  const toolListeners = new Set<() => void>();
  const closeListeners = new Set<(error: Error) => void>();
  let refreshing: Promise<void> | undefined;
  let refreshAgain = false;

  const mapping: McpToolMapping = {
    server: name,
    permissionClass: options.permissionClass ?? "network",
    approval: options.approval ?? "destructive",
    call: (toolName, args, ctx) => callTool(toolName, args, ctx),
  };

  function makeTransport(stderr: TextTail): Transport {
    if (!stdio) return new StreamableHTTPClientTransport(new URL(options.url!), { requestInit: { headers: options.headers ?? {} } });
    const transport = new StdioClientTransport({
      command: options.command!,
      args: options.args ?? [],
      env: options.env ?? {},
      ...(options.cwd !== undefined && { cwd: options.cwd }),
      stderr: "pipe",
      maxBufferSize: maxMessageBytes,
    });
    transport.stderr?.on("data", (chunk: Buffer | string) => stderr.push(String(chunk)));
    // The SDK's read buffer is quadratic in a message's size (seconds for 10 MB); swap in a linear
    // one where the field exists (SDK 1.x). Without it everything still works, only slower.
    const internals = transport as unknown as { _readBuffer?: unknown };
    if (internals._readBuffer !== undefined) internals._readBuffer = createStdioLineBuffer(maxMessageBytes);
    return transport;
  }

  async function open(): Promise<Session> {
    const session: Session = { client: new Client({ name: "agentry", version: "1.0.0" }, { capabilities: {} }), transport: undefined, stderr: createTextTail(2_000), closed: false, lastProtocolError: undefined };
    const { client } = session;
    client.onerror = (error) => {
      session.lastProtocolError = error;
      warn(`MCP server "${name}": ${error.message}`, "mcp_protocol_error");
    };
    client.onclose = () => {
      session.closed = true;
      if (session === current && status === "connected") fail(session);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (session === current) void refresh();
    });
    try {
      session.transport = makeTransport(session.stderr);
      await client.connect(session.transport, { timeout: connectTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw startError(error, session);
    }
    return session;
  }

  function startError(error: unknown, session: Session): McpConnectionError {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (stdio && (code === "ENOENT" || code === "EACCES")) {
      const why = code === "ENOENT" ? "was not found" : "is not executable";
      return new McpConnectionError(`Could not start MCP server "${name}": command "${options.command}" ${why} (${code}).`, { server: name, target, cause: error });
    }
    const stderr = session.stderr.text();
    const said = stderr === "" ? "" : ` Its stderr ended with: ${stderr}`;
    if (stdio && session.closed) return new McpConnectionError(`MCP server "${name}" (${target}) exited during start.${said}`, { server: name, target, cause: error });
    return new McpConnectionError(`MCP server "${name}" (${target}) did not complete the handshake: ${messageOf(error)}.${said}`, { server: name, target, cause: error });
  }

  function fail(session: Session): void {
    status = "failed";
    const stderr = session.stderr.text();
    failure = new McpConnectionError(`MCP server "${name}" (${target}) closed the connection.${stderr === "" ? "" : ` Its stderr ended with: ${stderr}`}`, { server: name, target });
    for (const listener of [...closeListeners]) {
      try {
        listener(failure);
      } catch {
        // Listeners must not throw; one that does cannot stop the others.
      }
    }
  }

  async function listTools(session: Session): Promise<Tool[]> {
    const definitions: McpToolDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && definitions.length <= maxTools; page++) {
      const result = await session.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: connectTimeoutMs });
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

  function setTools(next: Tool[]): void {
    tools = next;
    for (const listener of [...toolListeners]) {
      try {
        listener();
      } catch {
        // See onToolsChanged: listeners must not throw.
      }
    }
  }

  /** Re-reads the list after `list_changed`; notifications that arrive meanwhile cause one more read. */
  function refresh(): Promise<void> {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        refreshAgain = false;
        const session = current;
        if (!session) return;
        try {
          const next = await listTools(session);
          if (session === current) setTools(next);
        } catch (error) {
          warn(`MCP server "${name}": re-reading the tool list failed (${messageOf(error)}); keeping the previous list.`, "mcp_tools_refresh_failed");
        }
      } while (refreshAgain);
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  }

  async function callTool(toolName: string, args: unknown, ctx: ToolContext): Promise<unknown> {
    const session = current;
    if (!session || status !== "connected") {
      throw new Error(`MCP server "${name}" is not connected${failure ? `: ${failure.message}` : ""}. The host has to reconnect it.`);
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) throw new Error(`Arguments of MCP tool "${name}.${toolName}" must be a JSON object.`);
    // The SDK adds an abort listener to the signal it is given and never removes it: give it a
    // signal per call, so a turn with many calls does not pile listeners onto the turn's signal.
    const controller = new AbortController();
    const onAbort = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
    let result: McpCallResult;
    try {
      result = await session.client.callTool({ name: toolName, arguments: args as Record<string, unknown> }, undefined, { signal: controller.signal, timeout: timeoutMs });
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      throw callError(error, session, toolName);
    } finally {
      ctx.signal.removeEventListener("abort", onAbort);
    }
    return mapMcpResult(result);
  }

  function callError(error: unknown, session: Session, toolName: string): Error {
    const invalid = session.lastProtocolError ? ` The server sent invalid data: ${session.lastProtocolError.message}.` : "";
    if (hasCode(error, ErrorCode.RequestTimeout)) {
      return new Error(`MCP server "${name}" did not answer "${toolName}" within ${timeoutMs} ms; the call was cancelled.${invalid}`);
    }
    if (session.closed || hasCode(error, ErrorCode.ConnectionClosed)) {
      const stderr = session.stderr.text();
      return new Error(`MCP server "${name}" went away during "${toolName}".${stderr === "" ? "" : ` Its stderr ended with: ${stderr}`}`);
    }
    return new Error(`MCP server "${name}" failed "${toolName}": ${messageOf(error)}`);
  }

  async function start(): Promise<void> {
    const session = await open();
    let listed: Tool[];
    try {
      listed = await listTools(session);
    } catch (error) {
      await session.client.close().catch(() => undefined);
      throw new McpConnectionError(`MCP server "${name}" (${target}) did not list its tools: ${messageOf(error)}`, { server: name, target, cause: error });
    }
    current = session;
    status = "connected";
    failure = undefined;
    setTools(listed);
  }

  async function stop(): Promise<void> {
    const session = current;
    current = undefined;
    if (!session) return;
    // A streamable HTTP server keeps a session per client until told it is over.
    if (session.transport instanceof StreamableHTTPClientTransport) {
      await session.transport.terminateSession().catch(() => undefined);
    }
    await session.client.close().catch(() => undefined);
  }

  await start();
  return {
    name,
    tools: () => tools,
    get status() {
      return status;
    },
    onToolsChanged(listener) {
      toolListeners.add(listener);
      return () => void toolListeners.delete(listener);
    },
    onClose(listener) {
      closeListeners.add(listener);
      return () => void closeListeners.delete(listener);
    },
    async reconnect() {
      await stop();
      status = "failed";
      await start();
    },
    async close() {
      status = "closed";
      await stop();
    },
  };
}

function checkOptions(options: ConnectMcpServerOptions): void {
  const problems: string[] = [];
  if (!options || typeof options.name !== "string" || !SERVER_NAME.test(options.name)) problems.push(`name must match ${String(SERVER_NAME)}`);
  const hasCommand = options?.command !== undefined;
  const hasUrl = options?.url !== undefined;
  if (hasCommand === hasUrl) problems.push("give exactly one of command (stdio) or url (streamable HTTP)");
  if (hasCommand && (typeof options.command !== "string" || options.command === "")) problems.push("command must be a non-empty string");
  if (hasUrl) {
    try {
      const url = new URL(options.url!);
      if (url.protocol !== "http:" && url.protocol !== "https:") problems.push("url must be http: or https:");
    } catch {
      problems.push(`url "${String(options.url)}" is not a valid URL`);
    }
  }
  for (const key of ["timeoutMs", "connectTimeoutMs", "maxMessageBytes", "maxTools"] as const) {
    const value = options?.[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) problems.push(`${key} must be a whole number above 0`);
  }
  if (options?.approval !== undefined && !["destructive", "always", "never"].includes(options.approval)) problems.push(`approval must be "destructive", "always" or "never"`);
  if (problems.length > 0) throw new InvalidArgumentError(`connectMcpServer: ${problems.join("; ")}`);
}

function hasCode(error: unknown, code: ErrorCode): boolean {
  return error instanceof McpError && (error.code as ErrorCode) === code;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
