import type { JsonSchema, JsonValue } from "./json-schema.js";
import type { PermissionClass, ToolPolicy } from "./tool-policy.js";
import type { ToolLogLevel } from "./loop-event.js";

/**
 * What a tool's `execute` receives besides its arguments. `C` types `context` (the host's
 * per-turn data: `createAgentRuntime<C>()`, or annotate `ctx: ToolContext<MyContext>` in
 * `defineTool`).
 */
export interface ToolContext<C = JsonValue> {
  /** The call's id as the model gave it: unique within its turn only (see `callKey`). */
  toolCallId: string;
  depth: number;
  /** `toolCallId` of the enclosing `run_subtask`, or null at the root. */
  parentId: string | null;
  /** Aborted when the turn is aborted or the tool times out. Long-running tools must honour it. */
  signal: AbortSignal;
  policy: ToolPolicy;
  sessionId?: string;
  agentId?: string;
  /** Whatever the host passed as `context` (`LoopOptions.context`, `SendInput.context`). */
  host?: unknown;
  /**
   * The host's data for this turn: `SendInput.context` (the bare loop: `LoopOptions.context`).
   * The same value in a turn resumed after an approval (in any process), and in the delegated,
   * background and sub-task turns the turn starts. Read it; never mutate it.
   */
  context?: C;
  /** The session's scope (tenant / end user), when it has one. */
  scope?: string;
  /** The run id of the turn making the call (`SendInput.runId` or a generated one). */
  runId?: string;
  /**
   * Unique per call across turns and sessions, and the same for the same call when its turn is
   * resumed after an approval: an idempotency key for the host's own ledger (a payment, a ticket).
   */
  callKey: string;
  /**
   * The fencing token of the session lease the turn holds (stores with leases: SQLite, Postgres),
   * confirmed against the store just before this call started. Tokens only grow: a runtime that
   * takes the session over holds a greater one. To fence the tool's own writes, pass it with
   * `callKey` to the host's ledger and refuse a write whose token is less than the greatest the
   * ledger saw for the session: a process paused mid-call (and taken over meanwhile) then
   * cannot write after its successor. @default undefined (no lease: the bare loop, or a store without leases)
   */
  leaseToken?: number;
  /**
   * Writes a log line of this call (a `tool_log` event; `log.*` in `toTaskEvents`), e.g. the progress of
   * a long call. Only while the call runs: a line written after the call ended is dropped. Bounded:
   * a line is cut to `TOOL_LOG_LIMITS.lineChars` characters (2,000), and at most
   * `TOOL_LOG_LIMITS.linesPerCall` lines (200) of one call are kept; later ones are dropped. An
   * unknown `level` is `"info"`. Never throws. Call it on the context (`ctx.log(...)`): a spread or
   * destructured copy does not carry it. The loop always sets it; optional so that a context made
   * by hand (a test) need not.
   */
  log?(level: ToolLogLevel, message: string): void;
}

/**
 * A tool the model can call. Usually made with `defineTool`; any object of this shape works.
 *
 * `execute` may throw: the error becomes an `isError` result the model sees. A tool without
 * `execute` runs in the client (see {@link Tool.execute}).
 */
export interface Tool<I = any, O = any, C = JsonValue> {
  /** Matches `/^[a-zA-Z0-9_.-]{1,64}$/`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments; arguments are validated against it before `execute`. */
  inputSchema: JsonSchema;
  /**
   * The permission class the tool needs, or several: a list means every one of them is needed
   * (`["workspace_read", "workspace_write"]` runs only where the policy enables both). An empty
   * list is refused everywhere (it declares nothing).
   */
  permissionClass: PermissionClass | PermissionClass[];
  /** Capabilities for capability scoping, e.g. `["lists.read"]`. */
  capabilities?: string[];
  /** Whether calls may run concurrently with other calls. @default true */
  parallelSafe: boolean;
  /** Calls sharing a lock name never overlap. */
  exclusiveLock?: string;
  /** Ask the approval handler before running. */
  requiresApproval?: boolean | ((args: I, ctx: ToolContext<C>) => boolean | Promise<boolean>);
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
  /**
   * JSON Schema of the tool's result. A client tool's result (`runtime.submitToolResult`) is
   * checked against it before anything is stored; the result of a server-side `execute` is not.
   * @default undefined (any JSON result)
   */
  outputSchema?: JsonSchema;
  /**
   * Runs the call. May be an `async function*`: each value it yields is a `tool_progress` event
   * (a preliminary result a UI can show), and the value it returns is the result the model reads.
   *
   * Absent: the tool runs in the client (a browser's geolocation, a confirmation dialog, a UI
   * action). After the policy, any approval and the `beforeToolCall` hook, the call's `start`
   * event says `client: true`, a `client_tool_call` event follows and the turn suspends, durably,
   * like an approval: `runtime.pendingToolCalls()` lists the call, and
   * `runtime.submitToolResult(toolCallId, { output })` (from any process) stores the client's
   * result and resumes the turn, exactly once. A pending client call has no timer (`timeoutMs` does
   * not apply): it waits like an approval. The bare loop returns it in `pendingApprovals` (with
   * `client: true`); resume with `decisions[toolCallId] = { approved: true, result, isError? }`.
   * @default undefined (a client tool)
   */
  execute?(args: I, ctx: ToolContext<C>): O | Promise<O> | AsyncGenerator<unknown, O, undefined>;
}

/** The argument type a schema describes: zod's input-parsed output type, or `unknown` for JSON Schema. */
export type InferToolInput<S> = S extends { _zod: { output: infer O } }
  ? O
  : S extends { _output: infer O }
    ? O
    : unknown;
