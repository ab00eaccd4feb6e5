import type { AgentDefinition } from "../../contracts/agent-definition.js";
import type { AgentRegistry } from "../../contracts/agent-registry.js";
import type { SessionStore, SessionSummary } from "../../contracts/session-store.js";
import { isBackground } from "../records/background-attributes.js";

/** Sessions looked at (newest first) for the default target of a notice or message. */
const FOREGROUND_CANDIDATES = 64;

/**
 * The most recently updated session of `scope` (`undefined` = unscoped) that is not a background
 * agent's, not `except`, and whose agent `accept` takes.
 */
export async function foregroundSession(
  lookup: { store: SessionStore; registry: AgentRegistry },
  scope: string | undefined,
  except: string,
  accept: (agent: AgentDefinition) => boolean,
): Promise<SessionSummary | undefined> {
  const sessions = await lookup.store.listSessions({ scope: scope ?? null, limit: FOREGROUND_CANDIDATES });
  return sessions.find((s) => {
    if (isBackground(s) || s.sessionId === except) return false;
    const agent = lookup.registry.get(s.agentId);
    return agent !== undefined && accept(agent);
  });
}
