import { leaseTaken } from "../session/session-lease.js";
import { matchesScopeFilter, scopeFilterOf } from "../../internal/scope-filter.js";
import type { HistoryRecord, SessionSummary } from "../../contracts/session-store.js";
import type { TurnResult } from "../../contracts/agent-runtime.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import { MAX_DELEGATION_DEPTH } from "../records/delegation-limits.js";
import { newLineage } from "../records/lineage.js";
import type { RuntimeLimits } from "../records/runtime-limits.js";
import type { RuntimeTurnRecord, SessionState } from "../records/session-state.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { SessionGate } from "../session/session-gate.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import { turnResultOf } from "../session/stored-turn-result.js";
import { listPending, surfacedRequests, type ListedRequest } from "../session/pending-listing.js";
import type { PendingQuery } from "../../contracts/agent-runtime.js";
import { isLeasableSessionStore } from "../../sessions/session-store.js";
import type { ResumableTurns } from "../queue/turn-lifecycle.js";

/** What recovering a chain needs. */
export interface ChainRecoveryDeps {
  store: GuardedSessionStore;
  states: SessionStateCache;
  gate: SessionGate;
  registry: AgentRegistry;
  limits: RuntimeLimits;
}

type Deps = Readonly<ChainRecoveryDeps>;

/** Longest chain followed upward (chains are bounded by `maxDelegationDepth` anyway). */
const MAX_CHAIN = MAX_DELEGATION_DEPTH;

/** The top of a delegation chain, and whether a step of the chain was left half done. */
export interface ChainTop {
  top: SessionSummary;
  topState: SessionState;
  /** Something between the session and the top waits for a step nobody is taking (see {@link chainTop}). */
  broken: boolean;
}

/**
 * Follows `session`'s chain up to its top: from a session to the caller whose sync
 * `agents_message` call waited on it (its turn's `waiter`), while that call belongs to the
 * caller's current chain (pending, or answered within it). The chain is broken when a session
 * of it below the top is not waiting for a decision itself (its turn ended, or crashed, or its
 * decisions were made and it never resumed), or the top is suspended with nothing pending or was
 * left open: a crash between two steps. Reads only (no lease).
 */
export async function chainTop(deps: Deps, session: SessionSummary, state: SessionState): Promise<ChainTop> {
  let current = session;
  let currentState = state;
  let broken = false;
  for (let hop = 0; hop < MAX_CHAIN && currentState.waiter !== undefined; hop++) {
    const waiter = currentState.waiter;
    const caller = await deps.store.getSession(waiter.sessionId);
    if (!caller) break;
    const callerState = await deps.states.read(caller);
    const entry = callerState.approvals.get(waiter.requestId);
    if (!entry) break;
    // The call is the caller's current chain's: still pending, or answered within it (the caller
    // may have resumed and ended since; then what is above it is looked at all the same).
    if (entry.decision !== undefined && !callerState.decisions.has(entry.request.request.toolCallId)) break;
    // A caller suspended on the call waits for this session: it must be waiting for something itself.
    // (A caller whose turn runs, or was left open, is not judged: it may be running now.)
    const waiting = callerState.suspended !== undefined && entry.decision === undefined;
    if (waiting && !(currentState.suspended !== undefined && currentState.pending.length > 0)) broken = true;
    current = caller;
    currentState = callerState;
  }
  if (currentState.suspended !== undefined && currentState.pending.length === 0) broken = true;
  return { top: current, topState: currentState, broken };
}

/**
 * Whether the chain `found` describes needs recovering: it is broken, or its top (another session
 * than the one touched) was left open by a process that died (nobody holds its lease).
 */
export async function needsRecovery(deps: Deps, found: ChainTop, session: SessionSummary): Promise<boolean> {
  if (found.broken) return true;
  if (found.top.sessionId === session.sessionId || found.topState.openTurn === undefined) return false;
  return !(await leaseHeldElsewhere(deps.store, found.top.sessionId));
}

/**
 * Finishes what a crash left half done in the chain below `top`, from the top down, in the
 * direction calls are made (each session's lease in turn, as a new message to the top would):
 * a decided turn that never resumed is resumed, a turn left open continued, an ended turn's
 * answer handed up and its caller resumed. Exactly once: each step is the ordinary
 * compare-and-set under the session's lease.
 */
export async function recoverTop(deps: Deps, turns: ResumableTurns, top: SessionSummary): Promise<void> {
  const agent = deps.registry.get(top.agentId);
  if (!agent) return;
  await deps.gate.withSession(top.sessionId, async (lease) => {
    await turns.recoverDecided(top, lease, newLineage(deps.limits, agent));
  });
  deps.store.hintSession(top.sessionId);
}

/**
 * The outcome of the conversation at the top of `result`'s chain, after finishing what a crash
 * left half done in it: what a decision deep in a chain reports (the top's turn, never a
 * delegate's). A suspended top reports the requests it waits on as a person decides them.
 */
export async function outcomeAtTop(deps: Deps, turns: ResumableTurns, result: TurnResult): Promise<TurnResult> {
  const session = await deps.store.getSession(result.sessionId);
  if (!session) return result;
  const found = await chainTop(deps, session, await deps.states.read(session));
  const { top } = found;
  // A top left open is waited for (its lease): running elsewhere, its outcome is the answer; dead, it is continued.
  const broken = found.broken || (top.sessionId !== session.sessionId && found.topState.openTurn !== undefined);
  if (broken) await recoverTop(deps, turns, top);
  if (top.sessionId === session.sessionId && !broken) return result;
  const state = await deps.states.read(top);
  const first = state.chainRunId;
  if (first === undefined) return result;
  const records = await deps.store.load(top.sessionId);
  const outcome = turnResultOf(records, top, lastRunOf(records, first), false);
  if (!outcome) return result;
  if (outcome.status === "suspended" && outcome.pendingApprovals) {
    const at = { sessionId: top.sessionId, agentId: top.agentId };
    const surfaced = await surfacedRequests(deps, outcome.pendingApprovals, at);
    outcome.pendingApprovals = surfaced.map((s) => s.request);
  }
  return outcome;
}

/**
 * The latest turn of the chain that starts with `runId`: it, the turns resuming it, and the
 * continuations `<runId>:retry-<n>` of those whose process died.
 */
export function lastRunOf(records: readonly HistoryRecord[], runId: string): string {
  const next = new Map<string, string>();
  for (const record of records) {
    if (record.kind !== "turn") continue;
    const turn = record as RuntimeTurnRecord;
    if (turn.phase !== "start") continue;
    if (turn.resumeOf !== undefined) next.set(turn.resumeOf, turn.runId);
    // The latest continuation of a turn that died follows it (a later one replaces an earlier one).
    const retry = /^(.*):retry-\d+$/.exec(turn.runId);
    if (retry) next.set(retry[1]!, turn.runId);
  }
  let last = runId;
  for (let i = 0; i < MAX_CHAIN * 4 && next.has(last) && next.get(last) !== last; i++) last = next.get(last)!;
  return last;
}

/**
 * Pending requests as `listPending` lists them, after finishing the chains a crash left half done
 * that the listing comes across: a call waiting on a session that waits for nothing (its turn
 * ended, or crashed, or was decided and never resumed), or, for one session, that session
 * suspended with nothing pending. A session some runtime holds now (its turn runs) is left to it.
 */
export async function listPendingRecovered(
  deps: Deps,
  turns: ResumableTurns,
  query: PendingQuery,
): Promise<ListedRequest[]> {
  const stranded = new Set<string>();
  const listed = await listPending(deps, query, 0, (sessionId) => stranded.add(sessionId));
  if (query.sessionId !== undefined && listed.length === 0) stranded.add(query.sessionId);
  const tops = new Map<string, SessionSummary>();
  // Only sessions within the listing's tenant guard are touched (another tenant's is not found).
  const filter = scopeFilterOf("listPending", query, { allowNull: false });
  for (const sessionId of stranded) {
    const session = await deps.store.getSession(sessionId);
    if (!session || !matchesScopeFilter(session.scope, filter) || (await leaseHeldElsewhere(deps.store, sessionId)))
      continue;
    const state = await deps.states.read(session);
    const found = await chainTop(deps, session, state);
    // Open with nobody holding its lease: its process died (it is continued from the top). A store
    // without leases cannot tell a dead turn from one running here: its next message repairs it.
    const dead = state.openTurn !== undefined && isLeasableSessionStore(deps.store);
    if (found.broken || dead) tops.set(found.top.sessionId, found.top);
  }
  if (tops.size === 0) return listed;
  for (const top of tops.values()) await recoverTop(deps, turns, top);
  return listPending(deps, query);
}

/** Whether another holder has the session's lease now (a turn of it runs somewhere); `false` for stores without leases. */
async function leaseHeldElsewhere(store: GuardedSessionStore, sessionId: string): Promise<boolean> {
  return isLeasableSessionStore(store) && (await leaseTaken(store, sessionId));
}
