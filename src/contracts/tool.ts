import type { JsonSchema } from "./json-schema.js";
import type { PermissionClass, ToolPolicy } from "./tool-policy.js";

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  toolCallId: string;
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`, or null at the root. */
  parentId: string | null;
  /** Aborted when the turn is aborted or the tool times out. Long-running tools must honour it. */
  signal: AbortSignal;
  policy: ToolPolicy;
  sessionId?: string;
  agentId?: string;
  /** Whatever the host passed as `context`. */
  host?: unknown;
}

/**
 * A tool the model can call. Usually made with `defineTool`; any object of this shape works.
 *
 * `execute` may throw: the error becomes an `isError` result the model sees.
 */
export interface Tool<I = any, O = any> {
  /** Matches `/^[a-zA-Z0-9_.-]{1,64}$/`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments; arguments are validated against it before `execute`. */
  inputSchema: JsonSchema;
  permissionClass: PermissionClass;
  /** Capabilities for capability scoping, e.g. `["lists.read"]`. */
  capabilities?: string[];
  /** Whether calls may run concurrently with other calls. @default true */
  parallelSafe: boolean;
  /** Calls sharing a lock name never overlap. */
  exclusiveLock?: string;
  /** Ask the approval handler before running. */
  requiresApproval?: boolean | ((args: I, ctx: ToolContext) => boolean | Promise<boolean>);
  /** Offered only when the chat context kind is one of these. */
  contexts?: string[];
  /** Per-call time limit in milliseconds; a timed-out call becomes an error result. */
  timeoutMs?: number;
  /**
   * Set on tools of an MCP server (the connection's `name`): such a tool is offered and run only
   * when `policy.allowedMcpServers` lists this server.
   */
  mcpServer?: string;
  /**
   * The author's word that the tool changes nothing (for MCP tools: the server's `readOnlyHint`):
   * it may run under a read-only role (the planner) when the host's policy enables its class. An
   * explicit read class (`safe`, `knowledge`, `workspace_read`) says the same. @default false
   */
  readOnly?: boolean;
  execute(args: I, ctx: ToolContext): O | Promise<O>;
}

/** The argument type a schema describes: zod's input-parsed output type, or `unknown` for JSON Schema. */
export type InferToolInput<S> = S extends { _zod: { output: infer O } } ? O : S extends { _output: infer O } ? O : unknown;
