import type { SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import { storedDecisions } from "../approvals/approval-decision.js";
import type { BackgroundNotices } from "../delegation/background-notices.js";
import type { PrepareAgent } from "./prepared-agents.js";
import { emergencyReset, repairSession } from "../session/repair-session.js";
import { runTurn } from "./run-turn.js";
import { InvalidArgumentError } from "../../errors/errors.js";
import { admitBehindDecisions, checkQueue } from "./queued-messages.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { isBackground, type Lineage, type SessionTurns, type TurnRequest } from "../common/runtime-core.js";
import { agentOf, newLineage, sessionRole } from "../common/runtime-lookups.js";
import type { HeldLease } from "../session/session-lease.js";
import { danglingCalls, type SessionState } from "../session/session-state.js";
import { storedTurnResult } from "../session/stored-turn-result.js";
import { executionOutcome, taskOf } from "../tasks/task-state.js";
import { recoverWaits } from "../delegation/delegated-waits.js";
import { moveSubagent, settleSubagentTurn } from "../delegation/subagent-lifecycle.js";
import { transitionTask } from "../tasks/task-api.js";

/** The session turns of a runtime. */
export function createSessionTurns(
  runtime: RuntimeContext,
  prepare: PrepareAgent,
  notices: BackgroundNotices,
): SessionTurns {
  const { states } = runtime;

  const runningTurn = (sessionId: string, signal: AbortSignal | undefined) =>
    registerRunningTurn(runtime, sessionId, signal);

  const queue = runtime.pendingQueue;
  const checkQueueOf = (sessionId: string) => checkQueue(runtime, queue, turns, sessionId);

  const turns: SessionTurns = {
    enqueue(request) {
      const { agent, session } = request;
      const lineage = request.lineage ?? newLineage(runtime, agent);
      const turn = runtime.withSession(session.sessionId, (lease) =>
        runAdmitted(runtime, turns, prepare, request, lineage, lease),
      );
      const result = turn.then((outcome) =>
        "queued" in outcome ? outcome.queued : (checkQueueOf(session.sessionId), outcome),
      );
      if (isBackground(session)) notices.watch(session, lineage, result);
      return result;
    },

    async recoverDecided(session, lease, lineage, depth = 0) {
      let state = await states.read(session);
      // A waiting call whose target's chain ended while nobody answered it (a crash between two steps).
      if (state.suspended && state.pending.some((p) => p.request.waitsOn !== undefined)) {
        if (await recoverWaits(runtime, turns, session, lease, state, depth)) state = await states.read(session);
      }
      if (!state.suspended || state.pending.length > 0 || state.decisions.size === 0) return state;
      await turns.resumeSuspended(session, state, state.suspended, lease, lineage, {});
      return states.read(session);
    },

    resumeSuspended(session, state, suspended, lease, lineage, extra) {
      const agent = agentOf(runtime, session.agentId);
      const decisions = { ...storedDecisions(state), ...extra };
      const chatContext = state.chatContexts.get(suspended.runId) ?? { kind: "thread" };
      const hostContext = state.hostContexts.get(suspended.runId);
      const role = sessionRole(runtime, agent, session, state);
      const stop = runningTurn(session.sessionId, undefined);
      return runTurn(runtime, {
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
      })
        .finally(stop.done)
        .then((result) => settleAfterTurn(runtime, session, result))
        .then((result) => (checkQueueOf(session.sessionId), result));
    },
  };
  return turns;
}

/**
 * What a turn sent under a `runId` runs: its stored outcome when a turn of that id (or one of its
 * continuations) ended; when its process died mid-turn, a continuation `<runId>:retry-<n>`
 * without the message again (or, when the answer was stored and only the end record is missing,
 * that end record and the stored outcome); else the request as sent.
 */
async function rerun(
  runtime: RuntimeContext,
  request: TurnRequest,
  state: SessionState,
  lease: HeldLease,
): Promise<{ result: TurnResult } | { input: TurnRequest["input"] | undefined; runId: string | undefined }> {
  const { session } = request;
  const runId = request.runId;
  if (runId === undefined) return { input: request.input, runId };
  const prior = priorRun(state.runs, runId);
  if (prior !== undefined && prior.status !== null)
    return { result: (await storedTurnResult(runtime.store, session, prior.runId, request.created))! };
  if (prior === undefined) {
    if (request.continueOnly)
      throw new InvalidArgumentError(`No turn "${runId}" to continue in session "${session.sessionId}"`);
    return { input: request.input, runId };
  }
  const last = state.history.at(-1);
  if (last?.role === "assistant" && danglingCalls(state.history).length === 0) {
    // The answer was stored; only the end record is missing.
    await runtime.store.append(
      session.sessionId,
      [{ id: `${prior.runId}:end`, frame: null, kind: "turn", runId: prior.runId, phase: "end", status: "complete" }],
      { leaseToken: lease.token },
    );
    return { result: (await storedTurnResult(runtime.store, session, prior.runId, request.created))! };
  }
  return { input: undefined, runId: `${runId}:retry-${prior.attempt + 1}` };
}

/**
 * The latest turn of `runId` or of its continuations (`<runId>:retry-<n>`) among the recent ones, with its continuation
 * number.
 */
export function priorRun(
  runs: Map<string, string | null>,
  runId: string,
): { runId: string; status: string | null; attempt: number } | undefined {
  let found: { runId: string; status: string | null; attempt: number } | undefined;
  const prefix = `${runId}:retry-`;
  for (const [id, status] of runs) {
    if (id === runId) found ??= { runId: id, status, attempt: 0 };
    else if (id.startsWith(prefix)) {
      const attempt = Number(id.slice(prefix.length));
      if (Number.isInteger(attempt) && attempt > (found?.attempt ?? -1)) found = { runId: id, status, attempt };
    }
  }
  return found;
}

/**
 * After a turn that did not suspend, before its result is returned: a background agent waits
 * for its parent to merge; an executing task becomes `completed` or `failed`. (Only sessions
 * made as such, so other turns cost no extra store reads.)
 */
async function settleAfterTurn(
  runtime: RuntimeContext,
  session: SessionSummary,
  result: TurnResult,
): Promise<TurnResult> {
  const { store } = runtime;
  if (result.status === "suspended") return result;
  if (isBackground(session)) await settleSubagentTurn(store, runtime.publish, result);
  const outcome = executionOutcome(result);
  if (outcome === undefined || typeof session.attributes?.taskId !== "string") return result;
  const current = await store.getSession(result.sessionId);
  if (current && taskOf(current)?.status === "executing") {
    // Lost to a concurrent transition (a cancel): that one stands, and is reported.
    await transitionTask({ store, publish: runtime.publish }, current, outcome).catch((error: unknown) =>
      runtime.report("task_transition_failed", error, session),
    );
  }
  return result;
}

/** Registers a turn about to run in this process, so `setRole` and task cancels can stop it. */
function registerRunningTurn(runtime: RuntimeContext, sessionId: string, signal: AbortSignal | undefined) {
  const entry = { controller: new AbortController(), reason: undefined as string | undefined };
  runtime.running.set(sessionId, entry);
  return {
    signal: signal ? AbortSignal.any([signal, entry.controller.signal]) : entry.controller.signal,
    reason: () => entry.reason,
    done: () => {
      if (runtime.running.get(sessionId) === entry) runtime.running.delete(sessionId);
    },
  };
}

/**
 * An enqueued turn once it holds the session's lease: finishes a decided suspension first, answers a
 * retried run id from the store, queues behind a pending decision, else prepares and runs the turn.
 */
async function runAdmitted(
  runtime: RuntimeContext,
  turns: SessionTurns,
  prepare: PrepareAgent,
  request: TurnRequest,
  lineage: Lineage,
  lease: HeldLease,
): Promise<TurnResult | { queued: Promise<TurnResult> }> {
  const { agent, session, chatContext } = request;
  const { store, options } = runtime;
  // A suspended turn whose approvals were all decided (by a process that died before it
  // resumed the turn) runs first: the decision is never lost.
  const state = await turns.recoverDecided(session, lease, lineage);
  // A turn sent again under its run id (a retried job) never runs twice.
  const again = await rerun(runtime, request, state, lease);
  if ("result" in again) return again.result;
  const waiting = await admitBehindDecisions(runtime, runtime.pendingQueue, request, state);
  if (waiting) return waiting;
  const { input, runId } = again;
  const role = sessionRole(runtime, agent, session, state);
  const prepared = prepare(agent, session, chatContext, role, request.context);
  if (isBackground(session)) await moveSubagent(store, runtime.publish, session.sessionId, "running");
  const stop = registerRunningTurn(runtime, session.sessionId, request.signal);
  const repair = emergencyReset(repairSession(state), input, prepared.systemPrompt, options.emergencyContextLimit);
  return runTurn(runtime, {
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
  })
    .finally(stop.done)
    .then((result) => settleAfterTurn(runtime, session, result));
}
