import type { RuntimeEvent, TurnResult } from "../contracts/agent-runtime.js";
import { PendingDecisionError } from "../errors/errors.js";
import type { PendingQueue } from "./pending-queue.js";
import { listPending } from "./pending-listing.js";
import type { RuntimeContext } from "./runtime-context.js";
import type { TurnRequest } from "./runtime-core.js";
import type { SessionState } from "./session-state.js";
import type { SessionTurns } from "./session-turns.js";

/** Hands a session's queued messages back once it has no decision pending (called after its turns end, and polled). */
export function checkQueue(context: RuntimeContext, queue: PendingQueue, turns: SessionTurns, sessionId: string): void {
  const first = queue.peek(sessionId);
  if (!first) return;
  context.states.read(first.session).then(
    (state) => {
      if (!isWaiting(state)) queue.drain(sessionId, (request, message) => turns.enqueue({ ...request, drained: message }));
    },
    (error: unknown) => context.report("queue_check_failed", error, first.session),
  );
}

/** Whether the session waits for a decision (an approval or question of its suspended turn, or an agent it waits on). */
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
  context: RuntimeContext,
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
  if (mode === "supersede") return undefined;
  // What a person decides: a call waiting on another agent stands for what that agent waits on.
  const pendingRequestIds = state.pending.some((p) => p.request.waitsOn !== undefined)
    ? (await listPending(context, { sessionId: session.sessionId })).map((p) => p.requestId)
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
    seq: context.nextSeq(),
    ts: Date.now(),
  } satisfies RuntimeEvent;
  request.onEvent?.(event);
  context.emit(event);
  return { queued: queue.add(session.sessionId, request) };
}
