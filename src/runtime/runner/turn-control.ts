import type { HistoryRecord, StoreSignal } from "../../contracts/session-store.js";
import type { SteeredMessage } from "../../loop/run-unified-agent-loop.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";

/** What a {@link TurnControl} needs. */
export interface TurnControlDeps {
  store: GuardedSessionStore;
  sessionId: string;
  /** The turn's run id, and the run id of the turn it resumes (a stop request may name either). */
  runId: string;
  chainRunId: string | undefined;
  /** Stops the turn (aborts its signal; its end record says `reason`). */
  stop: (reason: string) => void;
}

/**
 * What a running turn watches for in its session's log, written there by others (any process):
 * `stop` requests for it (`runtime.stopTurn`, `ifBusy: "interrupt"`) and `steer` messages
 * (`ifBusy: "steer"`). Records are read only when something may have come: a `"stop"` or
 * `"session"` store signal for the session, or a gap in the `seq`s of the turn's own appends (a
 * record of another writer between two of its own: so a lost signal is caught at the next step
 * boundary). A stop signal is acted on at once (the stored request is read first: a signal is
 * only a hint); steered messages wait for the root level's next step boundary.
 */
export class TurnControl {
  /** Every record at or below this `seq` is known (the turn's own, or read); `undefined` before the turn's first append. */
  #scanned: number | undefined;
  /** Something may have been stored by another writer since `#scanned`. */
  #dirty = false;
  /** A stop request for this turn was found. */
  #stopped = false;
  /** Steered messages read and not yet handed to the root level, and the steer record of each message id. */
  #pending: SteeredMessage[] = [];
  readonly #steerOf = new Map<string, string>();
  /** Reads of the log run one after another. */
  #reading: Promise<void> = Promise.resolve();
  readonly #unsubscribe: (() => void)[] = [];

  constructor(private readonly deps: Readonly<TurnControlDeps>) {
    const { store, sessionId } = deps;
    const mine = (signal: StoreSignal) => signal.key === sessionId;
    this.#unsubscribe.push(
      store.subscribe("session", (signal) => {
        if (mine(signal)) this.#dirty = true;
      }),
      store.subscribe("stop", (signal) => {
        if (!mine(signal)) return;
        this.#dirty = true;
        void this.#read();
      }),
    );
  }

  /** The turn's own appends, as stored: `seq`s that follow on from what is known need no read. */
  observe(records: readonly HistoryRecord[]): void {
    const seqs = records.map((record) => record.seq).sort((a, b) => a - b);
    if (seqs.length === 0) return;
    this.#scanned ??= seqs[0]! - 1;
    for (const seq of seqs) {
      if (seq <= this.#scanned) continue;
      if (seq !== this.#scanned + 1) {
        this.#dirty = true;
        return;
      }
      this.#scanned = seq;
    }
  }

  /**
   * At a step boundary: reads what may have come, then hands the root level (`root`) the steered
   * messages read so far (none once the turn is stopped: they then run as the next turn). Never throws.
   */
  async boundary(root: boolean): Promise<readonly SteeredMessage[]> {
    if (this.#dirty) await this.#read();
    if (!root || this.#stopped || this.#pending.length === 0) return [];
    const steered = this.#pending;
    this.#pending = [];
    return steered;
  }

  /** The `steer` record a steered message (by its message id) came from. */
  steerOf(messageId: string): string | undefined {
    return this.#steerOf.get(messageId);
  }

  /** Whether something may have been stored that the turn did not take (a steered message it then leaves unread). */
  mayHaveUnread(): boolean {
    return this.#dirty || this.#pending.length > 0;
  }

  /** The turn ended: no more signals. */
  dispose(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  #read(): Promise<void> {
    this.#reading = this.#reading.then(() => this.#readOnce());
    return this.#reading;
  }

  async #readOnce(): Promise<void> {
    const after = this.#scanned;
    if (!this.#dirty || after === undefined) return;
    this.#dirty = false;
    let records: HistoryRecord[];
    try {
      records = await this.deps.store.load(this.deps.sessionId, { afterSeq: after });
    } catch {
      // Read again at the next boundary; the turn's own appends fail too if the store is gone.
      this.#dirty = true;
      return;
    }
    for (const record of records) {
      this.#scanned = Math.max(this.#scanned ?? 0, record.seq);
      if (record.kind === "stop") this.#stopRequested(record.runId, record.reason);
      else if (
        record.kind === "steer" &&
        typeof record.messageId === "string" &&
        !this.#steerOf.has(record.messageId)
      ) {
        this.#steerOf.set(record.messageId, record.id);
        this.#pending.push({ message: record.message, messageId: record.messageId });
      }
    }
  }

  #stopRequested(runId: unknown, reason: unknown): void {
    const { deps } = this;
    if (this.#stopped || (runId !== deps.runId && (deps.chainRunId === undefined || runId !== deps.chainRunId))) return;
    this.#stopped = true;
    deps.stop(typeof reason === "string" && reason !== "" ? reason : "stopped");
  }
}
