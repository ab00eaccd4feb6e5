import type { AgentRuntime } from "../contracts/agent-runtime.js";
import type { InspectorIdentity } from "./inspector-security.js";

/** What a tool call's arguments or result is, for {@link RedactHook}. */
export interface RedactInfo {
  /** `args` or `result`. */
  part: "args" | "result";
  /** The tool's name. */
  tool: string;
  sessionId: string;
}

/**
 * Rewrites a tool call's arguments or result before the inspector shows or exports it (mask
 * secrets, drop personal data). Must return plain JSON; it must not throw (a throw shows
 * `"[redaction failed]"` instead of the value).
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
   * Applied to every tool argument and result the inspector shows or exports.
   * @default none (values shown as stored)
   */
  redact?: RedactHook;
  /**
   * Live streams open at once, over every client; one more gets a 503.
   * @default 32
   */
  maxLiveConnections?: number;
  /**
   * How often a live stream reads the store for records written by other processes.
   * @default 250
   */
  livePollMs?: number;
}
