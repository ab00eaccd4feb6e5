import type { RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import { PendingDecisionError } from "../../errors/errors.js";
import type { PendingQueue } from "./pending-queue.js";
import { listPending } from "../session/pending-listing.js";
import { approvalDecisionRecord } from "../records/approval-decision.js";
import type { TurnRequest } from "../records/turn-request.js";
import type { SessionState } from "../records/session-state.js";
import { MAX_DELEGATION_DEPTH } from "../records/delegation-limits.js";
import type { TurnQueueDeps } from "./turn-queue-deps.js";

/** What queuing behind a decision needs of the queue's deps. */
type QueuedMessagesDeps = Readonly<Pick<TurnQueueDeps, "store" | "states" | "gate" | "events" | "approvalSessions">>;

/**
 * Whether the session waits for a decision (an approval or question of its suspended turn, or an agent it waits on).
 */
export function isWaiting(state: SessionState): boolean {
  return state.suspended !== undefined && state.pending.length > 0;
}

/**
 * What a message does when the session waits for a decision (or older messages wait): `queue`
 * waits (resolves when its turn ran; a `message_queued` event says so now); `reject` throws
 * `PendingDecisionError`; `supersede` runs it now (the turn's repair denies the pending requests
 * as superseded). `undefined`: run it now.
 */
export async function admitBehindDecisions(
  deps: QueuedMessagesDeps,
  queue: PendingQueue,
  request: TurnRequest,
  state: SessionState,
): Promise<{ queued: Promise<TurnResult> } | undefined> {
  const { session } = request;
  const drained = request.drained;
  if (drained) {
    if (isWaiting(state)) return { queued: queue.requeue(session.sessionId, drained) };
    queue.started(session.sessionId, drained);
    return undefined;
  }
  const behind = queue.has(session.sessionId);
  if (!behind && !isWaiting(state)) return undefined;
  const mode = request.ifPending ?? "queue";
  if (mode === "supersede") {
    // The decisions waiting calls stand for are superseded too (their agents' turns get the denial).
    await supersedeWaits(deps, state, 0);
    return undefined;
  }
  // What a person decides: a call waiting on another agent stands for what that agent waits on.
  const pendingRequestIds = state.pending.some((p) => p.request.waitsOn !== undefined)
    ? (await listPending(deps, { sessionId: session.sessionId })).map((p) => p.requestId)
    : state.pending.map((p) => p.request.requestId);
  if (mode === "reject") throw new PendingDecisionError(session.sessionId, pendingRequestIds);
  const event = {
    type: "message_queued",
    sessionId: session.sessionId,
    pendingRequestIds,
    depth: 0,
    parentId: null,
    agentId: session.agentId,
    runId: request.runId ?? "",
    seq: deps.events.nextSeq(),
    ts: Date.now(),
  } satisfies RuntimeEvent;
  request.onEvent?.(event);
  deps.events.emit(event);
  return { queued: queue.add(session.sessionId, request) };
}

/** Deepest chain a supersede follows (chains are bounded by `maxDelegationDepth` anyway). */
const MAX_CHAIN = MAX_DELEGATION_DEPTH;

/**
 * Denies, as superseded, what the waiting calls of `state` wait for, down each chain (each session
 * under its lease, in the direction calls are made): a superseded conversation leaves no decision
 * open that could still act for it. The agents that asked read the denial when their sessions are
 * next used; a late decision on such a request rejects with `ApprovalSupersededError`.
 */
async function supersedeWaits(deps: QueuedMessagesDeps, state: SessionState, depth: number): Promise<void> {
  if (depth > MAX_CHAIN) return;
  for (const pending of state.pending) {
    const waitsOn = pending.request.waitsOn;
    if (waitsOn === undefined) continue;
    const session = await deps.store.getSession(waitsOn.sessionId);
    if (!session) continue;
    await deps.gate.withSession(session.sessionId, async (lease) => {
      const inner = await deps.states.read(session);
      if (!inner.suspended || inner.pending.length === 0) return;
      await supersedeWaits(deps, inner, depth + 1);
      const denials = inner.pending.map((p) =>
        approvalDecisionRecord(p.request, p.frame, { approved: false, reason: "superseded" }),
      );
      await deps.store.append(session.sessionId, denials, { leaseToken: lease.token });
      for (const p of inner.pending) {
        deps.approvalSessions.delete(p.request.requestId);
        const { requestId, depth: at, parentId } = p.request;
        deps.events.publish(session, {
          type: "approval_resolved",
          requestId,
          approved: false,
          reason: "superseded",
          depth: at,
          parentId,
        });
      }
    });
  }
}
