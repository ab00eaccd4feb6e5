import type { RuntimeEvent } from "../../contracts/agent-runtime.js";

/** A turn running in this process, as `setRole`, task cancels and `stopTurn` find it. */
interface RunningTurn {
  controller: AbortController;
  reason: string | undefined;
  /** The turn's run id, and the run id of the turn it resumes (its chain's first), if any. */
  runId: string;
  chainRunId: string | undefined;
  /** Resolves once the turn ended (it is no longer registered). */
  ended: Promise<void>;
  /** Called with every event the turn publishes (a steering `stream` follows the turn it steered). */
  followers: Set<(event: RuntimeEvent) => void>;
}

/** The turn of a session that runs in this process, once registered: its signal, why it stopped, its end. */
export interface RunningTurnHandle {
  /** The turn's signal: the caller's `signal`, aborted too when the turn is stopped. */
  signal: AbortSignal;
  /** Why it was stopped (`role_changed`, `task_cancelled`, `interrupted`, ...), once it was. */
  reason: () => string | undefined;
  /** Stops this turn (a stop request found in the store): as {@link RunningTurns.stop}. */
  stop: (reason: string) => void;
  /** Hands `event` to whoever follows the turn (see {@link RunningTurns.follow}). */
  tell: (event: RuntimeEvent) => void;
  /** The turn ended: it is no longer registered. */
  done: () => void;
}

/** The turn running on a session in this process, as {@link RunningTurns.find} reports it. */
export interface RunningTurnInfo {
  runId: string;
  chainRunId: string | undefined;
}

/** The turns running in this process, by session: `setRole`, task cancels and `stopTurn` stop them. */
export class RunningTurns {
  readonly #running = new Map<string, RunningTurn>();

  /** Registers a turn about to run on `sessionId` (run `runId`, resuming `chainRunId`), so it can be stopped. */
  start(
    sessionId: string,
    signal: AbortSignal | undefined,
    ids: { runId: string; chainRunId?: string | undefined },
  ): RunningTurnHandle {
    let end!: () => void;
    const entry: RunningTurn = {
      controller: new AbortController(),
      reason: undefined,
      runId: ids.runId,
      chainRunId: ids.chainRunId,
      ended: new Promise<void>((resolve) => (end = resolve)),
      followers: new Set(),
    };
    this.#running.set(sessionId, entry);
    return {
      signal: signal ? AbortSignal.any([signal, entry.controller.signal]) : entry.controller.signal,
      reason: () => entry.reason,
      stop: (reason) => stopEntry(entry, reason),
      tell: (event) => {
        for (const follower of entry.followers) follower(event);
      },
      done: () => {
        if (this.#running.get(sessionId) === entry) this.#running.delete(sessionId);
        entry.followers.clear();
        end();
      },
    };
  }

  /** Whether a turn runs on `sessionId` in this process. */
  has(sessionId: string): boolean {
    return this.#running.has(sessionId);
  }

  /** The turn running on `sessionId` in this process, if any. */
  find(sessionId: string): RunningTurnInfo | undefined {
    const entry = this.#running.get(sessionId);
    return entry && { runId: entry.runId, chainRunId: entry.chainRunId };
  }

  /**
   * Stops the turn running on `sessionId` in this process, if any (and, with `runId`, only when it
   * is that run or resumes it); its end record says `reason`. Resolves once it ended, `undefined`
   * when none was stopped.
   */
  stop(sessionId: string, reason: string, runId?: string): Promise<void> | undefined {
    const current = this.#running.get(sessionId);
    if (!current || (runId !== undefined && runId !== current.runId && runId !== current.chainRunId)) return undefined;
    stopEntry(current, reason);
    return current.ended;
  }

  /**
   * Calls `listener` with every event the turn running on `sessionId` publishes from now on, until
   * it ends (resolves then); `undefined` when none runs here.
   */
  follow(sessionId: string, listener: (event: RuntimeEvent) => void): Promise<void> | undefined {
    const current = this.#running.get(sessionId);
    if (!current) return undefined;
    current.followers.add(listener);
    return current.ended;
  }
}

/** The first reason a turn was stopped for is the one it keeps. */
function stopEntry(entry: RunningTurn, reason: string): void {
  if (entry.controller.signal.aborted) return;
  entry.reason = reason;
  entry.controller.abort(new Error(reason));
}
