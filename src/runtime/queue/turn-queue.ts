import type { QueuedRecord, SessionSummary } from "../../contracts/session-store.js";
import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import { SessionBusyError } from "../../errors/errors.js";
import { storedDecisions, type ResumeDecision } from "../records/approval-decision.js";
import { newLineage, type Lineage } from "../records/lineage.js";
import type { SessionState } from "../records/session-state.js";
import type { TurnRequest } from "../records/turn-request.js";
import type { HeldLease } from "../session/session-lease.js";
import { crashResume, type CrashResume } from "../session/repair-session.js";
import type { ToolResultPart } from "../../contracts/message.js";
import type { TurnSetup } from "../runner/turn-setup.js";
import { agentOf, sessionRole } from "../agents/agent-lookups.js";
import { admitBehindDecisions, hasStoredQueue, isWaiting } from "./queued-messages.js";
import { PendingQueue } from "./pending-queue.js";
import { priorRun, rerun } from "./rerun.js";
import { steeredOutcome, unreadSteers } from "./steering.js";
import { retriedRun, shapedRepair, shapeTurn, type TurnShape } from "./turn-shape.js";
import { SessionWatch } from "./session-watch.js";
import type { ResumableTurns, Suspended } from "./turn-lifecycle.js";
import type { TurnQueueDeps } from "./turn-queue-deps.js";

/**
 * How turns reach sessions: queued (each session's turns one at a time, in arrival order, under
 * its lease), recovered, resumed, settled. A message sent while a session waits for a decision
 * (`ifPending: "queue"`) is stored when the host sent it (and run by whichever process next finds
 * the session free: {@link TurnQueue.releaseQueued}), or waits here when another agent sent it.
 */
export class TurnQueue implements ResumableTurns {
  /** Other agents' messages waiting behind a session's pending decision. */
  readonly #pending = new PendingQueue();
  /** Steered messages (by `steer` record id) whose follow-up is queued in this process. */
  readonly #steering = new Set<string>();
  /** Sessions with messages waiting behind a decision, here or stored by this process: looked at on signals. */
  readonly #watch: SessionWatch;
  /** The watched sessions. */
  readonly #watched = new Map<string, SessionSummary>();
  /** Sessions whose stored queued messages this process is releasing (one release per session at a time). */
  readonly #releasing = new Set<string>();
  /** Sessions being looked at, and those to look at again once that look ends. */
  readonly #checking = new Map<string, boolean>();
  #closed = false;

  constructor(private readonly deps: Readonly<TurnQueueDeps>) {
    this.#watch = new SessionWatch(deps.store, (sessionId) => {
      const session = this.#watched.get(sessionId);
      if (session) this.check(session);
    });
  }

  /** Queues a turn on its session; the session's state is read and repaired when its turn comes. */
  enqueue(request: TurnRequest): Promise<TurnResult> {
    const { agent, session } = request;
    const lineage = request.lineage ?? newLineage(this.deps.limits, agent);
    const turn = this.#admit(request, lineage);
    const result = turn.then((outcome) => {
      if ("queued" in outcome) return outcome.queued;
      // Messages that waited behind this session's decision may run now.
      if (this.#watched.has(session.sessionId)) this.check(session);
      return outcome;
    });
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

  /**
   * Runs the session's stored queued messages (`QueuedRecord`s, in arrival order) while it waits
   * for no decision, each as the turn its record names: a turn of that run id that ended is not
   * run again, one whose process died is continued (`<runId>:retry-<n>`), so each message runs
   * exactly once whichever processes race to release it (the lease orders them). Call it holding
   * the session's lease, with its state read under it. Returns the state after.
   */
  async releaseQueued(session: SessionSummary, lease: HeldLease, state: SessionState): Promise<SessionState> {
    let current = state;
    if (!hasStoredQueue(current) || current.suspended) return current;
    const agent = agentOf(this.deps.registry, session.agentId);
    // Bounded by what is stored now: nothing is queued in the session while its lease is held here.
    for (let left = current.queued.length + (current.openQueued ? 1 : 0); left > 0; left--) {
      const next = current.openQueued ?? current.queued[0];
      if (this.#closed || current.suspended || next === undefined) break;
      const request = queuedRequest(agent, session, next);
      const lineage = newLineage(this.deps.limits, agent);
      const turn = rerun(this.deps.store, request, current, lease).then((again) =>
        "result" in again
          ? again.result
          : this.#run(request, lineage, lease, current, again.runId, shapeOf(request, current, again)),
      );
      for (const feature of this.deps.lifecycle) feature.queued?.(session, lineage, turn, this);
      await turn;
      current = await this.deps.states.read(session);
    }
    return current;
  }

  /**
   * {@link releaseQueued} after a decision's resumed turn, holding the session's lease (its state
   * read afresh); a failure is reported (`queue_release_failed`): the decider already has its answer.
   */
  async releaseHeld(session: SessionSummary, lease: HeldLease): Promise<void> {
    try {
      await this.releaseQueued(session, lease, await this.deps.states.read(session));
    } catch (error) {
      this.deps.events.report("queue_release_failed", error, session);
    }
  }

  /**
   * Looks at a session that may have messages waiting behind a decision that was made (here or in
   * another process): hands this process's waiting messages back, or releases the stored ones
   * (in the background, under the session's lease); stops watching it once nothing waits. Failures
   * are reported (`queue_check_failed`, `queue_release_failed`), never thrown.
   */
  check(session: SessionSummary): void {
    const { sessionId } = session;
    if (this.#closed) return;
    if (this.#checking.has(sessionId)) {
      this.#checking.set(sessionId, true);
      return;
    }
    this.#checking.set(sessionId, false);
    this.deps.states
      .read(session)
      .then(
        (state) => {
          if (isWaiting(state)) return;
          if (this.#pending.has(sessionId))
            this.#pending.drain(sessionId, (request, message) => this.enqueue({ ...request, drained: message }));
          else if (hasStoredQueue(state)) this.#release(session);
          else if (!this.#releasing.has(sessionId)) this.#unwatch(sessionId);
        },
        (error: unknown) => this.deps.events.report("queue_check_failed", error, session),
      )
      .finally(() => {
        const again = this.#checking.get(sessionId) === true;
        this.#checking.delete(sessionId);
        if (again) this.check(session);
      });
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
    // A crashed turn's continuation has its run id (`<runId>:retry-<n>`); a resumed suspension a new one.
    const runId = opening.runId ?? globalThis.crypto.randomUUID();
    const stop = running.start(session.sessionId, undefined, { runId, chainRunId: state.chainRunId });
    return runner
      .runTurn({
        ...opening,
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
      .then((result) => {
        // Messages that waited behind this decision may run now.
        if (this.#watched.has(session.sessionId)) this.check(session);
        return result;
      });
  }

  /** The runtime closes: rejects every message waiting here behind a decision, stops watching and releasing. */
  close(error: unknown): void {
    this.#closed = true;
    this.#pending.rejectAll(error);
    this.#watch.close();
    this.#watched.clear();
  }

  /** Watches `session` for the decision its waiting messages wait behind. */
  #watchSession(session: SessionSummary): void {
    if (this.#closed) return;
    this.#watched.set(session.sessionId, session);
    this.#watch.watch(session.sessionId);
  }

  #unwatch(sessionId: string): void {
    this.#watched.delete(sessionId);
    this.#watch.unwatch(sessionId);
  }

  /**
   * Releases the session's stored queued messages in the background: under its lease, after
   * finishing a decided suspension a crash left. Looks again once done (a failure waits for the
   * watch's next look, so a store that keeps failing is not hammered).
   */
  #release(session: SessionSummary): void {
    const { sessionId } = session;
    if (this.#closed || this.#releasing.has(sessionId)) return;
    const agent = this.deps.registry.get(session.agentId);
    if (!agent) return;
    this.#releasing.add(sessionId);
    this.#watchSession(session);
    this.deps.gate
      .withSession(sessionId, async (lease) => {
        const lineage = newLineage(this.deps.limits, agent);
        await this.releaseQueued(session, lease, await this.recoverDecided(session, lease, lineage));
      })
      .then(
        () => {
          this.#releasing.delete(sessionId);
          this.check(session);
        },
        (error: unknown) => {
          this.#releasing.delete(sessionId);
          // Another runtime holds the session for long: the watch looks again later.
          if (!SessionBusyError.isInstance(error)) this.deps.events.report("queue_release_failed", error, session);
        },
      );
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
   * An enqueued turn once it holds the session's lease: finishes a decided suspension first, runs the
   * stored queued messages (they came first), answers a retried run id from the store, queues behind a
   * pending decision, else prepares and runs the turn.
   */
  async #runAdmitted(
    request: TurnRequest,
    lineage: Lineage,
    lease: HeldLease,
    checkChain: boolean,
  ): Promise<TurnResult | { queued: Promise<TurnResult> } | { brokenChain: SessionSummary }> {
    const { session } = request;
    const { store } = this.deps;
    // A suspended turn whose approvals were all decided (by a process that died before it
    // resumed the turn) runs first: the decision is never lost. So do the messages stored
    // behind a decision that was made (by a process that died before it ran them).
    const recovered = await this.recoverDecided(session, lease, lineage);
    // A chain this session is part of that a crash broke is finished first (from its top).
    const top = checkChain ? await this.deps.waits.brokenChain(session, recovered) : undefined;
    if (top !== undefined) return { brokenChain: top };
    // A turn continued after its process died goes first (a queued turn's repair would close it).
    const continuing = request.runId !== undefined && recovered.openTurn?.replace(RETRY, "") === request.runId;
    const state = continuing ? recovered : await this.releaseQueued(session, lease, recovered);
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
    const shape = shapeOf(request, state, again);
    const watch = (waiting: TurnRequest) => this.#watchSession(waiting.session);
    const waiting = continuing
      ? undefined
      : await admitBehindDecisions(this.deps, { pending: this.#pending, watch }, request, state, lease);
    if (waiting) return waiting;
    // A message that superseded the decision (or a continued turn) runs ahead of those stored
    // behind it: they run after it.
    if (hasStoredQueue(state)) this.#watchSession(session);
    return this.#run(request, lineage, lease, state, again.runId, shape);
  }

  /** Prepares and runs an admitted turn (holding the session's lease), after the repairs its session needs. */
  async #run(
    request: TurnRequest,
    lineage: Lineage,
    lease: HeldLease,
    state: SessionState,
    runId: string | undefined,
    shape: TurnShape,
  ): Promise<TurnResult> {
    const { agent, session, chatContext } = request;
    const { store, roleOf, prepare, running, runner } = this.deps;
    const { input } = shape;
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
        fitContext: { turnStarts: state.turnStarts, queued: state.queued },
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
}

/**
 * What a turn runs: a continuation of a crashed turn (a new run id) its stored input, which stored
 * its rewind already; a new turn its message, shaped by its message ids.
 */
function shapeOf(
  request: TurnRequest,
  state: SessionState,
  again: { input: TurnRequest["input"] | undefined; runId: string | undefined },
): TurnShape {
  return again.runId === request.runId ? shapeTurn(request, state) : { input: again.input };
}

/** The suffix of a continuation's run id (`<runId>:retry-<n>`). */
const RETRY = /:retry-\d+$/;

/** The turn that runs a stored queued message: its message, chat and host context and output schema, under its run id. */
function queuedRequest(agent: AgentDefinition, session: SessionSummary, record: QueuedRecord): TurnRequest {
  return {
    agent,
    session,
    created: false,
    input: record.message,
    chatContext: record.chatContext ?? { kind: "thread" },
    chain: [],
    runId: record.runId,
    ...(record.context !== undefined && { context: record.context }),
    ...(record.outputSchema !== undefined && { outputSchema: record.outputSchema }),
    ...(record.messageId !== undefined && { messageId: record.messageId }),
  };
}
