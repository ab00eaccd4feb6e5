import { SessionBusyError } from "../../errors/errors.js";
import type { SendInput, RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import type { LoopResult } from "../../contracts/loop-result.js";
import type { SessionSummary, SteerRecord } from "../../contracts/session-store.js";
import type { UserMessage } from "../../contracts/message.js";
import type { SessionState } from "../records/session-state.js";
import { movesConversation, type TurnRequest, type TurnStarter } from "../records/turn-request.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RunningTurnInfo, RunningTurns } from "../session/running-turns.js";
import { leaseTaken } from "../session/session-lease.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import { storedTurnResult } from "../session/stored-turn-result.js";
import type { EventPublisher } from "../events/event-publisher.js";

/** What sending to a busy session, and stopping turns, need. */
export interface SteeringDeps {
  store: GuardedSessionStore;
  states: SessionStateCache;
  running: RunningTurns;
  /** Where the message goes once decided (the turn queue). */
  turns: TurnStarter;
  events: Pick<EventPublisher, "nextSeq">;
}

/** The turn running on a session: in this process, or (as its log and lease say) in another. */
export interface BusyTurn extends RunningTurnInfo {
  local: boolean;
}

/**
 * The turn running on `session`, if any: the one this process runs, else the turn the log shows
 * open while a runtime holds (or waits for) the session's lease. An open turn whose lease nobody
 * holds is a crashed one: not running (the next turn repairs it).
 */
export async function busyTurn(deps: Readonly<SteeringDeps>, session: SessionSummary): Promise<BusyTurn | undefined> {
  const local = deps.running.find(session.sessionId);
  if (local) return { ...local, local: true };
  const state = await deps.states.read(session);
  if (state.openTurn === undefined) return undefined;
  // Run by this process again meanwhile: its own registry knows it now.
  const again = deps.running.find(session.sessionId);
  if (again) return { ...again, local: true };
  if (!(await leaseTaken(deps.store, session.sessionId))) return undefined;
  return { runId: state.openTurn, chainRunId: state.chainRunId, local: false };
}

/**
 * `send` with `ifBusy` other than `"queue"`: with no turn running, queues the message as usual;
 * else rejects it (`"reject"`), stops the running turn and queues the message (`"interrupt"`), or
 * stores it for the running turn to read (`"steer"`). Returns the message's outcome.
 */
export async function admitWhileBusy(
  deps: Readonly<SteeringDeps>,
  request: TurnRequest,
  mode: NonNullable<SendInput["ifBusy"]>,
): Promise<Promise<TurnResult>> {
  const running = mode === "queue" ? undefined : await busyTurn(deps, request.session);
  if (!running) return deps.turns.enqueue(request);
  const { sessionId } = request.session;
  if (mode === "reject") throw new SessionBusyError(sessionId, undefined, { runId: running.runId });
  if (mode === "interrupt") {
    // Queued first: it is the session's next turn once the stopped one has ended.
    const turn = deps.turns.enqueue(request);
    await stopRunning(deps, request.session, running, "interrupted", false);
    return turn;
  }
  // An edit or a regeneration moves the conversation itself: it cannot join a running turn, so it
  // runs once that turn has ended (as with "queue").
  const input = request.input;
  if (input === undefined || movesConversation(request)) return deps.turns.enqueue(request);
  return steer(deps, { ...request, input }, running);
}

/**
 * Stores the message as a `steer` record and tells the running turn (a `"session"` signal); the
 * message then waits in the session's queue as a follow-up, which resolves with the outcome of
 * the turn that read it, or, when none did, runs it. A stream of the message follows the running
 * turn's events when it runs here.
 */
async function steer(
  deps: Readonly<SteeringDeps>,
  request: TurnRequest & { input: UserMessage },
  running: BusyTurn,
): Promise<Promise<TurnResult>> {
  const { store } = deps;
  const { sessionId } = request.session;
  // The host's run id makes a retried steer the same record (append is idempotent by id).
  const runId = request.runId ?? `steer-${globalThis.crypto.randomUUID()}`;
  const id = `steer:${runId}`;
  const record: Omit<SteerRecord, "seq" | "at"> = {
    id,
    frame: null,
    kind: "steer",
    message: request.input,
    messageId: `${id}:message`,
    runId,
  };
  await store.append(sessionId, [record]);
  store.hintSession(sessionId);
  const onEvent = request.onEvent;
  let done: RuntimeEvent | undefined;
  if (onEvent && running.local)
    void deps.running.follow(sessionId, (event) => (event.type === "done" ? (done = event) : onEvent(event)));
  const outcome = deps.turns.enqueue({ ...request, runId, steerOf: id });
  if (!onEvent) return outcome;
  return outcome.then((result) => {
    // Read by the running turn: the stream ends with that turn's `done`.
    if (result.runId !== runId) onEvent(done ?? doneEvent(result, request.session, deps.events.nextSeq()));
    return result;
  });
}

/** A `done` event of a turn read from the store (it ran in another process). */
function doneEvent(result: TurnResult, session: SessionSummary, seq: number): RuntimeEvent {
  return {
    type: "done",
    // The turn that read the message ran (a queued outcome is the message's own, never reported here).
    result: result as TurnResult & LoopResult,
    depth: 0,
    parentId: null,
    sessionId: session.sessionId,
    agentId: session.agentId,
    runId: result.runId,
    seq,
    ts: Date.now(),
  };
}

/**
 * A steered message's follow-up, once it holds the session: the stored outcome of the turn that
 * read the message (the steering `send` resolves with it), else `undefined` (it runs as its own turn).
 */
export async function steeredOutcome(
  store: GuardedSessionStore,
  request: TurnRequest,
  state: SessionState,
): Promise<TurnResult | undefined> {
  const steerOf = request.steerOf;
  if (steerOf === undefined) return undefined;
  const takenBy = state.steers.get(steerOf)?.takenBy;
  if (takenBy === undefined || takenBy === request.runId || takenBy === "") return undefined;
  return storedTurnResult(store, request.session, takenBy, request.created);
}

/** The steered messages of `state` no turn took: each runs as its own turn unless one is on its way. */
export function unreadSteers(state: SessionState): SteerRecord[] {
  const unread: SteerRecord[] = [];
  for (const { record, takenBy } of state.steers.values()) if (takenBy === undefined) unread.push(record);
  return unread;
}

/**
 * Stops `running`: here, through its registration (with `wait`, resolves once it ended); in
 * another process, by storing a `stop` record for it and sending a `"stop"` signal (resolves once
 * stored). Resolves `false` when it was not running here any more.
 */
export async function stopRunning(
  deps: Readonly<Pick<SteeringDeps, "store" | "running">>,
  session: SessionSummary,
  running: BusyTurn,
  reason: string,
  wait: boolean,
): Promise<boolean> {
  const { sessionId } = session;
  if (running.local) {
    const ended = deps.running.stop(sessionId, reason, running.runId);
    if (!ended) return false;
    if (wait) await ended;
    return true;
  }
  const id = `stop:${running.runId}:${globalThis.crypto.randomUUID()}`;
  await deps.store.append(sessionId, [{ id, frame: null, kind: "stop", runId: running.runId, reason }]);
  await deps.store.notify({ topic: "stop", key: sessionId, data: { runId: running.runId } }).catch(() => undefined);
  return true;
}
