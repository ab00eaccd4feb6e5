import { InvalidArgumentError, SessionNotFoundError } from "../../errors/errors.js";
import type { RuntimeContext } from "../common/runtime-context.js";
import { agentOf, checkOpen, sessionRole } from "../common/runtime-lookups.js";

/**
 * `setRole`: stops the session's running turn in this process (its end record says why), then,
 * as the session's next piece of work, records the switch (a `role` record, and the attributes so
 * it outlives a reset) and publishes `role_changed`. Nothing happens when the role is already set.
 */
export async function setRole(runtime: RuntimeContext, sessionId: string, role: string): Promise<void> {
  checkOpen(runtime);
  const { store } = runtime;
  if (typeof role !== "string" || !runtime.roleOf(role))
    throw new InvalidArgumentError(`setRole: unknown role "${String(role)}"`);
  const session = await store.getSession(sessionId);
  if (!session) throw new SessionNotFoundError(`Unknown session "${sessionId}"`, { sessionId });
  const agent = agentOf(runtime, session.agentId);
  const current = runtime.running.get(sessionId);
  if (current) {
    current.reason = "role_changed";
    current.controller.abort(new Error("role_changed"));
  }
  await runtime.withSession(sessionId, async (lease) => {
    const state = await runtime.states.read(session);
    const fresh = (await store.getSession(sessionId)) ?? session;
    const from = sessionRole(runtime, agent, fresh, state);
    if (from === role) return;
    await store.append(sessionId, [{ id: globalThis.crypto.randomUUID(), frame: null, kind: "role", role, from }], {
      leaseToken: lease.token,
    });
    // Kept in the attributes too, so the role outlives a reset of the log.
    await store.updateSession(sessionId, { attributes: { ...fresh.attributes, role } });
    runtime.publish(session, { type: "role_changed", sessionId, from, to: role, depth: 0, parentId: null });
  });
}
