/**
 * Per-session FIFO queues: tasks for one session run one at a time in arrival order; different
 * sessions run concurrently.
 */
export class SessionInbox {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Queues `task` behind the session's earlier tasks; resolves with its result. */
  run<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(sessionId, tail);
    void tail.then(() => {
      if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
    });
    return result;
  }

  /** Resolves when every queued task (including ones queued meanwhile) has finished. */
  async drain(): Promise<void> {
    while (this.tails.size > 0) await Promise.all(this.tails.values());
  }
}
