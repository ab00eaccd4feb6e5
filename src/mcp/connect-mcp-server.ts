import { InvalidArgumentError, McpConnectionError } from "../errors/errors.js";
import type { Tool } from "../contracts/tool.js";
import type { ConnectMcpServerOptions, McpConnection, McpConnectionStatus, McpWarningCode } from "./mcp-connection.js";
import type { McpToolMapping } from "./mcp-tool.js";
import { mcpRequestMethods, type McpRequestTarget } from "./mcp-resources.js";
import {
  callMcpTool,
  closeMcpSession,
  listMcpTools,
  messageOf,
  openMcpSession,
  type McpServerSettings,
  type McpSession,
} from "./mcp-session.js";

const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

/**
 * Connects to an MCP server, over stdio (`command`) or streamable HTTP (`url`), and reads its
 * tools as Agentry tools named `${name}.${tool}`, with `mcpServer: name` (so
 * `policy.allowedMcpServers` must list `name`), the server's JSON Schema as `inputSchema`,
 * `permissionClass` from the options (default `"network"`) and approval from the annotations
 * (see `ConnectMcpServerOptions.approval`). Tools declared read-only carry `readOnly: true`.
 *
 * A tool call honours the turn's abort signal (the request is cancelled on the server) and
 * `timeoutMs`; an error result, a timeout, invalid data or a server that dies mid-call become
 * error results the model sees. `notifications/tools/list_changed` is followed (re-reads at least
 * `refreshIntervalMs` apart, one at a time).
 *
 * The server is as hostile as the model, so everything it sends is bounded: messages
 * (`maxMessageBytes`, over stdio and HTTP), tools (`maxTools`, 50 pages), schemas
 * (`maxSchemaBytes` and the other bounds of outside schemas; a tool over them is left out with a
 * warning), pattern and validation work per value (linear-time regexes, 5,000,000 regex steps,
 * 1,000,000 subschema visits), descriptions (4,000 characters), error texts (8,000 characters of
 * an `isError` result, 2,000 of a transport error), `structuredContent` depth (64). What the model
 * sees never names the command line or URL, nor quotes the server's stderr: the host gets those
 * from `onClose` (an `McpConnectionError`) and from `onWarning`.
 *
 * Rejects with `McpConnectionError` when the command is not found, the server exits or does not
 * answer the handshake within `connectTimeoutMs`, or the URL cannot be reached; with
 * `InvalidArgumentError` for bad options.
 *
 * @example
 * const fs = await connectMcpServer({ name: "fs", command: "npx", args: ["-y",
 * "@modelcontextprotocol/server-filesystem", dir] });
 * const runtime = createAgentRuntime({ ..., tools: toolsWithMcp({ connections: [fs] }),
 *   policy: { ...defaultPolicy(), classes: [...defaultPolicy().classes, "network"], allowedMcpServers: ["fs"] } });
 */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpConnection> {
  checkOptions(options);
  const settings = settingsOf(options);
  const { name, target, warn } = settings;

  let status: McpConnectionStatus = "connected";
  let current: McpSession | undefined;
  let tools: Tool[] = [];
  const toolListeners = new Set<() => void>();
  const closeListeners = new Set<(error: Error) => void>();

  /** The live session; else an error saying so, not why (that is the host's, from onClose: it may name the command). */
  const live = (): McpSession => {
    if (current && status === "connected") return current;
    throw new McpConnectionError(`MCP server "${name}" is not connected. The host has to reconnect it.`, {
      server: name,
      target,
    });
  };

  const mapping: McpToolMapping = {
    server: name,
    permissionClass: options.permissionClass ?? "network",
    approval: options.approval ?? "destructive",
    maxSchemaBytes: settings.maxSchemaBytes,
    maxValueBytes: settings.maxMessageBytes,
    call: async (toolName, args, ctx, callOptions) => callMcpTool(settings, live(), toolName, args, ctx, callOptions),
  };

  const setTools = (next: Tool[]) => {
    tools = next;
    // See onToolsChanged: listeners must not throw.
    notifyAll(toolListeners, undefined);
  };

  /**
   * Re-reads the list after `list_changed`: one read at a time, notifications that arrive
   * meanwhile cause one more read, and reads start at least `refreshIntervalMs` apart.
   */
  const refresh = coalesce(options.refreshIntervalMs ?? 1_000, async () => {
    const session = current;
    if (!session) return;
    try {
      const next = await listMcpTools(settings, session, mapping);
      if (session === current) setTools(next);
    } catch (error) {
      warn(
        `MCP server "${name}": re-reading the tool list failed (${messageOf(error)}); keeping the previous list.`,
        "mcp_tools_refresh_failed",
      );
    }
  });

  // A server may change its list while the first read is under way: read again once started.
  const changedWhileStarting = new WeakSet<McpSession>();
  const hooks = {
    onClose(session: McpSession) {
      if (session !== current || status !== "connected") return;
      status = "failed";
      notifyAll(closeListeners, closedError(settings, session));
    },
    onToolsChanged(session: McpSession) {
      if (session === current) void refresh.run();
      else changedWhileStarting.add(session);
    },
  };

  async function start(): Promise<void> {
    const session = await openMcpSession(settings, hooks);
    const listed = await firstToolList(settings, session, mapping);
    if (status === "closed") {
      // close() was called while this (re)connection was starting: it must not outlive it.
      await closeMcpSession(session, settings);
      throw new McpConnectionError(`MCP server "${name}" was closed while it was starting.`, { server: name, target });
    }
    current = session;
    status = "connected";
    setTools(listed);
    if (changedWhileStarting.has(session)) void refresh.run();
  }

  async function stop(): Promise<void> {
    const session = current;
    current = undefined;
    if (session) await closeMcpSession(session, settings);
  }

  const requests: McpRequestTarget = { settings, session: () => live() };

  let reconnecting: Promise<void> | undefined;
  await start();
  return {
    name,
    tools: () => tools,
    ...mcpRequestMethods(requests),
    get status() {
      return status;
    },
    onToolsChanged: (listener) => subscribe(toolListeners, listener),
    onClose: (listener) => subscribe(closeListeners, listener),
    reconnect() {
      // Calls while one runs share it: one server process at a time.
      reconnecting ??= (async () => {
        await stop();
        status = "failed";
        await start();
      })().finally(() => {
        reconnecting = undefined;
      });
      return reconnecting;
    },
    async close() {
      status = "closed";
      refresh.stop();
      await reconnecting?.catch(() => undefined);
      await stop();
    },
  };
}

/**
 * The tools of a session just opened. When the server cannot list them, the session is closed
 * (no server process outlives a failed start) and this rejects with `McpConnectionError`.
 */
async function firstToolList(
  settings: McpServerSettings,
  session: McpSession,
  mapping: McpToolMapping,
): Promise<Tool[]> {
  try {
    return await listMcpTools(settings, session, mapping);
  } catch (error) {
    await closeMcpSession(session, settings);
    const { name, target } = settings;
    throw new McpConnectionError(`MCP server "${name}" (${target}) did not list its tools: ${messageOf(error)}`, {
      server: name,
      target,
      cause: error,
    });
  }
}

/** The options with their defaults applied. */
function settingsOf(options: ConnectMcpServerOptions): McpServerSettings {
  const stdio = options.command !== undefined;
  return {
    options,
    name: options.name,
    // For the host's errors only (never in what the model sees): it may hold secrets.
    target: stdio ? [options.command!, ...(options.args ?? [])].join(" ") : options.url!,
    stdio,
    timeoutMs: options.timeoutMs ?? 60_000,
    connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    maxTools: options.maxTools ?? 500,
    maxMessageBytes: options.maxMessageBytes ?? 32 * 1024 * 1024,
    maxSchemaBytes: options.maxSchemaBytes ?? 16_384,
    warn: safeWarning(options.onWarning),
  };
}

/**
 * Why the server went away, for the host (`onClose`): names the command line or URL and quotes the end of its stderr.
 */
function closedError(settings: McpServerSettings, session: McpSession): McpConnectionError {
  const { name, target } = settings;
  const stderr = session.stderr.text();
  return new McpConnectionError(
    `MCP server "${name}" (${target}) closed the connection.${stderr === "" ? "" : ` Its stderr ended with: ${stderr}`}`,
    {
      server: name,
      target,
    },
  );
}

function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** The host's warning callback, made safe: a host's logger must not break the connection. */
function safeWarning(onWarning: ConnectMcpServerOptions["onWarning"]): (message: string, code: McpWarningCode) => void {
  return (message, code) => {
    try {
      onWarning?.(message, code);
    } catch {
      // Ignored on purpose: see above.
    }
  };
}

/** Calls every listener with `value`; one that throws cannot stop the others (listeners must not throw). */
function notifyAll<T>(listeners: Set<(value: T) => void>, value: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(value);
    } catch {
      // Ignored on purpose: see above.
    }
  }
}

/**
 * Runs `task` now, or, when it is already running, once more after it (any number of calls
 * meanwhile make one more run); runs start at least `intervalMs` apart. `run` resolves when no
 * run is left; `stop` ends the waiting and any further run.
 */
function coalesce(intervalMs: number, task: () => Promise<void>): { run(): Promise<void>; stop(): void } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let lastStart = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });
  return {
    run() {
      if (stopped) return Promise.resolve();
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          const wait = lastStart + intervalMs - Date.now();
          if (wait > 0) await pause(wait);
          if (stopped) return;
          lastStart = Date.now();
          await task();
        } while (again && !stopped);
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}

function checkOptions(options: ConnectMcpServerOptions): void {
  const problems: string[] = [];
  if (!options || typeof options.name !== "string" || !SERVER_NAME.test(options.name))
    problems.push(`name must match ${String(SERVER_NAME)}`);
  const hasCommand = options?.command !== undefined;
  const hasUrl = options?.url !== undefined;
  if (hasCommand === hasUrl) problems.push("give exactly one of command (stdio) or url (streamable HTTP)");
  if (hasCommand && (typeof options.command !== "string" || options.command === ""))
    problems.push("command must be a non-empty string");
  if (hasUrl) {
    try {
      const url = new URL(options.url!);
      if (url.protocol !== "http:" && url.protocol !== "https:") problems.push("url must be http: or https:");
    } catch {
      problems.push(`url "${String(options.url)}" is not a valid URL`);
    }
  }
  for (const key of ["timeoutMs", "connectTimeoutMs", "maxMessageBytes", "maxTools", "maxSchemaBytes"] as const) {
    const value = options?.[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0))
      problems.push(`${key} must be a whole number above 0`);
  }
  const interval = options?.refreshIntervalMs;
  if (interval !== undefined && !(Number.isInteger(interval) && interval >= 0))
    problems.push("refreshIntervalMs must be a whole number of 0 or more");
  if (options?.approval !== undefined && !["destructive", "always", "never"].includes(options.approval))
    problems.push(`approval must be "destructive", "always" or "never"`);
  if (problems.length > 0) throw new InvalidArgumentError(`connectMcpServer: ${problems.join("; ")}`);
}
