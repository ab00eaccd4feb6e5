import type { RuntimeEvent, TurnResult } from "../../contracts/agent-runtime.js";
import type { ApprovalRequest } from "../../contracts/loop-result.js";
import type { QueuedRecord } from "../../contracts/session-store.js";
import { PendingDecisionError } from "../../errors/errors.js";
import { toJsonSchema } from "../../schema/to-json-schema.js";
import type { PendingQueue } from "./pending-queue.js";
import { listPending } from "../session/pending-listing.js";
import type { HeldLease } from "../session/session-lease.js";
import { approvalDecisionRecord } from "../records/approval-decision.js";
import { movesConversation, type TurnRequest } from "../records/turn-request.js";
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

/** Whether stored queued messages wait in the session (not started, or started by a process that died). */
export function hasStoredQueue(state: SessionState): boolean {
  return state.queued.length > 0 || state.openQueued !== undefined;
}

/** Where a message that waits behind a decision goes. */
export interface QueueTargets {
  /** Messages of other agents, waiting in this process. */
  pending: PendingQueue;
  /** Called once a message queued (stored, or waiting here): the session is watched from then on. */
  watch: (request: TurnRequest) => void;
}

/**
 * What a message does when the session waits for a decision (or older messages wait): `queue`
 * stores a host's message (a `QueuedRecord`, under the session's lease) and answers `queued` at
 * once, or keeps another agent's message waiting here (it resolves when its turn ran); a
 * `message_queued` event says so now. `reject` throws `PendingDecisionError`; `supersede` runs it
 * now (the turn's repair denies the pending requests as superseded; messages queued before it run
 * after it). `undefined`: run it now.
 */
export async function admitBehindDecisions(
  deps: QueuedMessagesDeps,
  targets: QueueTargets,
  request: TurnRequest,
  state: SessionState,
  lease: HeldLease,
): Promise<{ queued: Promise<TurnResult> } | undefined> {
  const { session } = request;
  const drained = request.drained;
  if (drained) {
    if (isWaiting(state)) {
      targets.watch(request);
      return { queued: targets.pending.requeue(drained) };
    }
    targets.pending.started(session.sessionId, drained);
    return undefined;
  }
  const behind = targets.pending.has(session.sessionId) || hasStoredQueue(state);
  if (!behind && !isWaiting(state)) return undefined;
  const mode = request.ifPending ?? "queue";
  if (mode === "supersede") {
    // The decisions waiting calls stand for are superseded too (their agents' turns get the denial).
    await supersedeWaits(deps, state, 0);
    return undefined;
  }
  // What a person decides: a call waiting on another agent stands for what that agent waits on.
  const pending: ApprovalRequest[] = state.pending.some((p) => p.request.waitsOn !== undefined)
    ? (await listPending(deps, { sessionId: session.sessionId })).map((p) => p.request)
    : state.pending.map((p) => p.request);
  const pendingRequestIds = pending.map((p) => p.requestId);
  // An edit or a regeneration moves the conversation: it cannot wait behind a decision.
  if (mode === "reject" || movesConversation(request))
    throw new PendingDecisionError(session.sessionId, pendingRequestIds);
  const stored = request.durable === true ? await storeQueued(deps, request, lease) : undefined;
  const event = {
    type: "message_queued",
    sessionId: session.sessionId,
    pendingRequestIds,
    ...(stored !== undefined && { queuedMessageId: stored.id }),
    depth: 0,
    parentId: null,
    agentId: session.agentId,
    runId: stored?.runId ?? request.runId ?? "",
    seq: deps.events.nextSeq(),
    ts: Date.now(),
  } satisfies RuntimeEvent;
  request.onEvent?.(event);
  deps.events.emit(event);
  targets.watch(request);
  if (stored === undefined) return { queued: targets.pending.add(session.sessionId, request) };
  return { queued: Promise.resolve(queuedResult(request, stored, pending)) };
}

/**
 * Stores a host's message as queued (fenced by the session's lease; a retried send under the same
 * `runId` stores nothing twice) and signals the session, so that a process waiting on it looks.
 */
async function storeQueued(deps: QueuedMessagesDeps, request: TurnRequest, lease: HeldLease): Promise<QueuedRecord> {
  const { session } = request;
  const runId = request.runId ?? globalThis.crypto.randomUUID();
  const record: Omit<QueuedRecord, "seq" | "at"> = {
    id: `queued:${runId}`,
    frame: null,
    kind: "queued",
    runId,
    message: request.input!,
    chatContext: request.chatContext,
  };
  if (request.messageId !== undefined) record.messageId = request.messageId;
  if (request.context !== undefined) record.context = request.context;
  if (request.outputSchema !== undefined) record.outputSchema = toJsonSchema(request.outputSchema);
  const [stored] = await deps.store.append(session.sessionId, [record], { leaseToken: lease.token });
  deps.store.hintSession(session.sessionId);
  return (stored as QueuedRecord | undefined) ?? { ...record, seq: 0, at: "" };
}

/** The result `send` resolves with for a message stored behind a decision. */
function queuedResult(request: TurnRequest, stored: QueuedRecord, pending: ApprovalRequest[]): TurnResult {
  return {
    status: "queued",
    text: "",
    messages: [],
    executionTree: { version: 1, nodes: [] },
    usage: { inputTokens: 0, outputTokens: 0, llmCalls: 0, toolCalls: 0 },
    pendingApprovals: pending,
    sessionId: request.session.sessionId,
    agentId: request.session.agentId,
    created: request.created,
    runId: stored.runId,
    queuedMessageId: stored.id,
  };
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
