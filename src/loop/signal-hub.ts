/**
 * Per-call abort signals and abort callbacks that hang off one listener on the turn's signal, so
 * tools that listen to `ctx.signal` never pile listeners onto a shared signal (Node warns past 10),
 * and calls that never look at their signal cost nothing.
 */
export class SignalHub {
  private readonly children = new Set<AbortController>();
  private readonly waiters = new Set<() => void>();

  constructor(private readonly parent: AbortSignal) {
    parent.addEventListener(
      "abort",
      () => {
        for (const child of this.children) child.abort(parent.reason);
        this.children.clear();
        const waiters = [...this.waiters];
        this.waiters.clear();
        for (const wake of waiters) wake();
      },
      { once: true },
    );
  }

  /** A controller aborted with the turn (or before, by its owner). */
  child(): AbortController {
    const controller = new AbortController();
    if (this.parent.aborted) controller.abort(this.parent.reason);
    else this.children.add(controller);
    return controller;
  }

  /** Forget a controller whose call has ended. */
  release(controller: AbortController): void {
    this.children.delete(controller);
  }

  /**
   * Calls `wake` once when the turn aborts (at once, synchronously, when it has already); the
   * returned function forgets it (call it when what waited has settled).
   */
  whenAborted(wake: () => void): () => void {
    if (this.parent.aborted) {
      wake();
      return () => undefined;
    }
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }
}
