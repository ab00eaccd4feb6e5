/**
 * Per-call abort signals that hang off one listener on the turn's signal, so tools that listen to
 * `ctx.signal` never pile listeners onto a shared signal (Node warns past 10), and calls that never
 * look at their signal cost nothing.
 */
export class SignalHub {
  private readonly children = new Set<AbortController>();

  constructor(private readonly parent: AbortSignal) {
    parent.addEventListener(
      "abort",
      () => {
        for (const child of this.children) child.abort(parent.reason);
        this.children.clear();
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
}
