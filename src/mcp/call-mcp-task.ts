import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { McpCallResult } from "./mcp-result.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** The session a task runs on (an `TaskSession`). */
export interface TaskSession {
  client: Client;
  closed: boolean;
}

/** The limits a task keeps to (a connection's settings). */
export interface TaskSettings {
  name: string;
  /** The whole task, from creation to result. */
  timeoutMs: number;
  /** A `tasks/cancel`. */
  connectTimeoutMs: number;
}

/** Shortest and longest wait between two `tasks/get` (a server's `pollInterval` is held to these). */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;
/** Longest task id kept (a server's id goes back in every `tasks/get`). */
const MAX_TASK_ID_CHARS = 256;
/** How long the task lives on the server after the call's time is up (`ttl` = `timeoutMs` plus this). */
const TTL_MARGIN_MS = 60_000;

/** What a task-based call needs besides the session. */
export interface TaskCall {
  toolName: string;
  args: Record<string, unknown>;
  /** The call's signal (the turn's abort): the task is cancelled on the server when it aborts. */
  signal: AbortSignal;
  /** Told each progress notification's params and each task status (`{ taskStatus, message }`). */
  onProgress: (progress: unknown) => void;
}

/**
 * Runs a tool as a task (protocol 2025-11-25): `tools/call` with task creation, then `tasks/get`
 * (at the server's `pollInterval`, held between 100 ms and 5 s) until the task ends, then
 * `tasks/result`; an `input_required` task is followed with `tasks/result` (which blocks until the
 * task ends; Agentry answers no elicitation or sampling). All of it within `timeoutMs` from the
 * start; when that passes or `signal` aborts, the task is cancelled on the server (`tasks/cancel`,
 * not awaited) and this rejects (`RequestTimeout` for the time limit). The SDK's own
 * `callToolStream` is not used: it waits on the server's `pollInterval` unbounded, and neither
 * cancels the task on abort nor keeps to one time limit.
 */
export async function callMcpTask(
  settings: TaskSettings,
  session: TaskSession,
  call: TaskCall,
): Promise<McpCallResult> {
  const { client } = session;
  const deadline = Date.now() + settings.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const options = () => ({ signal: call.signal, timeout: left() });
  const created = await client.request(
    { method: "tools/call", params: { name: call.toolName, arguments: call.args } },
    CreateTaskResultSchema,
    { ...options(), task: { ttl: settings.timeoutMs + TTL_MARGIN_MS }, onprogress: call.onProgress },
  );
  const taskId = created.task.taskId;
  if (typeof taskId !== "string" || taskId === "" || taskId.length > MAX_TASK_ID_CHARS)
    throw new Error(`MCP server "${settings.name}" created a task for "${call.toolName}" with an unusable id.`);
  let finished = false;
  try {
    let task = created.task;
    let reported = "";
    for (;;) {
      const seen = `${task.status}\n${task.statusMessage ?? ""}`;
      if (seen !== reported) {
        reported = seen;
        call.onProgress({ taskStatus: task.status, message: task.statusMessage });
      }
      switch (task.status) {
        case "completed":
        case "input_required":
          // For input_required, `tasks/result` is where the server's questions come, and it blocks until the task ends.
          finished = true;
          return await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options());
        case "failed":
          finished = true;
          return await failedResult(session, taskId, task.statusMessage, options());
        case "cancelled":
          finished = true;
          throw new Error(`The task of "${call.toolName}" was cancelled by the MCP server.`);
        case "working":
          break;
      }
      await pause(
        Math.min(Math.max(task.pollInterval ?? 1_000, MIN_POLL_MS), MAX_POLL_MS, deadline - Date.now()),
        call.signal,
      );
      if (Date.now() >= deadline) throw new McpError(ErrorCode.RequestTimeout, "Request timed out");
      task = await client.experimental.tasks.getTask(taskId, options());
    }
  } catch (error) {
    // The server may still be running it: tell it to stop (not awaited; the call ends now).
    if (!finished || call.signal.aborted || isTimeout(error)) cancelTask(settings, session, taskId);
    throw error;
  } finally {
    forgetProgress(session, taskId);
  }
}

/** The result of a failed task: what `tasks/result` says (an error result, or its JSON-RPC error), else the status message. */
async function failedResult(
  session: TaskSession,
  taskId: string,
  statusMessage: string | undefined,
  options: { signal: AbortSignal; timeout: number },
): Promise<McpCallResult> {
  try {
    const result = await session.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, options);
    if (result.isError === true) return result;
  } catch (error) {
    if (options.signal.aborted) throw error;
  }
  return { isError: true, content: [{ type: "text", text: statusMessage || "The task failed." }] };
}

function cancelTask(settings: TaskSettings, session: TaskSession, taskId: string): void {
  if (session.closed) return;
  session.client.experimental.tasks.cancelTask(taskId, { timeout: settings.connectTimeoutMs }).catch(() => undefined);
}

/**
 * The SDK keeps a task's progress handler until the server sends a terminal status notification,
 * which a server need not send: drop it when the call ends, so handlers do not pile up per task.
 */
function forgetProgress(session: TaskSession, taskId: string): void {
  const internals = session.client as unknown as { _cleanupTaskProgressHandler?: (id: string) => void };
  if (typeof internals._cleanupTaskProgressHandler === "function") internals._cleanupTaskProgressHandler(taskId);
}

function isTimeout(error: unknown): boolean {
  return error instanceof McpError && (error.code as ErrorCode) === ErrorCode.RequestTimeout;
}

/** Waits `ms` (at least 0), or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
