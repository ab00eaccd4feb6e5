/** A turn running in this process, as `setRole` and task cancels find it. */
interface RunningTurn {
  controller: AbortController;
  reason: string | undefined;
}

/** The turn of a session that runs in this process, once registered: its signal, why it stopped, its end. */
export interface RunningTurnHandle {
  /** The turn's signal: the caller's `signal`, aborted too when the turn is stopped. */
  signal: AbortSignal;
  /** Why it was stopped (`role_changed`, `task_cancelled`, ...), once it was. */
  reason: () => string | undefined;
  /** The turn ended: it is no longer registered. */
  done: () => void;
}

/** The turns running in this process, by session: `setRole` and task cancels stop them. */
export class RunningTurns {
  readonly #running = new Map<string, RunningTurn>();

  /** Registers a turn about to run on `sessionId`, so it can be stopped. */
  start(sessionId: string, signal: AbortSignal | undefined): RunningTurnHandle {
    const entry: RunningTurn = { controller: new AbortController(), reason: undefined };
    this.#running.set(sessionId, entry);
    return {
      signal: signal ? AbortSignal.any([signal, entry.controller.signal]) : entry.controller.signal,
      reason: () => entry.reason,
      done: () => {
        if (this.#running.get(sessionId) === entry) this.#running.delete(sessionId);
      },
    };
  }

  /** Whether a turn runs on `sessionId` in this process. */
  has(sessionId: string): boolean {
    return this.#running.has(sessionId);
  }

  /** Stops the turn running on `sessionId` in this process, if any (its end record says `reason`). */
  stop(sessionId: string, reason: string): void {
    const current = this.#running.get(sessionId);
    if (!current) return;
    current.reason = reason;
    current.controller.abort(new Error(reason));
  }
}
