import type { AgentRegistry } from "../../contracts/agent-registry.js";
import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { RoleLookup } from "../../modes/role-lookup.js";
import type { GuardedSessionStore } from "../session/guarded-session-store.js";
import type { RunningTurns } from "../session/running-turns.js";
import type { RuntimeStatus } from "../session/runtime-status.js";
import type { SessionGate } from "../session/session-gate.js";
import type { SessionStateCache } from "../session/session-state-cache.js";
import type { EventPublisher } from "../events/event-publisher.js";
import { agentOf, sessionRole } from "../agents/agent-lookups.js";

/** What switching a session's role needs. */
export interface SetRoleDeps {
  status: RuntimeStatus;
  registry: AgentRegistry;
  roleOf: RoleLookup;
  store: GuardedSessionStore;
  states: SessionStateCache;
  gate: SessionGate;
  running: RunningTurns;
  events: Pick<EventPublisher, "publish">;
}

/**
 * `setRole`: stops the session's running turn in this process (its end record says why), then,
 * as the session's next piece of work, records the switch (a `role` record, and the attributes so
 * it outlives a reset) and publishes `role_changed`. Nothing happens when the role is already set.
 */
export async function setRole(deps: Readonly<SetRoleDeps>, sessionId: string, role: string): Promise<void> {
  deps.status.checkOpen();
  const { store } = deps;
  if (typeof role !== "string" || !deps.roleOf(role))
    throw new InvalidArgumentError(`setRole: unknown role "${String(role)}"`);
  const session = await store.getSession(sessionId);
  if (!session) throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
  const agent = agentOf(deps.registry, session.agentId);
  void deps.running.stop(sessionId, "role_changed");
  await deps.gate.withSession(sessionId, async (lease) => {
    const state = await deps.states.read(session);
    const fresh = (await store.getSession(sessionId)) ?? session;
    const from = sessionRole(deps.roleOf, agent, fresh, state);
    if (from === role) return;
    await store.append(sessionId, [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "role", role, from }], {
      leaseToken: lease.token,
    });
    // Kept in the attributes too, so the role outlives a reset of the log.
    await store.updateSession(sessionId, { attributes: { ...fresh.attributes, role } });
    deps.events.publish(session, { type: "role_changed", sessionId, from, to: role, depth: 0, parentId: null });
  });
}
