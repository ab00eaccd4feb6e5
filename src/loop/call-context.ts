import { LEVEL_TOOLS, RUNTIME_HOST } from "../internal/runtime-host.js";
import type { ToolContext } from "../contracts/tool.js";
import type { ToolLogLevel } from "../contracts/loop-event.js";
import type { Level, ToolPlan, Turn } from "./level.js";
import { writeToolLog, writeToolProgress, type ToolLogTarget } from "./tool-log.js";

/**
 * A tool's context. `signal` is a getter that makes the call's own signal on first use (most tools
 * never look at it); read it as `ctx.signal` or destructure it (a spread copy does not carry it).
 */
export class CallContext implements ToolContext {
  readonly toolCallId: string;
  readonly depth: number;
  readonly parentId: string | null;
  readonly policy: ToolContext["policy"];
  readonly host: unknown;
  readonly context: ToolContext["context"];
  readonly callKey: string;
  readonly sessionId?: string;
  readonly agentId?: string;
  readonly scope?: string;
  readonly runId?: string;
  readonly leaseToken?: number;
  readonly [RUNTIME_HOST]: unknown;
  readonly [LEVEL_TOOLS]: ReadonlyMap<string, unknown>;
  /** The call's own controller, once its signal was asked for (or a timeout needs it). */
  controller: AbortController | undefined;
  /** Where `log` lines go while the call runs; undefined once it ended (or for an approval check). */
  #log: ToolLogTarget | undefined;
  constructor(
    level: Level,
    plan: ToolPlan,
    private readonly hub: Turn["signals"],
  ) {
    const { turn } = level;
    this.toolCallId = plan.call.id;
    this.depth = level.depth;
    this.parentId = level.parentId;
    this.policy = turn.toolPolicy;
    this.host = turn.host;
    this.context = turn.context as ToolContext["context"];
    this.callKey = `${turn.callKeyPrefix}:${plan.call.id}`;
    this[RUNTIME_HOST] = turn.runtimeHost;
    this[LEVEL_TOOLS] = level.tools;
    if (turn.sessionId !== undefined) this.sessionId = turn.sessionId;
    if (turn.agentId !== undefined) this.agentId = turn.agentId;
    if (turn.scope !== undefined) this.scope = turn.scope;
    if (turn.runId !== undefined) this.runId = turn.runId;
    if (turn.leaseToken !== undefined) this.leaseToken = turn.leaseToken;
    this.#log = {
      toolCallId: plan.call.id,
      name: plan.tool.name,
      depth: level.depth,
      parentId: level.parentId,
      sink: turn.sink,
      lines: 0,
      progress: 0,
    };
  }
  get signal(): AbortSignal {
    return (this.controller ??= this.hub.child()).signal;
  }
  log(level: ToolLogLevel, message: string): void {
    if (this.#log) writeToolLog(this.#log, level, message);
  }
  /**
   * Reports a preliminary result of the call (a value its `async function*` yielded) as a
   * `tool_progress` event; dropped once the call ended. Not part of `ToolContext`: tools yield.
   */
  reportProgress(value: unknown): void {
    if (this.#log) writeToolProgress(this.#log, value);
  }
  /** The call ended: its signal no longer follows the turn's, its log lines are dropped. */
  release(): void {
    this.#log = undefined;
    if (this.controller) this.hub.release(this.controller);
  }
}

/** The context a tool's `requiresApproval` function gets: the call's, with the turn's own signal. */
export function approvalCheckContext(level: Level, plan: ToolPlan): ToolContext {
  const ctx = new CallContext(level, plan, level.turn.signals);
  Object.defineProperty(ctx, "signal", { value: level.turn.signal });
  // The call has not started: nothing of it is logged.
  ctx.release();
  return ctx;
}
