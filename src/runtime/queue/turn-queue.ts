import type { SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import { storedDecisions, type ResumeDecision } from "../records/approval-decision.js";
import { newLineage, type Lineage } from "../records/lineage.js";
import type { SessionState } from "../records/session-state.js";
import type { TurnRequest } from "../records/turn-request.js";
import type { HeldLease } from "../session/session-lease.js";
import { crashResume, emergencyReset, repairSession, type CrashResume } from "../session/repair-session.js";
import type { ToolResultPart } from "../../contracts/message.js";
import type { TurnSetup } from "../runner/turn-setup.js";
import { agentOf, sessionRole } from "../agents/agent-lookups.js";
import { admitBehindDecisions, isWaiting } from "./queued-messages.js";
import { PendingQueue } from "./pending-queue.js";
import { priorRun, rerun } from "./rerun.js";
import type { ResumableTurns, Suspended } from "./turn-lifecycle.js";
import type { TurnQueueDeps } from "./turn-queue-deps.js";

/**
 * How turns reach sessions: queued (each session's turns one at a time, in arrival order, under
 * its lease), recovered, resumed, settled. Messages sent while a session waits for a decision wait
 * in its pending-message queue (`ifPending: "queue"`).
 */
export class TurnQueue implements ResumableTurns {
  /** Messages waiting behind a session's pending decision (`ifPending: "queue"`). */
  readonly #pending = new PendingQueue((sessionId) => this.#checkPending(sessionId));

  constructor(private readonly deps: Readonly<TurnQueueDeps>) {}

  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  enqueue(request: TurnRequest): Promise<TurnResult> {
    const { agent, session } = request;
    const lineage = request.lineage ?? newLineage(this.deps.limits, agent);
    const turn = this.#admit(request, lineage);
    const result = turn.then((outcome) =>
      "queued" in outcome ? outcome.queued : (this.#checkPending(session.sessionId), outcome),
    );
    for (const feature of this.deps.lifecycle) feature.queued?.(session, lineage, result, this);
    return result;
  }

  async recoverDecided(session: SessionSummary, lease: HeldLease, lineage: Lineage, depth = 0): Promise<SessionState> {
    const { states } = this.deps;
    let state = await states.read(session);
    // A turn a crash left open with calls that never ran is continued: they run once, now.
    const crashed = crashResume(state);
    if (crashed) {
      await this.#continueCrashed(session, state, crashed, lease, lineage);
      this.deps.store.hintSession(session.sessionId);
      state = await states.read(session);
    }
    // A waiting call whose target's chain ended while nobody answered it (a crash between two steps).
    if (state.suspended && state.pending.some((p) => p.request.waitsOn !== undefined)) {
      if (await this.deps.waits.recover(this, session, lease, state, depth)) state = await states.read(session);
    }
    if (!state.suspended || state.pending.length > 0 || state.decisions.size === 0) return state;
    await this.resumeSuspended(session, state, state.suspended, lease, lineage, {});
    return states.read(session);
  }

  resumeSuspended(
    session: SessionSummary,
    state: SessionState,
    suspended: Suspended,
    lease: HeldLease,
    lineage: Lineage,
    extra: Record<string, ResumeDecision>,
  ): Promise<TurnResult> {
    const decisions = { ...storedDecisions(state), ...extra };
    // Results stored per call are reused: a finished call never runs again.
    const results = { ...state.toolResults, ...suspended.results };
    return this.#resume(session, state, suspended.runId, lease, lineage, { decisions, results });
  }

  /**
   * Continues the turn a crash left open (see `crashResume`) as `<runId>:retry-<n>`, after
   * storing its end: the calls that never ran run now, exactly once (under the session's lease,
   * each start fenced by it).
   */
  #continueCrashed(
    session: SessionSummary,
    state: SessionState,
    crashed: CrashResume,
    lease: HeldLease,
    lineage: Lineage,
  ): Promise<TurnResult> {
    const open = state.openTurn!;
    const base = open.replace(/:retry-\d+$/, "");
    const runId = `${base}:retry-${(priorRun(state.runs, base)?.attempt ?? 0) + 1}`;
    const decisions = { ...storedDecisions(state), ...crashed.decisions };
    return this.#resume(
      session,
      state,
      open,
      lease,
      lineage,
      { decisions, results: crashed.results },
      { runId, preface: crashed.records, prefaceEvents: crashed.events },
    );
  }

  /** Runs a turn that resumes `resumeOf` (suspended, or left open by a crash) with `resume`'s decisions and results. */
  #resume(
    session: SessionSummary,
    state: SessionState,
    resumeOf: string,
    lease: HeldLease,
    lineage: Lineage,
    resume: { decisions: Record<string, ResumeDecision>; results: Record<string, ToolResultPart> },
    opening: Pick<TurnSetup, "runId" | "preface" | "prefaceEvents"> = {},
  ): Promise<TurnResult> {
    const { registry, roleOf, prepare, running, runner } = this.deps;
    const agent = agentOf(registry, session.agentId);
    const chatContext = state.chatContexts.get(resumeOf) ?? { kind: "thread" };
    const hostContext = state.hostContexts.get(resumeOf);
    const role = sessionRole(roleOf, agent, session, state);
    const stop = running.start(session.sessionId, undefined);
    return runner
      .runTurn({
        ...opening,
        agent,
        session,
        created: false,
        role,
        signal: stop.signal,
        stopReason: stop.reason,
        prepared: prepare(agent, session, chatContext, role, hostContext),
        ...(hostContext !== undefined && { context: hostContext }),
        ...(state.chainRunId !== undefined && { chainRunId: state.chainRunId }),
        history: state.history,
        historyTokens: state.historyTokens,
        input: undefined,
        resume: { frames: state.frames, ...resume },
        resumeOf,
        turn: Math.max(state.turn, 1),
        chain: [],
        chatContext,
        ...(state.outputSchema !== undefined && { outputSchema: state.outputSchema }),
        lineage,
        leaseToken: lease.token,
        ...(lease.token !== undefined && { leaseLost: lease.lost }),
        onEvent: () => undefined,
        turns: this,
      })
      .finally(stop.done)
      .then((result) => this.#settle(session, result))
      .then((result) => (this.#checkPending(session.sessionId), result));
  }

  /** Rejects every message waiting behind a decision (the runtime closes). */
  rejectWaiting(error: unknown): void {
    this.#pending.rejectAll(error);
  }

  /**
   * Runs the request under the session's lease. When the session is part of a delegation chain a
   * crash left half done, the lease is given back, the chain is finished from its top (leases are
   * taken in the direction calls are made, never against it) and the request admitted again.
   */
  async #admit(request: TurnRequest, lineage: Lineage): Promise<TurnResult | { queued: Promise<TurnResult> }> {
    const { gate, waits } = this.deps;
    const { sessionId } = request.session;
    const checkChain = request.continueOnly !== true;
    const first = await gate.withSession(sessionId, (lease) => this.#runAdmitted(request, lineage, lease, checkChain));
    if (!("brokenChain" in first)) return first;
    await waits.recoverTop(this, first.brokenChain);
    const again = await gate.withSession(sessionId, (lease) => this.#runAdmitted(request, lineage, lease, false));
    if ("brokenChain" in again) throw new Error("unreachable: the chain is checked once");
    return again;
  }

  /**
   * An enqueued turn once it holds the session's lease: finishes a decided suspension first, answers a
   * retried run id from the store, queues behind a pending decision, else prepares and runs the turn.
   */
  async #runAdmitted(
    request: TurnRequest,
    lineage: Lineage,
    lease: HeldLease,
    checkChain: boolean,
  ): Promise<TurnResult | { queued: Promise<TurnResult> } | { brokenChain: SessionSummary }> {
    const { agent, session, chatContext } = request;
    const { store, options, roleOf, prepare, running, runner } = this.deps;
    // A suspended turn whose approvals were all decided (by a process that died before it
    // resumed the turn) runs first: the decision is never lost.
    const state = await this.recoverDecided(session, lease, lineage);
    // A chain this session is part of that a crash broke is finished first (from its top).
    const top = checkChain ? await this.deps.waits.brokenChain(session, state) : undefined;
    if (top !== undefined) return { brokenChain: top };
    // A turn sent again under its run id (a retried job) never runs twice.
    const again = await rerun(store, request, state, lease);
    if ("result" in again) return again.result;
    const waiting = await admitBehindDecisions(this.deps, this.#pending, request, state);
    if (waiting) return waiting;
    const { input, runId } = again;
    const role = sessionRole(roleOf, agent, session, state);
    const prepared = prepare(agent, session, chatContext, role, request.context);
    for (const feature of this.deps.lifecycle) await feature.starting?.(session);
    const stop = running.start(session.sessionId, request.signal);
    const repair = emergencyReset(repairSession(state), input, prepared.systemPrompt, options.emergencyContextLimit);
    return runner
      .runTurn({
        agent,
        session,
        created: request.created,
        prepared,
        history: repair.history,
        historyTokens: repair.historyTokens,
        input,
        preface: repair.records,
        prefaceEvents: repair.events,
        chatContext,
        ...(request.outputSchema !== undefined && { outputSchema: request.outputSchema }),
        chain: request.chain,
        lineage,
        leaseToken: lease.token,
        // A store without leases cannot lose one: no signal to combine with the turn's.
        ...(lease.token !== undefined && { leaseLost: lease.lost }),
        role,
        // A continuation of a turn whose process died (no input) keeps that turn's number.
        turn: input === undefined && runId !== undefined ? Math.max(state.turn, 1) : state.turn + 1,
        ...(runId !== undefined && { runId }),
        ...(request.context !== undefined && { context: request.context }),
        ...(request.waiter !== undefined && { waiter: request.waiter }),
        ...(request.parentBudget !== undefined && { parentBudget: request.parentBudget }),
        signal: stop.signal,
        stopReason: stop.reason,
        onEvent: request.onEvent ?? (() => undefined),
        turns: this,
      })
      .finally(stop.done)
      .then((result) => this.#settle(session, result));
  }

  /** After a turn that did not suspend, before its result is returned: the features' `settled`, in order. */
  async #settle(session: SessionSummary, result: TurnResult): Promise<TurnResult> {
    if (result.status === "suspended") return result;
    for (const feature of this.deps.lifecycle) await feature.settled?.(session, result);
    return result;
  }

  /** Hands a session's queued messages back once it has no decision pending (called after its turns end, and polled). */
  #checkPending(sessionId: string): void {
    const first = this.#pending.peek(sessionId);
    if (!first) return;
    this.deps.states.read(first.session).then(
      (state) => {
        if (!isWaiting(state))
          this.#pending.drain(sessionId, (request, message) => this.enqueue({ ...request, drained: message }));
      },
      (error: unknown) => this.deps.events.report("queue_check_failed", error, first.session),
    );
  }
}
