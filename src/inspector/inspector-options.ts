import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { InspectorIdentity } from "./inspector-security.js";

/** What a value passed to {@link RedactHook} is. */
export interface RedactInfo {
  /**
   * - `args`: a tool call's arguments (every tool's, `run_subtask` and `finish_subtask` included;
   *   a pending question is `ask_user`'s arguments);
   * - `result`: a tool call's result, error results included (a tree node's error text is cut from
   *   the redacted result);
   * - `text`: message text and thinking (user and model), a system prompt, a reset's summary, an artifact's content,
   *   a session's last snippet, a task's title and plan, a sub-task's title (always a string);
   * - `error`: a model call's or a turn's error message (always a string);
   * - `context`: the host's context of a turn (`SendInput.context`).
   */
  part: "args" | "result" | "text" | "error" | "context";
  /** The tool's name; `""` for text, errors and context that belong to no tool call. */
  tool: string;
  sessionId: string;
}

/**
 * Rewrites a value before the inspector shows or exports it (mask secrets, drop personal data).
 * It is the one redaction step of the inspector: the JSON API, the live stream and export-as-test
 * are all built from its output. Must return plain JSON (for `text` and `error`, a string; other
 * values are shown as JSON text); it must not throw (a throw shows `"[redaction failed]"` instead
 * of the value).
 */
export type RedactHook = (value: unknown, info: RedactInfo) => unknown;

/** Options of {@link createInspector}. */
export interface InspectorOptions {
  /** The runtime whose store the inspector reads and through which its decisions go. */
  runtime: AgentRuntime;
  /**
   * Who is looking: resolves to `{ scopePrefix, canAct }` (`scopePrefix: ""` sees every session,
   * unscoped ones included) or `null` for a 401. Called on every request, first. Required: there
   * is no open default.
   */
  authorize: (request: Request) => InspectorIdentity | null | Promise<InspectorIdentity | null>;
  /**
   * Where the inspector is mounted: request paths start with it. A missing trailing `/` is added.
   * @default "/"
   */
  basePath?: string;
  /**
   * Applied to every tool argument and result, message text, error text and turn context the
   * inspector shows or exports (see {@link RedactInfo}).
   * @default none (values shown as stored)
   */
  redact?: RedactHook;
  /**
   * Live streams open at once, over every client; one more gets a 503.
   * @default 32
   */
  maxLiveConnections?: number;
  /**
   * Live streams open at once for one tenant: callers whose `authorize` returned the same
   * `scopePrefix` share it (so one tenant cannot hold every stream of `maxLiveConnections`); one
   * more gets a 503.
   * @default 8
   */
  maxLiveConnectionsPerScope?: number;
  /**
   * The longest a live stream waits between two reads of the store when nothing told it of a
   * change. Changes are pushed: this runtime's events, and with a store that carries signals
   * (SQLite, Postgres) those of other processes; after each, the stream reads again 2 ms later,
   * then less often, doubling up to this. It only matters for a lost signal, or a store without
   * signals written by another runtime.
   * @default 250
   */
  livePollMs?: number;
}
