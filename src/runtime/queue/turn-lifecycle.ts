import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import type { ResumeDecision } from "../records/approval-decision.js";
import type { Lineage } from "../records/lineage.js";
import type { SessionState } from "../records/session-state.js";
import type { TurnStarter } from "../records/turn-request.js";
import type { HeldLease } from "../session/session-lease.js";

/** A session's suspended turn, as its state has it. */
export type Suspended = NonNullable<SessionState["suspended"]>;

/** What the turn queue does besides queuing: recover a session's decided turn, resume a suspended one. */
export interface ResumableTurns extends TurnStarter {
  /**
   * The session's state, after resuming a suspended turn whose approvals are all decided but that
   * never resumed (answering first its calls that wait on other agents whose turns ended;
   * `depth` counts the sessions of the chain already being recovered). Call it holding the session's lease.
   */
  recoverDecided(session: SessionSummary, lease: HeldLease, lineage: Lineage, depth?: number): Promise<SessionState>;
  /**
   * Resumes `suspended`, the suspended turn of `state`, with its stored decisions (and `extra` ones,
   * by tool-call id). Call it holding the session's lease.
   */
  resumeSuspended(
    session: SessionSummary,
    state: SessionState,
    suspended: Suspended,
    lease: HeldLease,
    lineage: Lineage,
    extra: Record<string, ResumeDecision>,
  ): Promise<TurnResult>;
}

/**
 * The points of a turn's life where the features built on the queue act (background agents,
 * tasks). Features are built before the queue and handed to it; what they need of the queue
 * itself comes as an argument.
 */
export interface TurnLifecycle {
  /** A turn of `session` was queued; `turn` settles with its result. `turns` starts further turns. */
  queued?(session: SessionSummary, lineage: Lineage, turn: Promise<TurnResult>, turns: TurnStarter): void;
  /** A new turn of `session` is about to run (admitted, prepared, not started). */
  starting?(session: SessionSummary): Promise<void>;
  /** A turn of `session` ended other than suspended; before its result is returned. */
  settled?(session: SessionSummary, result: TurnResult): Promise<void>;
}

/**
 * Recovers a suspended session's calls that wait on other agents (a delegated wait), before the
 * session is used: answers those whose targets' chains ended while nobody delivered. Returns
 * whether an answer was stored. Built before the queue; the queue hands itself to each call.
 */
export interface WaitRecovery {
  /**
   * When `session` (its `state` just read, under its lease) is part of a delegation chain that a
   * crash left half done (see `chainTop`), the chain's top session; else `undefined`.
   */
  brokenChain(session: SessionSummary, state: SessionState): Promise<SessionSummary | undefined>;
  /** Finishes the half-done steps of the chain below `top`, from the top down. Call it holding no lease. */
  recoverTop(turns: ResumableTurns, top: SessionSummary): Promise<void>;
  recover(
    turns: ResumableTurns,
    session: SessionSummary,
    lease: HeldLease,
    state: SessionState,
    depth: number,
  ): Promise<boolean>;
}
