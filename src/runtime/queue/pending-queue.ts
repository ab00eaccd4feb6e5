import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { QueuedMessage, TurnRequest } from "../records/turn-request.js";

/**
 * Messages of other agents (delegated, background, dispatched turns: their callers wait for the
 * result) queued with `ifPending: "queue"` behind a session's pending decision, in arrival order
 * per session, in the memory of the process that sent them. The host's own messages are stored
 * instead (`QueuedRecord`). They hold no lease and no place in the session's inbox while they
 * wait: the decision (from any process) must be able to resume the session. The turn queue hands
 * them back once the session waits for nothing (after a turn of it ends here, and when the
 * session's watch sees a decision). A message keeps its place until its turn starts: a message
 * sent meanwhile queues behind it, and one whose session waits again when its turn comes goes
 * back to its place.
 */
export class PendingQueue {
  readonly #sessions = new Map<string, QueuedMessage[]>();

  /** Whether messages wait for `sessionId` (a new one queues behind them, to keep arrival order). */
  has(sessionId: string): boolean {
    return (this.#sessions.get(sessionId)?.length ?? 0) > 0;
  }

  /** Queues `request` last; resolves with its turn's result once it ran. */
  add(sessionId: string, request: TurnRequest): Promise<TurnResult> {
    return new Promise<TurnResult>((resolve, reject) => {
      let items = this.#sessions.get(sessionId);
      if (!items) this.#sessions.set(sessionId, (items = []));
      items.push({ request, resolve, reject, released: false });
    });
  }

  /** Hands every waiting message of `sessionId` not handed back yet to `run`, oldest first. */
  drain(sessionId: string, run: (request: TurnRequest, message: QueuedMessage) => Promise<TurnResult>): void {
    for (const message of this.#sessions.get(sessionId) ?? []) {
      if (message.released) continue;
      message.released = true;
      run(message.request, message).then(message.resolve, message.reject);
    }
  }

  /** A handed-back message's turn starts: it leaves the queue. */
  started(sessionId: string, message: QueuedMessage): void {
    const items = this.#sessions.get(sessionId)?.filter((m) => m !== message);
    if (items === undefined) return;
    if (items.length === 0) this.#sessions.delete(sessionId);
    else this.#sessions.set(sessionId, items);
  }

  /** A handed-back message found the session waiting again: it waits at its place; resolves once it ran. */
  requeue(message: QueuedMessage): Promise<TurnResult> {
    return new Promise<TurnResult>((resolve, reject) => {
      message.released = false;
      message.resolve = resolve;
      message.reject = reject;
    });
  }

  /** Rejects every waiting message (the runtime closes). */
  rejectAll(error: unknown): void {
    for (const items of this.#sessions.values()) for (const message of items) message.reject(error);
    this.#sessions.clear();
  }
}
