import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { QueuedMessage, TurnRequest } from "../records/turn-request.js";

/** How often a session with queued messages is looked at again (a decision made by another process). */
export const QUEUE_POLL_MS = 1_000;

/**
 * Messages sent with `ifPending: "queue"` to a session that waits for a decision, in arrival order
 * per session. They hold no lease and no place in the session's inbox while they wait: the decision
 * (from any process) must be able to resume the session. `check` is called after every turn of the
 * session that ends here, and every {@link QUEUE_POLL_MS} while messages wait (for decisions made
 * elsewhere). A message keeps its place until its turn starts: a message sent meanwhile queues
 * behind it, and one whose session waits again when its turn comes goes back to its place.
 */
export class PendingQueue {
  readonly #sessions = new Map<string, { items: QueuedMessage[]; timer: ReturnType<typeof setTimeout> | undefined }>();

  constructor(private readonly check: (sessionId: string) => void) {}

  /** Whether messages wait for `sessionId` (a new one queues behind them, to keep arrival order). */
  has(sessionId: string): boolean {
    return (this.#sessions.get(sessionId)?.items.length ?? 0) > 0;
  }

  /** The oldest message waiting for `sessionId`. */
  peek(sessionId: string): TurnRequest | undefined {
    return this.#sessions.get(sessionId)?.items[0]?.request;
  }

  /** Queues `request` last; resolves with its turn's result once it ran. */
  add(sessionId: string, request: TurnRequest): Promise<TurnResult> {
    return new Promise<TurnResult>((resolve, reject) => {
      let entry = this.#sessions.get(sessionId);
      if (!entry) this.#sessions.set(sessionId, (entry = { items: [], timer: undefined }));
      entry.items.push({ request, resolve, reject, released: false });
      this.#poll(sessionId);
    });
  }

  /** Hands every waiting message of `sessionId` not handed back yet to `run`, oldest first. */
  drain(sessionId: string, run: (request: TurnRequest, message: QueuedMessage) => Promise<TurnResult>): void {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return;
    for (const message of entry.items) {
      if (message.released) continue;
      message.released = true;
      run(message.request, message).then(message.resolve, message.reject);
    }
  }

  /** A handed-back message's turn starts: it leaves the queue. */
  started(sessionId: string, message: QueuedMessage): void {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return;
    entry.items = entry.items.filter((m) => m !== message);
    if (entry.items.length === 0) {
      clearTimeout(entry.timer);
      this.#sessions.delete(sessionId);
    }
  }

  /** A handed-back message found the session waiting again: it waits at its place; resolves once it ran. */
  requeue(sessionId: string, message: QueuedMessage): Promise<TurnResult> {
    return new Promise<TurnResult>((resolve, reject) => {
      message.released = false;
      message.resolve = resolve;
      message.reject = reject;
      this.#poll(sessionId);
    });
  }

  /** Rejects every waiting message (the runtime closes). */
  rejectAll(error: unknown): void {
    for (const entry of this.#sessions.values()) {
      clearTimeout(entry.timer);
      for (const message of entry.items) message.reject(error);
    }
    this.#sessions.clear();
  }

  #poll(sessionId: string): void {
    const entry = this.#sessions.get(sessionId);
    if (!entry || entry.timer !== undefined) return;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (this.#sessions.get(sessionId) !== entry) return;
      this.check(sessionId);
      this.#poll(sessionId);
    }, QUEUE_POLL_MS);
  }
}
