import { InvalidArgumentError, SessionNotFoundError, SessionOwnershipError } from "../errors/errors.js";
import type { SessionSelector, SessionStore, SessionSummary } from "../contracts/session-store.js";

/** Options of {@link resolveSession}. */
export interface ResolveSessionOptions {
  /**
   * The tenant / end user: `latest` looks only at this scope's sessions, `create` creates the
   * session in it, and an explicit id of a session in another scope is "not found".
   * @default undefined (the unscoped space: only sessions created without a scope)
   */
  scope?: string;
}

/** What {@link resolveSession} returns. */
export interface ResolveSessionResult {
  session: SessionSummary;
  /** True when the session was created by this call. */
  created: boolean;
}

/**
 * Finds (or creates) the session a message for `agentId` goes to. "Most recently updated" is the
 * first session of `store.listSessions({ agentId, limit: 1 })`: pinning is a UI concern and plays
 * no part in routing.
 *
 * Routing never leaves `options.scope`: an explicit id of a session in another scope is an
 * unknown id (nothing about it is revealed).
 *
 * Throws `SessionNotFoundError` (with `agentId`) for `"latest"` when the agent has no session in
 * the scope and (with `sessionId`) for an unknown explicit id; `SessionOwnershipError` when an explicit id
 * belongs to another agent; `InvalidArgumentError` for an empty selector or agent id.
 *
 * Two concurrent `"latest-or-create"` calls for an agent with no session may create two sessions;
 * serialise per agent (the runtime's inbox does) when that matters.
 *
 * @param store - Where the agent's sessions live.
 * @param agentId - The agent the message is for.
 * @param selector - Which session; `"latest-or-create"` when omitted.
 * @param options - The scope to stay in.
 * @example
 * const { session, created } = await resolveSession(store, "todo", "latest-or-create");
 */
export async function resolveSession(
  store: SessionStore,
  agentId: string,
  selector: SessionSelector = "latest-or-create",
  options: ResolveSessionOptions = {},
): Promise<ResolveSessionResult> {
  if (typeof agentId !== "string" || agentId === "")
    throw new InvalidArgumentError("resolveSession: agentId must be a non-empty string");
  const scope = options?.scope;
  if (scope !== undefined && (typeof scope !== "string" || scope === ""))
    throw new InvalidArgumentError("resolveSession: scope must be a non-empty string when set");
  const init = { agentId, ...(scope !== undefined && { scope }) };
  if (typeof selector !== "string" || selector === "") {
    throw new InvalidArgumentError(
      `resolveSession: session selector must be "latest", "create", "latest-or-create" or a session id`,
    );
  }
  switch (selector) {
    case "create":
      return { session: await store.createSession(init), created: true };
    case "latest":
    case "latest-or-create": {
      const [latest] = await store.listSessions({ agentId, scope: scope ?? null, limit: 1 });
      if (latest !== undefined) return { session: latest, created: false };
      if (selector === "latest") throw new SessionNotFoundError(`Agent "${agentId}" has no session`, { agentId });
      return { session: await store.createSession(init), created: true };
    }
    default: {
      const found = await store.getSession(selector);
      // Another scope's session is not revealed: it is as unknown as a missing one.
      const session = found !== undefined && found.scope === scope ? found : undefined;
      if (session === undefined)
        throw new SessionNotFoundError(`Session "${selector}" not found`, { sessionId: selector, agentId });
      if (session.agentId !== agentId)
        throw new SessionOwnershipError({ sessionId: selector, agentId, ownerAgentId: session.agentId });
      return { session, created: false };
    }
  }
}
