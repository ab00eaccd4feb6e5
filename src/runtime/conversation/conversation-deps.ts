import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { SessionSummary } from "../../contracts/session-store.js";
import { InvalidArgumentError, PendingDecisionError, SessionNotFoundError } from "../../errors/errors.js";
import { matchesScopeFilter, tenantGuardFilter } from "../../internal/scope-filter.js";
import { newLineage } from "../records/lineage.js";
import type { RuntimeLimits } from "../records/runtime-limits.js";
import type { SessionState } from "../records/session-state.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import { listPending } from "../session/pending-listing.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { SessionGate } from "../session/session-gate.js";
import type { HeldLease } from "../session/session-lease.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import { agentOf } from "../agents/agent-lookups.js";
import type { ResumableTurns } from "../queue/turn-lifecycle.js";

/** What rewinding and forking a conversation need. */
export interface ConversationDeps {
  status: RuntimeStatus;
  registry: AgentRegistry;
  limits: RuntimeLimits;
  store: GuardedSessionStore;
  states: SessionStateCache;
  gate: SessionGate;
  /** Finishes a suspension whose decisions were all made before the conversation is changed. */
  turns: Pick<ResumableTurns, "recoverDecided">;
}

/**
 * The session `sessionId` names, when it exists and is inside the tenant guard of `options`;
 * else `SessionNotFoundError` (the same for both). A malformed call throws `InvalidArgumentError`.
 */
export async function guardedSession(
  deps: Readonly<ConversationDeps>,
  operation: string,
  sessionId: unknown,
  options: unknown,
): Promise<SessionSummary> {
  deps.status.checkOpen();
  if (typeof sessionId !== "string" || sessionId === "")
    throw new InvalidArgumentError(`${operation}: sessionId must be a non-empty string`);
  if (options !== undefined && (typeof options !== "object" || options === null))
    throw new InvalidArgumentError(`${operation}: options must be an object`);
  const { scope, scopePrefix } = (options ?? {}) as { scope?: unknown; scopePrefix?: unknown };
  const guard = scope === undefined && scopePrefix === undefined ? undefined : { scope, scopePrefix };
  const filter = tenantGuardFilter(operation, guard);
  const session = await deps.store.getSession(sessionId);
  if (!session || !matchesScopeFilter(session.scope, filter))
    throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
  return session;
}

/**
 * The session's state once nothing is left half done (under its lease): a suspended turn whose
 * decisions were all made is resumed first. A decision still pending throws `PendingDecisionError`
 * naming the requests a person decides.
 */
export async function settledState(
  deps: Readonly<ConversationDeps>,
  session: SessionSummary,
  lease: HeldLease,
): Promise<SessionState> {
  const lineage = newLineage(deps.limits, agentOf(deps.registry, session.agentId));
  const state = await deps.turns.recoverDecided(session, lease, lineage);
  if (!state.suspended) return state;
  // What a person decides: a call waiting on another agent stands for what that agent waits on.
  const requestIds = state.pending.some((p) => p.request.waitsOn !== undefined)
    ? (await listPending(deps, { sessionId: session.sessionId })).map((p) => p.requestId)
    : state.pending.map((p) => p.request.requestId);
  throw new PendingDecisionError(session.sessionId, requestIds);
}
