import type { ApprovalRecord, HistoryRecord, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import { approvalDecisionRecord } from "../records/approval-decision.js";
import { delegationAnswer } from "../records/delegation-answer.js";
import { MAX_DELEGATION_DEPTH } from "../records/delegation-limits.js";
import { newLineage, type Lineage } from "../records/lineage.js";
import type { RuntimeTurnRecord, SessionState, TurnWaiter } from "../records/session-state.js";
import type { HeldLease } from "../session/session-lease.js";
import { turnResultOf } from "../session/stored-turn-result.js";
import { agentOf } from "../agents/agent-lookups.js";
import type { ResumableTurns, WaitRecovery } from "../queue/turn-lifecycle.js";
import {
  chainTop,
  lastRunOf,
  listPendingRecovered,
  needsRecovery,
  outcomeAtTop,
  recoverTop,
  type ChainRecoveryDeps,
} from "./chain-recovery.js";
import type { ListedRequest } from "../session/pending-listing.js";
import type { PendingQuery } from "../../contracts/agent-runtime.js";

/**
 * What delegated waits need: what recovering a chain needs (the turn queue itself comes with each
 * call: it is built after them).
 */
export type DelegatedWaitsDeps = ChainRecoveryDeps;

type Deps = Readonly<DelegatedWaitsDeps>;

/**
 * A sync `agents_message` whose target suspended waits under a request of its own (`waitsOn` set):
 * the caller's turn is suspended too. When the target's turn ends (after its decision), the
 * waiting call gets the target's answer as that request's decision, and the caller's turn resumes,
 * and so on up to the conversation that started the chain. Each step is the ordinary
 * decide-then-resume path (compare-and-set on the decision record, the session's lease), so it is
 * exactly once, from any process; a step lost to a crash is redone by the next runtime that
 * touches any session of the chain (see {@link recoverWaits}).
 */

/** Longest chain followed (a guard: chains are bounded by `maxDelegationDepth` anyway). */
const MAX_CHAIN = MAX_DELEGATION_DEPTH;

/** The decision id of a waiting call's answer: the same in every process, so two deliveries store one. */
const answerDecisionId = (requestId: string) => `${requestId}:answer`;

/**
 * Hands `result` (the end of a turn chain that `waiter` waits on) to the waiting call and resumes
 * its turn; repeats up the chain while the resumed turn ends and is itself waited on. Runs under
 * each waiting session's lease in turn, never holding two. Returns the outermost turn resumed (or
 * `result` when nobody waited any more: the call got its answer at once, or was superseded).
 */
async function deliverUp(
  deps: Deps,
  turns: ResumableTurns,
  waiter: TurnWaiter,
  result: TurnResult,
): Promise<TurnResult> {
  let current = result;
  let next: TurnWaiter | undefined = waiter;
  for (let hop = 0; next !== undefined && hop < MAX_CHAIN; hop++) {
    const step = await answerWaiter(deps, turns, next, current);
    if (!step) return current;
    current = step.result;
    next = current.status === "suspended" ? undefined : step.waiter;
  }
  return current;
}

/** Answers one waiting call with `result` and resumes its turn; `undefined` when the call no longer waits. */
async function answerWaiter(
  deps: Deps,
  turns: ResumableTurns,
  waiter: TurnWaiter,
  result: TurnResult,
): Promise<{ result: TurnResult; waiter: TurnWaiter | undefined } | undefined> {
  const session = await deps.store.getSession(waiter.sessionId);
  if (!session) return undefined;
  const agent = agentOf(deps.registry, session.agentId);
  return deps.gate.withSession(session.sessionId, async (lease) => {
    const state = await deps.states.read(session);
    const entry = state.approvals.get(waiter.requestId);
    if (!entry || entry.decision || !state.suspended || !state.pending.includes(entry.request)) return undefined;
    const stored = await storeAnswer(deps, session, lease, entry.request, result);
    if (!stored) return undefined;
    // Other calls of the batch still wait: the turn stays suspended (their answers resume it).
    const after = await deps.states.read(session);
    if (!after.suspended || after.pending.length > 0) return undefined;
    const resumed = await turns.resumeSuspended(
      session,
      after,
      after.suspended,
      lease,
      newLineage(deps.limits, agent),
      {},
    );
    return { result: resumed, waiter: state.waiter };
  });
}

/** Stores the answer of a waiting call (compare-and-set by its fixed decision id); whether it is the stored one. */
async function storeAnswer(
  deps: Deps,
  session: SessionSummary,
  lease: HeldLease,
  request: ApprovalRecord,
  result: TurnResult,
): Promise<boolean> {
  const answer = delegationAnswer(
    result,
    { agentId: result.agentId, sessionId: result.sessionId, resumed: true },
    undefined,
  );
  const decisionId = answerDecisionId(request.request.requestId);
  const record = approvalDecisionRecord(request.request, request.frame, {
    approved: true,
    decisionId,
    answer: answer.value,
    answerIsError: answer.isError,
  });
  const [stored] = await deps.store.append(session.sessionId, [record], { leaseToken: lease.token });
  const own = (stored as { decisionId?: string } | undefined)?.decisionId === decisionId;
  if (own) deps.store.hintSession(session.sessionId);
  return own;
}

/**
 * Before a suspended session is used (a new message, a decision): answers its waiting calls whose
 * targets' chains ended while nobody delivered (the process died between two steps), after first
 * recovering those targets the same way (their lease, taken in the direction calls are made).
 * Returns whether an answer was stored (the caller then reads the state again).
 */
async function recoverWaits(
  deps: Deps,
  turns: ResumableTurns,
  session: SessionSummary,
  lease: HeldLease,
  state: SessionState,
  depth: number,
): Promise<boolean> {
  if (!state.suspended || depth > MAX_CHAIN) return false;
  let stored = false;
  for (const pending of state.pending) {
    const waitsOn = pending.request.waitsOn;
    if (waitsOn === undefined) continue;
    const ended = await waitedChainEnd(deps, turns, waitsOn.sessionId, waitsOn.runId, depth + 1);
    if (ended && (await storeAnswer(deps, session, lease, pending, ended))) stored = true;
  }
  return stored;
}

/**
 * The outcome of the chain that started with `runId` in `sessionId`, once it ended (not
 * suspended); recovers the session first. A turn of the chain whose process died mid-turn is
 * continued (its stored results reused, a call without one reported to the model as "may or may
 * not have taken effect"), as a retried decision would.
 */
async function waitedChainEnd(
  deps: Deps,
  turns: ResumableTurns,
  sessionId: string,
  runId: string,
  depth: number,
): Promise<TurnResult | undefined> {
  const session = await deps.store.getSession(sessionId);
  if (!session) return undefined;
  const agent = deps.registry.get(session.agentId);
  if (!agent) return undefined;
  const look = () =>
    deps.gate.withSession(sessionId, async (lease) => {
      const lineage: Lineage = newLineage(deps.limits, agent);
      const state = await turns.recoverDecided(session, lease, lineage, depth);
      const records = await deps.store.load(sessionId);
      const open = state.openTurn !== undefined && state.chainRunId === runId ? state.openTurn : undefined;
      return { ended: chainEnd(records, session, runId), open, state };
    });
  const first = await look();
  if (first.ended || first.open === undefined) return first.ended;
  // Continued in the session's own order (outside its lease, which `enqueue` takes itself).
  const open = first.open;
  await turns.enqueue({
    agent,
    session,
    created: false,
    input: { role: "user", content: "" },
    chatContext: first.state.chatContexts.get(open) ?? { kind: "thread" },
    ...(first.state.hostContexts.get(open) !== undefined && { context: first.state.hostContexts.get(open)! }),
    chain: [],
    runId: open.replace(/:retry-\d+$/, ""),
    continueOnly: true,
  });
  return (await look()).ended;
}

/**
 * The end of the chain of turns that starts with `runId` (it, the turns resuming it, and the
 * continuations `<runId>:retry-<n>` of those whose process died), when it ended other than suspended.
 */
function chainEnd(records: readonly HistoryRecord[], session: SessionSummary, runId: string): TurnResult | undefined {
  const last = lastRunOf(records, runId);
  const end = records.findLast(
    (r) => r.kind === "turn" && (r as RuntimeTurnRecord).runId === last && (r as RuntimeTurnRecord).phase === "end",
  ) as RuntimeTurnRecord | undefined;
  if (end === undefined || end.status === "suspended") return undefined;
  return turnResultOf(records, session, last, false);
}

/** The result a decision's resumed turn reports, delivered up its chain when the chain ended and was waited on. */
async function answerUp(
  deps: Deps,
  turns: ResumableTurns,
  waiter: TurnWaiter | undefined,
  result: TurnResult,
): Promise<TurnResult> {
  if (waiter === undefined || result.status === "suspended") return result;
  return deliverUp(deps, turns, waiter, result);
}

/**
 * Delegated waits of one runtime: recovering a suspended session's waiting calls (the queue's
 * {@link WaitRecovery}) and delivering a chain's end up to whoever waits on it (decisions).
 */
export class DelegatedWaits implements WaitRecovery {
  constructor(private readonly deps: Deps) {}

  /** See {@link recoverWaits}. */
  recover(
    turns: ResumableTurns,
    session: SessionSummary,
    lease: HeldLease,
    state: SessionState,
    depth: number,
  ): Promise<boolean> {
    return recoverWaits(this.deps, turns, session, lease, state, depth);
  }

  /**
   * The result a decision's resumed turn reports, delivered up its chain when the chain ended and
   * was waited on: the outcome of the conversation at the chain's top (see `outcomeAtTop`).
   */
  async answerUp(turns: ResumableTurns, waiter: TurnWaiter | undefined, result: TurnResult): Promise<TurnResult> {
    const delivered = await answerUp(this.deps, turns, waiter, result);
    return waiter === undefined ? delivered : outcomeAtTop(this.deps, turns, delivered);
  }

  /** The outcome at the top of `result`'s chain, after finishing what a crash left half done in it. */
  outcomeAtTop(turns: ResumableTurns, result: TurnResult): Promise<TurnResult> {
    return outcomeAtTop(this.deps, turns, result);
  }

  /** See {@link WaitRecovery.brokenChain}. */
  async brokenChain(session: SessionSummary, state: SessionState): Promise<SessionSummary | undefined> {
    if (state.waiter === undefined) return undefined;
    const found = await chainTop(this.deps, session, state);
    if (found.top.sessionId === session.sessionId) return undefined;
    return (await needsRecovery(this.deps, found, session)) ? found.top : undefined;
  }

  /** Pending requests, after finishing the chains a crash broke that the listing comes across (see `listPendingRecovered`). */
  listPending(turns: ResumableTurns, query: PendingQuery): Promise<ListedRequest[]> {
    return listPendingRecovered(this.deps, turns, query);
  }

  /** Finishes the half-done steps of the chain `session` is part of (from its top), if a crash broke it. */
  async recoverAbove(turns: ResumableTurns, session: SessionSummary): Promise<void> {
    const top = await this.brokenChain(session, await this.deps.states.read(session));
    if (top !== undefined) await recoverTop(this.deps, turns, top);
  }

  /** See {@link WaitRecovery.recoverTop}. */
  recoverTop(turns: ResumableTurns, top: SessionSummary): Promise<void> {
    return recoverTop(this.deps, turns, top);
  }
}
