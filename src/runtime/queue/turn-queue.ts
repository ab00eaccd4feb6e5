import type { SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import { storedDecisions, type ResumeDecision } from "../records/approval-decision.js";
import { newLineage, type Lineage } from "../records/lineage.js";
import type { SessionState } from "../records/session-state.js";
import type { TurnRequest } from "../records/turn-request.js";
import type { HeldLease } from "../session/session-lease.js";
import { agentOf, sessionRole } from "../agents/agent-lookups.js";
import { admitBehindDecisions, isWaiting } from "./queued-messages.js";
import { PendingQueue } from "./pending-queue.js";
import { rerun } from "./rerun.js";
import { steeredOutcome, unreadSteers } from "./steering.js";
import { retriedRun, shapedRepair, shapeTurn, type TurnShape } from "./turn-shape.js";
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
  /** Steered messages (by `steer` record id) whose follow-up is queued in this process. */
  readonly #steering = new Set<string>();

  constructor(private readonly deps: Readonly<TurnQueueDeps>) {}

  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  enqueue(request: TurnRequest): Promise<TurnResult> {
    const { agent, session } = request;
    const lineage = request.lineage ?? newLineage(this.deps.limits, agent);
    const turn = this.deps.gate.withSession(session.sessionId, (lease) => this.#runAdmitted(request, lineage, lease));
    const result = turn.then((outcome) =>
      "queued" in outcome ? outcome.queued : (this.#checkPending(session.sessionId), outcome),
    );
    for (const feature of this.deps.lifecycle) feature.queued?.(session, lineage, result, this);
    const steerOf = request.steerOf;
    if (steerOf !== undefined) {
      this.#steering.add(steerOf);
      void result.then(
        () => this.#steering.delete(steerOf),
        () => this.#steering.delete(steerOf),
      );
    }
    return result;
  }

  async recoverDecided(session: SessionSummary, lease: HeldLease, lineage: Lineage, depth = 0): Promise<SessionState> {
    const { states } = this.deps;
    let state = await states.read(session);
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
    const { registry, roleOf, prepare, running, runner } = this.deps;
    const agent = agentOf(registry, session.agentId);
    const decisions = { ...storedDecisions(state), ...extra };
    const chatContext = state.chatContexts.get(suspended.runId) ?? { kind: "thread" };
    const hostContext = state.hostContexts.get(suspended.runId);
    const role = sessionRole(roleOf, agent, session, state);
    const runId = globalThis.crypto.randomUUID();
    const stop = running.start(session.sessionId, undefined, { runId, chainRunId: state.chainRunId });
    return runner
      .runTurn({
        agent,
        session,
        created: false,
        role,
        runId,
        signal: stop.signal,
        stopReason: stop.reason,
        stop: stop.stop,
        tell: stop.tell,
        unreadSteers: () => this.#followSteers(session),
        prepared: prepare(agent, session, chatContext, role, hostContext),
        ...(hostContext !== undefined && { context: hostContext }),
        ...(state.chainRunId !== undefined && { chainRunId: state.chainRunId }),
        history: state.history,
        historyTokens: state.historyTokens,
        input: undefined,
        // Results stored per call are reused: a finished call never runs again.
        resume: { frames: state.frames, decisions, results: { ...state.toolResults, ...suspended.results } },
        resumeOf: suspended.runId,
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
   * An enqueued turn once it holds the session's lease: finishes a decided suspension first, answers a
   * retried run id from the store, queues behind a pending decision, else prepares and runs the turn.
   */
  async #runAdmitted(
    request: TurnRequest,
    lineage: Lineage,
    lease: HeldLease,
  ): Promise<TurnResult | { queued: Promise<TurnResult> }> {
    const { agent, session, chatContext } = request;
    const { store, roleOf, prepare, running, runner } = this.deps;
    // A suspended turn whose approvals were all decided (by a process that died before it
    // resumed the turn) runs first: the decision is never lost.
    const state = await this.recoverDecided(session, lease, lineage);
    // A steered message that the running turn read: that turn's outcome.
    const steered = await steeredOutcome(store, request, state);
    if (steered) return steered;
    // Steered messages no turn read (their sender is gone): each runs next, as its own turn.
    if (state.steers.size > 0) this.#followSteers(session, state);
    // A turn sent again under its run id (a retried job), or its message again under its id (a
    // retried request), never runs twice.
    const retried = retriedRun(request, state);
    const again = await rerun(
      store,
      retried ? { ...request, runId: retried, continueOnly: true } : request,
      state,
      lease,
    );
    if ("result" in again) return again.result;
    // A continuation of a crashed turn stored its rewind already; a new turn is shaped by its message ids.
    const shape: TurnShape = again.runId === request.runId ? shapeTurn(request, state) : { input: again.input };
    const waiting = await admitBehindDecisions(this.deps, this.#pending, request, state);
    if (waiting) return waiting;
    const { input } = shape;
    const { runId } = again;
    const role = sessionRole(roleOf, agent, session, state);
    const prepared = prepare(agent, session, chatContext, role, request.context);
    for (const feature of this.deps.lifecycle) await feature.starting?.(session);
    const turnRunId = runId ?? globalThis.crypto.randomUUID();
    const stop = running.start(session.sessionId, request.signal, { runId: turnRunId, chainRunId: undefined });
    // Compaction and the emergency reset are the runner's: a summary call is the turn's.
    const repair = await shapedRepair(store, session.sessionId, state, shape);
    return runner
      .runTurn({
        agent,
        session,
        created: request.created,
        prepared,
        history: repair.history,
        historyTokens: repair.historyTokens,
        input,
        ...(shape.messageId !== undefined && { inputMessageId: shape.messageId }),
        preface: repair.records,
        prefaceEvents: repair.events,
        fitContext: { turnStarts: state.turnStarts },
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
        runId: turnRunId,
        ...(request.steerOf !== undefined && input !== undefined && { steerOf: request.steerOf }),
        ...(request.context !== undefined && { context: request.context }),
        ...(request.waiter !== undefined && { waiter: request.waiter }),
        ...(request.parentBudget !== undefined && { parentBudget: request.parentBudget }),
        signal: stop.signal,
        stopReason: stop.reason,
        stop: stop.stop,
        tell: stop.tell,
        unreadSteers: () => this.#followSteers(session),
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

  /**
   * Queues, as its own turn, every steered message of the session that no turn read and none is
   * queued for here (`state` as read, else read now): it is never lost, and runs once (under its
   * record's run id).
   */
  #followSteers(session: SessionSummary, known?: SessionState): void {
    const { registry, states, events } = this.deps;
    const follow = (state: SessionState) => {
      for (const steer of unreadSteers(state)) {
        if (this.#steering.has(steer.id)) continue;
        const request: TurnRequest = {
          agent: agentOf(registry, session.agentId),
          session,
          created: false,
          input: steer.message,
          chatContext: { kind: "thread" },
          chain: [],
          runId: steer.runId,
          steerOf: steer.id,
        };
        this.enqueue(request).catch((error: unknown) => events.report("steer_failed", error, session));
      }
    };
    if (known) return follow(known);
    states.read(session).then(follow, (error: unknown) => events.report("steer_failed", error, session));
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
