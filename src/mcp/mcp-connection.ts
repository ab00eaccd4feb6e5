import type { PermissionClass } from "../contracts/tool-policy.js";
import type { Tool } from "../contracts/tool.js";
import type { McpApproval } from "./mcp-tool.js";
import type { McpPrompt, McpPromptResult, McpResource, McpResourceContents } from "./mcp-resource-types.js";

/** Why a warning was reported by a connection; stable, for hosts that log or forward warnings. */
export type McpWarningCode =
  /** A tool of the server was left out (name too long, unusable schema, duplicate name, too many tools). */
  | "mcp_tool_skipped"
  /** Re-reading the tool list after `notifications/tools/list_changed` failed; the previous list is kept. */
  | "mcp_tools_refresh_failed"
  /** The server sent something that is not valid JSON-RPC, or its transport reported an error. */
  | "mcp_protocol_error"
  /** A resource or prompt list was longer than `MCP_LIST_LIMITS` allow; the rest was left out. */
  | "mcp_list_truncated";

/** What `connectMcpServer` takes: `command` (stdio) or `url` (streamable HTTP). */
export interface ConnectMcpServerOptions {
  /**
   * The server's name in Agentry: tools are named `${name}.${tool}` and carry `mcpServer: name`,
   * which `policy.allowedMcpServers` must list. 1 to 32 letters, digits, `_` or `-`.
   */
  name: string;
  /** stdio: the program to start (no shell). Use `process.execPath` and a script path to avoid PATH lookups. */
  command?: string;
  /** stdio: its arguments. @default [] */
  args?: string[];
  /**
   * stdio: environment variables for the server, on top of a safe subset of this process's
   * (`HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`; Windows equivalents).
   * @default {}
   */
  env?: Record<string, string>;
  /** stdio: the server's working directory. @default this process's */
  cwd?: string;
  /** Streamable HTTP: the endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url?: string;
  /** Streamable HTTP: headers on every request (e.g. `Authorization`). @default {} */
  headers?: Record<string, string>;
  /** The permission class of every tool of this server. @default "network" */
  permissionClass?: PermissionClass;
  /**
   * Which tools ask the approval handler: `"destructive"` those the server does not declare
   * read-only or non-destructive (the protocol's default for a tool without annotations),
   * `"always"` all, `"never"` none (the policy's `approval` lists still apply).
   * @default "destructive"
   */
  approval?: McpApproval;
  /**
   * Time limit of one tool call; a call that takes longer is cancelled (over HTTP its response
   * stream is no longer read) and becomes an error result. @default 60_000
   */
  timeoutMs?: number;
  /**
   * Time limit of the handshake, of each `tools/list`, and of the session's `DELETE` when an HTTP
   * connection closes. @default 30_000
   */
  connectTimeoutMs?: number;
  /**
   * The largest message the server may send, in bytes. stdio: a larger one closes the connection
   * (the call in flight becomes an error result). Streamable HTTP: the same cap applies to each SSE
   * event and to each JSON body; the response is cut off there and the call becomes an error
   * result. Results are capped further by the loop's `maxToolResultBytes`.
   * @default 33_554_432 (32 MiB)
   */
  maxMessageBytes?: number;
  /**
   * The most tools taken from the server; the rest are left out with a warning (a `tools/list`
   * is read over at most 50 pages).
   * @default 500
   */
  maxTools?: number;
  /**
   * Longest input or output schema of a tool, in bytes of JSON. A tool with a larger one is left
   * out with a warning (`mcp_tool_skipped`): input schemas go out with every model request.
   * Schemas are also held to the other bounds of outside schemas (32 levels, 5,000 subschemas
   * with `$ref`s inlined, local non-recursive `$ref`s, 32 linear-time `pattern`s; see the README).
   * @default 16_384
   */
  maxSchemaBytes?: number;
  /**
   * Least time between the starts of two re-reads of the tool list after
   * `notifications/tools/list_changed`; one re-read runs at a time, and notifications that arrive
   * meanwhile make one more. A server that keeps sending them cannot keep the host busy.
   * @default 1_000
   */
  refreshIntervalMs?: number;
  /** Told about tools left out and protocol errors. Must not throw. @default warnings are dropped */
  onWarning?: (message: string, code: McpWarningCode) => void;
}

/** Where a connection is: `"connected"`, `"closed"` (by `close()`), or `"failed"` (the server went away). */
export type McpConnectionStatus = "connected" | "closed" | "failed";

/**
 * A live connection to one MCP server, whose tools are Agentry tools. Made by `connectMcpServer`.
 *
 * When the server goes away (its process exits, the transport fails) the status becomes
 * `"failed"`, `onClose` listeners hear why, and calls of its tools become error results until
 * `reconnect()` succeeds. Reconnecting is explicit: nothing restarts a server behind the host's back.
 */
export interface McpConnection {
  readonly name: string;
  /**
   * The server's tools, as of the last `tools/list`. The same array until the list changes
   * (`notifications/tools/list_changed`, `reconnect()`), so callers may cache on its identity.
   */
  tools(): Tool[];
  /** Called after the tool list changed. Returns an unsubscribe function. A listener must not throw. */
  onToolsChanged(listener: () => void): () => void;
  /** Where the connection is. */
  readonly status: McpConnectionStatus;
  /** Called once per failure when the server goes away by itself (not after `close()`), with why. */
  onClose(listener: (error: Error) => void): () => void;
  /**
   * Starts the server (or opens the URL) again and re-reads its tools. Rejects with
   * `McpConnectionError`. Calls made while one runs share it (one server process at a time).
   */
  reconnect(): Promise<void>;
  /**
   * The server's resources (`resources/list`, every page: at most 50 pages and 1,000 resources,
   * texts cut, see `MCP_LIST_LIMITS`), within `connectTimeoutMs` a page. Rejects with
   * `McpRequestError` (a server without resources: code -32601), `McpConnectionError` when not connected.
   */
  listResources(): Promise<McpResource[]>;
  /**
   * One resource's contents (`resources/read`): text, or binary as base64 `blob`; at most 100
   * items, within `timeoutMs`, each message within `maxMessageBytes`. Rejects like `listResources`
   * (an unknown URI is the server's error, usually code -32002 or -32602).
   */
  readResource(uri: string): Promise<McpResourceContents[]>;
  /** The server's prompts (`prompts/list`), bounded and rejecting like `listResources`. */
  listPrompts(): Promise<McpPrompt[]>;
  /**
   * A prompt filled in with `args` (`prompts/get`): at most 100 messages, each content a text,
   * image or audio part (media bounded like tool results'). Rejects like `readResource`.
   */
  getPrompt(name: string, args?: Record<string, string>): Promise<McpPromptResult>;
  /** Ends the connection (and stops a stdio server's process, also one a running `reconnect()` started). Idempotent. */
  close(): Promise<void>;
}
